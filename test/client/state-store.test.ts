import { describe, expect, it } from 'vitest';
import { pendingApprovals, toolCallsOf } from '../../remote/client/index.js';
import { HostStateStore } from '../../remote/client/testing.js';
import { approval, DIGEST, event, run, session, unscopedSnapshot } from './state-fixtures.js';

const tc = { toolCallId: 'tc_1' };

describe('the state store', () => {
  it('builds a run from a snapshot and the events after its cursor', () => {
    const store = new HostStateStore();
    store.applySnapshot({}, unscopedSnapshot({ sessions: [session()], runs: [run()] }), 10);
    store.applyEvents([
      event(11, 'run.started', {}),
      event(12, 'model.request', { index: 0, model: 'm' }),
      event(13, 'message.completed', {
        messageId: 'msg_1',
        text: 'Listing.',
        finishReason: 'tool_calls',
      }),
      event(
        14,
        'tool.proposed',
        { name: 'list_directory', input: { path: '.' }, inputDigest: DIGEST },
        tc,
      ),
      event(15, 'tool.started', { attempt: 1 }, tc),
      event(16, 'tool.finished', { status: 'succeeded', summary: '2 entries' }, tc),
      event(17, 'run.finished', { state: 'succeeded' }),
      event(18, 'session.idle', {}),
    ]);
    const { state } = store;
    expect(state.runs['run_1']).toMatchObject({
      state: 'succeeded',
      startedAt: 1011,
      finishedAt: 1017,
    });
    expect(state.sessions['ses_1']?.activeRunId).toBeNull();
    expect(state.messages['run_1']?.map((message) => message.text)).toEqual(['Listing.']);
    expect(toolCallsOf(state, 'run_1')).toEqual([
      expect.objectContaining({
        id: 'tc_1',
        state: 'succeeded',
        result: { status: 'succeeded', summary: '2 entries' },
      }),
    ]);
    expect(state.timelines['run_1']?.map((e) => e.seq)).toEqual([11, 12, 13, 14, 15, 16, 17, 18]);
  });

  it('marks the session active while its run runs, and creates records from events alone', () => {
    const store = new HostStateStore();
    store.applyEvents([
      event(1, 'session.created', { title: 'T', workspace: '/w' }, { runId: null }),
      event(2, 'run.queued', {
        input: { text: 'T' },
        model: null,
        commandId: 'c'.repeat(16),
        by: 'dev',
      }),
      event(3, 'run.started', {}),
    ]);
    expect(store.state.sessions['ses_1']).toMatchObject({ title: 'T', activeRunId: 'run_1' });
    expect(store.state.runs['run_1']).toMatchObject({ state: 'running', sessionId: 'ses_1' });
  });

  it('applies each event once, and never lets an older fact overwrite a newer one', () => {
    const store = new HostStateStore();
    const started = event(5, 'run.started', {});
    const done = event(6, 'message.completed', {
      messageId: 'msg_1',
      text: 'x',
      finishReason: 'stop',
    });
    store.applySnapshot({}, unscopedSnapshot({ runs: [run()] }), 4);
    store.applyEvents([started, done]);
    const before = store.state;
    store.applyEvents([started, done]);
    expect(store.state).toBe(before);
    expect(store.state.messages['run_1']).toHaveLength(1);
    // A run-scoped snapshot at 20 says the run failed; a replay of seq 5 on another
    // subscription must not bring it back to running.
    const failed = { ...run('run_1', 'failed'), finishedAt: 9 };
    store.applySnapshot(
      { runId: 'run_1' },
      { run: failed, messages: [], toolCalls: [], approvals: [], artifacts: [], cursor: 20 },
      20,
    );
    store.applyEvents([event(5, 'run.started', {})]);
    expect(store.state.runs['run_1']?.state).toBe('failed');
  });

  it('follows an approval from request to answer', () => {
    const store = new HostStateStore();
    store.applySnapshot({}, unscopedSnapshot({ runs: [run('run_1', 'running')] }), 1);
    store.applyEvents([
      event(
        2,
        'tool.proposed',
        { name: 'run_command', input: { command: 'npm test' }, inputDigest: DIGEST },
        tc,
      ),
      event(
        3,
        'tool.approval_requested',
        {
          approvalId: 'apr_1',
          name: 'run_command',
          input: { command: 'npm test' },
          workspace: '/w',
          inputDigest: DIGEST,
          reason: 'commands ask',
          preview: { kind: 'command', command: 'npm test', cwd: '/w' },
          expiresAt: 99,
        },
        tc,
      ),
    ]);
    expect(store.state.runs['run_1']?.state).toBe('waiting_for_approval');
    expect(store.state.toolCalls['tc_1']?.state).toBe('waiting_for_approval');
    expect(pendingApprovals(store.state)).toEqual([approval()]);
    store.applyEvents([
      event(
        4,
        'tool.approval_resolved',
        { approvalId: 'apr_1', decision: 'approved', by: 'dev' },
        tc,
      ),
    ]);
    expect(pendingApprovals(store.state)).toEqual([]);
    expect(store.state.approvals['apr_1']).toMatchObject({
      state: 'approved',
      decidedBy: 'dev',
      decidedAt: 1004,
    });
    expect(store.state.toolCalls['tc_1']?.state).toBe('ready');
    expect(store.state.runs['run_1']?.state).toBe('running');
  });

  it('drops, on a fresh unscoped snapshot, active runs and pending approvals it no longer lists', () => {
    const store = new HostStateStore();
    store.applySnapshot(
      {},
      unscopedSnapshot({
        runs: [run('run_1', 'running'), run('run_2', 'succeeded')],
        pendingApprovals: [approval()],
      }),
      5,
    );
    store.applySnapshot({}, unscopedSnapshot({ runs: [run('run_3', 'queued')] }), 50);
    expect(Object.keys(store.state.runs).sort()).toEqual(['run_2', 'run_3']);
    expect(pendingApprovals(store.state)).toEqual([]);
  });

  it('rejects a snapshot that does not fit its scope, changing nothing', () => {
    const store = new HostStateStore();
    expect(() => store.applySnapshot({ runId: 'run_1' }, { runs: [] }, 3)).toThrow(/run snapshot/);
    expect(store.state.runs).toEqual({});
  });

  it('tells listeners once per change, and not when nothing changed', () => {
    const store = new HostStateStore();
    const seen: unknown[] = [];
    const stop = store.subscribe((state) => seen.push(state));
    store.applyEvents([
      event(1, 'run.queued', {
        input: { text: 'T' },
        model: null,
        commandId: 'c'.repeat(16),
        by: 'd',
      }),
      event(2, 'run.started', {}),
    ]);
    store.applyEvents([event(2, 'run.started', {})]);
    expect(seen).toEqual([store.state]);
    stop();
    store.applyEvents([event(3, 'run.finished', { state: 'succeeded' })]);
    expect(seen).toHaveLength(1);
  });

  it('keeps devices from the snapshot, marks revocations, and makes none up from a bare event', () => {
    const store = new HostStateStore();
    const phone = {
      deviceId: 'u8P30MGO1ZkcbU5Wq4RG3g',
      name: 'Phone',
      platform: 'ios',
      pairedAt: 1,
      lastSeenAt: null,
      revoked: false,
      current: true,
    };
    store.applySnapshot({}, { ...unscopedSnapshot({}), devices: [phone] }, 1);
    store.applyEvents([
      event(
        2,
        'device.revoked',
        { deviceId: phone.deviceId, name: 'Phone' },
        { sessionId: null, runId: null },
      ),
      event(
        3,
        'device.paired',
        { deviceId: 'AAAAAAAAAAAAAAAAAAAAAA', name: 'Tablet' },
        { sessionId: null, runId: null },
      ),
    ]);
    expect(Object.values(store.state.devices)).toEqual([{ ...phone, revoked: true }]);
  });

  it('adds a device from a device.paired event that names its platform (this host sends it)', () => {
    const store = new HostStateStore();
    store.applySnapshot({}, unscopedSnapshot({}), 1);
    const paired = event(
      2,
      'device.paired',
      { deviceId: 'AAAAAAAAAAAAAAAAAAAAAA', name: 'Tablet', platform: 'ipados' },
      { sessionId: null, runId: null },
    );
    store.applyEvents([paired]);
    expect(Object.values(store.state.devices)).toEqual([
      {
        deviceId: 'AAAAAAAAAAAAAAAAAAAAAA',
        name: 'Tablet',
        platform: 'ipados',
        pairedAt: paired.at,
        lastSeenAt: null,
        revoked: false,
        current: false,
      },
    ]);
    // device.renamed renames it; for a device it does not know, it makes none up.
    store.applyEvents([
      event(
        3,
        'device.renamed',
        {
          deviceId: 'AAAAAAAAAAAAAAAAAAAAAA',
          name: 'Kitchen iPad',
          previousName: 'Tablet',
          by: 'admin',
        },
        { sessionId: null, runId: null },
      ),
      event(
        4,
        'device.renamed',
        { deviceId: 'BBBBBBBBBBBBBBBBBBBBBB', name: 'Ghost', previousName: 'Linux', by: 'admin' },
        { sessionId: null, runId: null },
      ),
    ]);
    expect(Object.values(store.state.devices).map((device) => device.name)).toEqual([
      'Kitchen iPad',
    ]);
  });

  it('replaces a session scope from its snapshot', () => {
    const store = new HostStateStore();
    store.applySnapshot(
      {},
      unscopedSnapshot({ runs: [run('run_1', 'running')], pendingApprovals: [approval()] }),
      1,
    );
    const snapshot = {
      session: session('ses_1', null),
      runs: [run('run_1', 'succeeded')],
      pendingApprovals: [],
    };
    store.applySnapshot({ sessionId: 'ses_1' }, snapshot, 9);
    expect(store.state.sessions['ses_1']).toEqual(session('ses_1', null));
    expect(store.state.runs['run_1']?.state).toBe('succeeded');
    expect(pendingApprovals(store.state)).toEqual([]);
  });
});
