import { describe, expect, it } from 'vitest';
import { HostStateStore, OUTPUT_TAIL_CHARS } from '../../remote/client/testing.js';
import { DIGEST, event, run, unscopedSnapshot } from './state-fixtures.js';

function runningStore(): HostStateStore {
  const store = new HostStateStore();
  store.applySnapshot({}, unscopedSnapshot({ runs: [run('run_1', 'running')] }), 1);
  return store;
}

const preview = (messageId: string, offset: number, text: string, reasoning?: string) => ({
  t: 'preview' as const,
  runId: 'run_1',
  messageId,
  offset,
  text,
  ...(reasoning === undefined ? {} : { reasoning }),
});

const output = (offset: number, text: string) => ({
  t: 'output' as const,
  toolCallId: 'tc_1',
  offset,
  text,
});

describe('previews', () => {
  it('appends a chunk only when its offset is the length of the text held', () => {
    const store = runningStore();
    store.applyPreview(preview('msg_1', 0, 'Hel'));
    store.applyPreview(preview('msg_1', 3, 'lo'));
    store.applyPreview(preview('msg_1', 3, 'lo')); // a repeat
    store.applyPreview(preview('msg_1', 9, 'gap')); // a chunk after a dropped one
    store.applyPreview(preview('msg_1', 5, '', 'thinking')); // reasoning at the text's length
    store.applyPreview(preview('msg_1', 5, ' 😀'));
    expect(store.state.previews['run_1']).toEqual({
      messageId: 'msg_1',
      text: 'Hello 😀',
      reasoning: 'thinking',
    });
    // offsets count UTF-16 code units: the emoji is two
    store.applyPreview(preview('msg_1', 8, '!'));
    expect(store.state.previews['run_1']?.text).toBe('Hello 😀!');
  });

  it('starts over at offset 0 under a new messageId, and ignores a new id mid-text', () => {
    const store = runningStore();
    store.applyPreview(preview('msg_1', 0, 'First try'));
    store.applyPreview(preview('msg_2', 4, 'late join'));
    expect(store.state.previews['run_1']?.messageId).toBe('msg_1');
    store.applyPreview(preview('msg_2', 0, 'Second'));
    expect(store.state.previews['run_1']).toEqual({
      messageId: 'msg_2',
      text: 'Second',
      reasoning: '',
    });
  });

  it('drops the preview when its message completes, and ignores late chunks of it', () => {
    const store = runningStore();
    store.applyPreview(preview('msg_1', 0, 'Hi'));
    store.applyEvents([
      event(2, 'message.completed', { messageId: 'msg_1', text: 'Hi there', finishReason: 'stop' }),
    ]);
    expect(store.state.previews['run_1']).toBeUndefined();
    store.applyPreview(preview('msg_1', 0, 'Hi'));
    expect(store.state.previews['run_1']).toBeUndefined();
    expect(store.state.messages['run_1']?.[0]?.text).toBe('Hi there');
  });

  it('takes the live text of a run snapshot, and clears previews when the run finishes', () => {
    const store = new HostStateStore();
    const live = {
      durable: false,
      messageId: 'msg_7',
      text: 'Work',
      reasoning: '',
      outputs: [{ toolCallId: 'tc_1', offset: 100, text: 'out' }],
    };
    const snapshot = {
      run: run('run_1', 'running'),
      messages: [],
      toolCalls: [],
      approvals: [],
      artifacts: [],
      live,
      cursor: 3,
    };
    store.applySnapshot({ runId: 'run_1' }, snapshot, 3);
    store.applyPreview(preview('msg_7', 4, 'ing'));
    expect(store.state.previews['run_1']?.text).toBe('Working');
    expect(store.state.outputs['tc_1']).toEqual({ offset: 100, text: 'out' });
    store.applyEvents([event(4, 'run.finished', { state: 'cancelled' })]);
    expect(store.state.previews['run_1']).toBeUndefined();
    store.applyPreview(preview('msg_8', 0, 'after the end'));
    expect(store.state.previews['run_1']).toBeUndefined();
  });
});

describe('output tails', () => {
  it('continues, skips what it has, restarts after a gap, and ends with the tool call', () => {
    const store = runningStore();
    store.applyEvents([
      event(
        2,
        'tool.proposed',
        { name: 'run_command', input: {}, inputDigest: DIGEST },
        { toolCallId: 'tc_1' },
      ),
    ]);
    store.applyOutput(output(0, 'abc'));
    store.applyOutput(output(3, 'def'));
    store.applyOutput(output(4, 'efgh')); // overlaps: only 'gh' is new
    store.applyOutput(output(2, 'cd')); // already held
    expect(store.state.outputs['tc_1']).toEqual({ offset: 0, text: 'abcdefgh' });
    store.applyOutput(output(20, 'later'));
    expect(store.state.outputs['tc_1']).toEqual({ offset: 20, text: 'later' });
    store.applyEvents([
      event(3, 'tool.finished', { status: 'succeeded', summary: 'ok' }, { toolCallId: 'tc_1' }),
    ]);
    expect(store.state.outputs['tc_1']).toBeUndefined();
    store.applyOutput(output(25, 'straggler'));
    expect(store.state.outputs['tc_1']).toBeUndefined();
  });

  it('keeps at most OUTPUT_TAIL_CHARS, with the offset of what it kept', () => {
    const store = runningStore();
    const big = 'x'.repeat(OUTPUT_TAIL_CHARS);
    store.applyOutput(output(0, big));
    store.applyOutput(output(OUTPUT_TAIL_CHARS, 'tail'));
    const tail = store.state.outputs['tc_1']!;
    expect(tail.text).toHaveLength(OUTPUT_TAIL_CHARS);
    expect(tail.text.endsWith('xtail')).toBe(true);
    expect(tail.offset).toBe(4);
  });
});
