/**
 * Issue 16, items 3 to 5, against a real host process with the scripted model: a run that
 * creates a file, edits another and runs a command, then `run.changes` (both files with
 * their diffs and digests, the command with its exit status), `run.usage` (tokens summed per
 * run and per session, cached and reasoning tokens carried, unknown kept apart from 0, a cost
 * only where the config prices the model) and `runs.list` with a `query`.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  OPS,
  RunChanges,
  type Event,
  type HostMessage,
  type OpResult,
} from '../../protocol/index.js';
import { startHostProcess, type HostProcess } from '../support/host-process.js';
import { startModelHost, type ModelHost } from '../support/model-host.js';
import { RawChannel, pairDevice } from '../support/raw-channel.js';
import {
  textTurn,
  toolCallTurn,
  type ScriptedModelServer,
} from '../support/scripted-model-server.js';
import { until } from '../support/wait.js';

const README = '# A workspace for tests\n';
const NOTES = 'first line\nsecond line\n';
/** DeepSeek's usage: cache hits at the top level, reasoning in the details. */
const DEEPSEEK_USAGE = {
  prompt_tokens: 1000,
  completion_tokens: 50,
  total_tokens: 1050,
  prompt_cache_hit_tokens: 800,
  prompt_cache_miss_tokens: 200,
  completion_tokens_details: { reasoning_tokens: 20 },
};
/** OpenAI's usage, in its own `choices: []` chunk: cache hits in the prompt details. */
const OPENAI_USAGE = {
  prompt_tokens: 1500,
  completion_tokens: 30,
  total_tokens: 1530,
  prompt_tokens_details: { cached_tokens: 1000 },
};
/** A provider that gives only the two main counts. */
const PLAIN_USAGE = { prompt_tokens: 2000, completion_tokens: 100, total_tokens: 2100 };
const PRICE = { inputPerMTok: 0.27, cachedInputPerMTok: 0.07, outputPerMTok: 1.1 };

let served: ModelHost;
let model: ScriptedModelServer;
let host: HostProcess;
let channel: RawChannel;
let runId: string;
let sessionId: string;
let commands = 0;

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

async function call<O extends keyof typeof OPS>(op: O, args: object): Promise<OpResult<O>> {
  return OPS[op].result.parse(await channel.call(op, args)) as OpResult<O>;
}

/** Submits `text` (in `session` when given) and resolves once its session is idle. */
async function runTask(text: string, session?: string): Promise<OpResult<'run.submit'>> {
  commands += 1;
  const submitted = await call('run.submit', {
    commandId: `cmd-changes-test-${String(commands).padStart(4, '0')}`,
    input: { text },
    ...(session === undefined ? {} : { sessionId: session }),
  });
  const idle = (message: HostMessage) =>
    message.t === 'events' &&
    (message.events as Event[]).some(
      (event) => event.type === 'session.idle' && event.runId === submitted.runId,
    );
  if (channel.others.splice(0).some(idle)) return submitted;
  for (;;) {
    const message = await channel.receive();
    if (message === undefined) throw new Error('the channel closed');
    if (idle(message)) return submitted;
  }
}

beforeAll(async () => {
  served = await startModelHost({
    config: {
      policy: {
        tools: { write_file: 'allow', edit_file: 'allow' },
        commands: { allow: [['ls', '…']] },
      },
      prices: { 'scripted-model': PRICE },
    },
  });
  ({ model, host } = served);
  const { host: paired } = await pairDevice(await host.pairLink());
  channel = await RawChannel.open(paired);
  await channel.call('subscribe', {});
  model.push(
    toolCallTurn(
      [
        {
          id: 'w',
          name: 'write_file',
          arguments: JSON.stringify({ path: 'notes.txt', content: NOTES, expectedSha256: null }),
        },
        {
          id: 'e',
          name: 'edit_file',
          arguments: JSON.stringify({
            path: 'README.md',
            oldText: 'for tests',
            newText: 'for the changes test',
          }),
        },
      ],
      { usage: DEEPSEEK_USAGE },
    ),
    toolCallTurn([{ id: 'c', name: 'run_command', arguments: '{"command":"ls no-such-file"}' }], {
      usage: OPENAI_USAGE,
      usageStyle: 'separate-chunk',
    }),
    textTurn('Wrote the notes and fixed the README.', { usage: PLAIN_USAGE }),
  );
  ({ runId, sessionId } = await runTask('Write notes, then list a missing file'));
}, 60_000);

afterAll(async () => {
  await channel?.[Symbol.asyncDispose]();
  await served?.dispose();
});

describe('run.changes', () => {
  it('lists both files with their diffs and digests, and the command with its exit status', async () => {
    const changes = RunChanges.parse(await channel.call('run.changes', { runId }));
    expect(changes.runId).toBe(runId);
    expect(changes.files.map((file) => file.path)).toEqual(['notes.txt', 'README.md']);
    const [notes, readme] = changes.files;
    const edited = README.replace('for tests', 'for the changes test');
    expect(readFileSync(join(host.workspace, 'README.md'), 'utf8')).toBe(edited);
    expect(notes!.writes).toMatchObject([
      {
        tool: 'write_file',
        state: 'succeeded',
        action: 'created',
        beforeSha256: null,
        afterSha256: sha256(NOTES),
        linesAdded: 2,
        linesRemoved: 0,
      },
    ]);
    expect(notes!.writes[0]!.diff?.text).toContain('+first line\n+second line\n');
    expect(readme!.writes).toMatchObject([
      {
        tool: 'edit_file',
        state: 'succeeded',
        action: 'edited',
        beforeSha256: sha256(README),
        afterSha256: sha256(edited),
        linesAdded: 1,
        linesRemoved: 1,
      },
    ]);
    const diff = readme!.writes[0]!.diff!;
    expect(diff.text).toContain('-# A workspace for tests\n+# A workspace for the changes test\n');
    // The inline text is the artifact's, byte for byte.
    const artifact = await call('artifact.read', {
      artifactId: diff.artifactId,
      offset: 0,
      limit: 65536,
    });
    expect(artifact.text).toBe(diff.text);
    expect(Buffer.byteLength(diff.text!)).toBe(diff.bytes);

    expect(changes.commands).toHaveLength(1);
    const command = changes.commands[0]!;
    expect(command).toMatchObject({
      command: 'ls no-such-file',
      cwd: null,
      state: 'failed',
      exitCode: 2,
      signal: null,
      errorCode: 'exit_nonzero',
      reconciled: null,
    });
    expect(command.output?.bytes).toBeGreaterThan(0);
    const output = await call('output.read', {
      toolCallId: command.toolCallId,
      offset: 0,
      limit: 4096,
    });
    expect(output.text).toContain('no-such-file');
  });

  it('is not_found for an unknown run and invalid_request for bad args', async () => {
    const unknown = await channel.request('run.changes', { runId: 'run_nope' });
    expect(unknown).toMatchObject({ ok: false, error: { code: 'not_found' } });
    const extra = await channel.request('run.changes', { runId, all: true });
    expect(extra).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
  });
});

describe('run.usage', () => {
  it('sums the run’s tokens with cached and reasoning ones, and prices them as an estimate', async () => {
    const { run, session } = await call('run.usage', { runId });
    expect(run).toMatchObject({
      messages: 3,
      reported: 3,
      inputTokens: 4500,
      cachedInputTokens: 1800,
      outputTokens: 180,
      // Only DeepSeek's message said; the others' reasoning is unknown, not 0.
      reasoningTokens: 20,
    });
    const usd = ((4500 - 1800) * 0.27 + 1800 * 0.07 + 180 * 1.1) / 1_000_000;
    expect(run.cost?.estimate).toBe(true);
    expect(run.cost?.usd).toBeCloseTo(usd, 12);
    expect(session).toEqual(run);
  });

  it('keeps a message without usage unknown: no counts for the run, no cost for the session', async () => {
    model.push(textTurn('No usage from this provider.'));
    const second = await runTask('Say something', sessionId);
    expect(second.sessionId).toBe(sessionId);
    const { run, session } = await call('run.usage', { runId: second.runId });
    expect(run).toEqual({
      messages: 1,
      reported: 0,
      inputTokens: null,
      cachedInputTokens: null,
      outputTokens: null,
      reasoningTokens: null,
    });
    expect(session).toEqual({
      messages: 4,
      reported: 3,
      inputTokens: 4500,
      cachedInputTokens: 1800,
      outputTokens: 180,
      reasoningTokens: 20,
    });
  });

  it('gives no cost for a model without a price', async () => {
    await using unpriced = await startHostProcess({ model: model.baseUrl });
    const { host: paired } = await pairDevice(await unpriced.pairLink());
    await using other = await RawChannel.open(paired);
    model.push(textTurn('hi', { usage: PLAIN_USAGE }));
    const submitted = (await other.call('run.submit', {
      commandId: 'cmd-changes-test-unpriced',
      input: { text: 'hello' },
    })) as { runId: string };
    const usage = await until(
      'the unpriced run to record its message',
      async () =>
        OPS['run.usage'].result.parse(await other.call('run.usage', { runId: submitted.runId })),
      (read) => read.run.reported === 1,
    );
    expect(usage.run).toEqual({
      messages: 1,
      reported: 1,
      inputTokens: 2000,
      cachedInputTokens: null,
      outputTokens: 100,
      reasoningTokens: null,
    });
  });
});

describe('runs.list query', () => {
  it('matches task, session title and answer text case-insensitively, % and _ literally', async () => {
    for (const text of [
      'Fix 50% of the flaky tests',
      'Fix 5000 tests',
      'rename foo_bar',
      'rename fooXbar',
      'Über alles',
    ]) {
      model.push(textTurn(`done: ${text}`));
      await runTask(text);
    }
    const found = async (query: string) =>
      (await call('runs.list', { query })).runs.map((run) => run.input.text);
    expect(await found('50%')).toEqual(['Fix 50% of the flaky tests']);
    expect(await found('foo_bar')).toEqual(['rename foo_bar']);
    expect(await found('FOO')).toEqual(['rename fooXbar', 'rename foo_bar']);
    expect(await found('über')).toEqual(['Über alles']);
    expect(await found('no such words anywhere')).toEqual([]);
    // The answer's text, and the session's title (the first run's task) for a follow-up.
    expect(await found('fixed the readme')).toEqual(['Write notes, then list a missing file']);
    expect(await found('list a missing')).toEqual([
      'Say something',
      'Write notes, then list a missing file',
    ]);
    // Paged like any list: the cursor carries on within the matches.
    const first = await call('runs.list', { query: 'fix', limit: 1 });
    expect(first.runs.map((run) => run.input.text)).toEqual(['Fix 5000 tests']);
    const next = await call('runs.list', { query: 'fix', limit: 1, before: first.next });
    expect(next.runs.map((run) => run.input.text)).toEqual(['Fix 50% of the flaky tests']);
  });

  it('refuses an empty, blank or too long query and changes nothing', async () => {
    for (const query of ['', '   ', 'x'.repeat(201), 42]) {
      const answer = await channel.request('runs.list', { query });
      expect(answer).toMatchObject({ ok: false, error: { code: 'invalid_request' } });
    }
  });
});
