/**
 * Each crash window of docs/reliability.md: a real host process started with one fault
 * point dies there with SIGKILL, is restarted without it, and what it left behind is
 * checked against the fault matrix in the store, on the wire and in the workspace.
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { closeSync, existsSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { digest } from '../../protocol/index.js';
import { startFaultHost, markCommand, type FaultHost } from '../support/fault-host.js';
import { tempDir } from '../support/temp-dir.js';
import { until } from '../support/wait.js';
import { textTurn, toolCallTurn, type StreamTurn } from '../support/scripted-model-server.js';

const submitArgs = (text: string) => ({ commandId: randomUUID(), input: { text } });

/** Submits a run on the current channel and returns its id. */
async function submit(host: FaultHost, text: string): Promise<string> {
  const result = await host.channel.call('run.submit', submitArgs(text));
  return String(result['runId']);
}

/** A turn proposing `sh mark.sh <tag>`, allowed by the test policy. */
function markTurn(tag: string): StreamTurn {
  return toolCallTurn([
    { id: `call_${tag}`, name: 'run_command', arguments: JSON.stringify(markCommand(tag)) },
  ]);
}

/** A turn proposing a command that policy does not allow: it asks first. */
function markTurnAsking(): StreamTurn {
  return toolCallTurn([
    { id: 'call_ask', name: 'run_command', arguments: '{"command":"sh unlisted.sh"}' },
  ]);
}

function runState(host: FaultHost, runId: string): string | undefined {
  return host.query(
    (db) =>
      db.prepare('SELECT state FROM runs WHERE id = ?').get(runId) as { state: string } | undefined,
  )?.state;
}

function toolCalls(host: FaultHost, runId: string): { id: string; state: string }[] {
  return host.query(
    (db) =>
      db
        .prepare('SELECT id, state FROM tool_calls WHERE run_id = ? ORDER BY position')
        .all(runId) as { id: string; state: string }[],
  );
}

/** The single run the host holds, once it has been recorded. */
function onlyRun(host: FaultHost): string {
  const ids = host.query((db) => db.prepare('SELECT id FROM runs').all() as { id: string }[]);
  expect(ids).toHaveLength(1);
  return ids[0]!.id;
}

/** Waits until the run's events include `type`. */
function eventSeen(host: FaultHost, runId: string, type: string): Promise<true> {
  return until(`${type} of ${runId}`, () =>
    host.typesOf(runId).includes(type) ? true : undefined,
  );
}

/**
 * Runs a point's scenario up to the kill and the clean restart, on a host armed with that
 * point: a run whose model proposes `sh mark.sh <tag>`. Returns the run's id.
 */
async function killedDuringMark(host: FaultHost, tag: string): Promise<string> {
  host.model.push(markTurn(tag), textTurn('Marked.'));
  const runId = await submit(host, `Mark ${tag}`);
  await host.died();
  await host.restartClean();
  await eventSeen(host, runId, 'session.idle');
  return runId;
}

describe('fault points: the host killed in each crash window, then restarted', () => {
  it('command committed, answer lost: the resent commandId gets the same run, which starts once', async () => {
    await using host = await startFaultHost({ point: 'command-committed' });
    host.model.push(textTurn('Hello once.'));
    const args = submitArgs('Say hello');
    await expect(host.channel.call('run.submit', args)).rejects.toThrow(/closed before the answer/);
    await host.died();
    await host.restartClean();

    const again = await host.channel.call('run.submit', args);
    expect(again).toMatchObject({ state: 'queued', deduplicated: true });
    const runId = String(again['runId']);
    expect(onlyRun(host)).toBe(runId);
    await eventSeen(host, runId, 'session.idle');
    expect(runState(host, runId)).toBe('succeeded');
    const types = host.typesOf(runId);
    expect(types.filter((type) => type === 'run.queued')).toHaveLength(1);
    expect(types.filter((type) => type === 'run.started')).toHaveLength(1);
    expect(host.model.chatBodies()).toHaveLength(1);
    const commands = host.query((db) =>
      db.prepare("SELECT command_id FROM commands WHERE op = 'run.submit'").all(),
    );
    expect(commands).toEqual([{ command_id: args.commandId }]);
  });

  it('model stream cut inside a tool call: the run is interrupted and the half-formed call never ran', async () => {
    // Events: text, the call's header, its first argument fragment: die at the third.
    await using host = await startFaultHost({ point: 'model-stream', hit: 3 });
    const turn = markTurn('stream');
    turn.items.splice(1, 0, { delta: { content: 'Marking now.' } });
    host.model.push(turn, textTurn('Marked.'));
    const runId = await submit(host, 'Mark stream');
    await host.died();
    await host.restartClean();
    await eventSeen(host, runId, 'session.idle');

    expect(runState(host, runId)).toBe('interrupted');
    expect(toolCalls(host, runId)).toEqual([]);
    const types = host.typesOf(runId);
    expect(types).not.toContain('message.completed');
    expect(types).not.toContain('tool.proposed');
    expect(types.slice(-2)).toEqual(['run.finished', 'session.idle']);
    expect(host.markerLines()).toEqual([]);
    expect(host.model.chatBodies()).toHaveLength(1);
  });

  it('waiting for approval: still pending after the restart, not approved by itself; approving it finishes the run', async () => {
    await using host = await startFaultHost({ point: 'approval-requested' });
    const input = { path: 'approved.txt', content: 'yes\n', expectedSha256: null };
    host.model.push(
      toolCallTurn([{ id: 'call_write', name: 'write_file', arguments: JSON.stringify(input) }]),
      textTurn('Written.'),
    );
    const runId = await submit(host, 'Write approved.txt');
    await host.died();
    await host.restartClean();

    const run = await host.channel.call('run.get', { runId });
    expect(run['run']).toMatchObject({ state: 'waiting_for_approval' });
    const [approval] = run['approvals'] as {
      id: string;
      toolCallId: string;
      state: string;
      name: string;
      input: unknown;
      workspace: string;
      inputDigest: string;
    }[];
    expect(approval).toMatchObject({ state: 'pending', name: 'write_file', input });
    // Nothing answers it meanwhile: no resolution, no file, the run still parked.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(host.typesOf(runId)).not.toContain('tool.approval_resolved');
    expect(runState(host, runId)).toBe('waiting_for_approval');
    const path = join(host.host.workspace, 'approved.txt');
    expect(existsSync(path)).toBe(false);

    const inputDigest = digest({
      tool: approval!.name,
      input: approval!.input,
      workspace: approval!.workspace,
    });
    expect(inputDigest).toBe(approval!.inputDigest);
    const answer = await host.channel.call('approval.respond', {
      commandId: randomUUID(),
      approvalId: approval!.id,
      toolCallId: approval!.toolCallId,
      inputDigest,
      decision: 'approve',
    });
    expect(answer).toEqual({ status: 'approved' });
    await eventSeen(host, runId, 'session.idle');
    expect(runState(host, runId)).toBe('succeeded');
    expect(readFileSync(path, 'utf8')).toBe('yes\n');
  });

  it('a run being cancelled when the host died: interrupted, and its pending approval cancelled', async () => {
    await using host = await startFaultHost({ point: 'approval-requested' });
    host.model.push(markTurnAsking());
    const runId = await submit(host, 'Ask first');
    await host.died();
    // The window between a cancel's commit and its settling, which only a power cut opens.
    host.write((db) => db.prepare("UPDATE runs SET state = 'cancelling' WHERE id = ?").run(runId));
    await host.restartClean();
    await eventSeen(host, runId, 'session.idle');

    expect(runState(host, runId)).toBe('interrupted');
    expect(toolCalls(host, runId).map((call) => call.state)).toEqual(['cancelled']);
    const approvals = host.query((db) =>
      db.prepare('SELECT state, decided_by FROM approvals').all(),
    );
    expect(approvals).toEqual([{ state: 'cancelled', decided_by: 'cancel' }]);
    const resolved = host.events().filter((event) => event.type === 'tool.approval_resolved');
    expect(resolved.map((event) => event.payload)).toMatchObject([
      { decision: 'cancelled', by: 'cancel' },
    ]);
  });

  it('intent committed, not started: the call is cancelled (it never ran), the run interrupted', async () => {
    await using host = await startFaultHost({ point: 'tool-ready' });
    const runId = await killedDuringMark(host, 'ready');
    expect(runState(host, runId)).toBe('interrupted');
    expect(toolCalls(host, runId).map((call) => call.state)).toEqual(['cancelled']);
    const types = host.typesOf(runId);
    expect(types).not.toContain('tool.started');
    const finished = host.events().find((event) => event.type === 'tool.finished');
    expect(finished?.payload).toMatchObject({ status: 'cancelled' });
    expect(host.markerLines()).toEqual([]);
  });

  it('running committed, before the spawn: unknown, never re-run; reconcile records the verdict', async () => {
    await using host = await startFaultHost({ point: 'tool-running' });
    const runId = await killedDuringMark(host, 'running');
    expect(runState(host, runId)).toBe('interrupted');
    const [call] = toolCalls(host, runId);
    expect(call?.state).toBe('unknown');
    expect(host.markerLines()).toEqual([]);
    await expectNeverRerun(host, runId, 0);

    await host.channel.call('toolcall.reconcile', {
      commandId: randomUUID(),
      toolCallId: call!.id,
      outcome: 'did_not_happen',
      note: 'marker.txt is missing',
    });
    const reconciled = host.events().filter((event) => event.type === 'tool.reconciled');
    expect(reconciled).toHaveLength(1);
    expect(reconciled[0]).toMatchObject({
      toolCallId: call!.id,
      payload: { outcome: 'did_not_happen', note: 'marker.txt is missing' },
    });
    expect(toolCalls(host, runId)[0]?.state).toBe('unknown');
  });

  it('after the spawn: unknown, at most one mark, never re-run; reconcile records the verdict', async () => {
    await using host = await startFaultHost({ point: 'tool-spawned' });
    const runId = await killedDuringMark(host, 'spawned');
    expect(runState(host, runId)).toBe('interrupted');
    const [call] = toolCalls(host, runId);
    expect(call?.state).toBe('unknown');
    const marks = host.markerLines();
    expect(marks.length).toBeLessThanOrEqual(1);
    await expectNeverRerun(host, runId, marks.length);

    const outcome = marks.length === 1 ? 'happened' : 'did_not_happen';
    await host.channel.call('toolcall.reconcile', {
      commandId: randomUUID(),
      toolCallId: call!.id,
      outcome,
    });
    expect(host.events().at(-1)).toMatchObject({
      type: 'tool.reconciled',
      toolCallId: call!.id,
      payload: { outcome },
    });
  });

  it('tool exited, result not committed: unknown, and its output file kept for output.read', async () => {
    await using host = await startFaultHost({ point: 'tool-exited' });
    const runId = await killedDuringMark(host, 'exited');
    expect(runState(host, runId)).toBe('interrupted');
    const [call] = toolCalls(host, runId);
    expect(call?.state).toBe('unknown');
    expect(host.markerLines()).toEqual(['exited']);
    expect(existsSync(join(host.host.dataDir, 'outputs', `${call!.id}.out`))).toBe(true);
    const page = await host.channel.call('output.read', {
      toolCallId: call!.id,
      offset: 0,
      limit: 4096,
    });
    expect(page).toMatchObject({ text: 'marking exited\n', eof: true });
    await expectNeverRerun(host, runId, 1);
  });

  it('between run.finished and session.idle: recovery records the missing session.idle, once', async () => {
    await using host = await startFaultHost({ point: 'run-finished' });
    host.model.push(textTurn('All done.'));
    const runId = await submit(host, 'Finish');
    await host.died();
    expect(host.typesOf(runId).slice(-1)).toEqual(['run.finished']);
    await host.restartClean();
    await eventSeen(host, runId, 'session.idle');

    expect(runState(host, runId)).toBe('succeeded');
    const types = host.typesOf(runId);
    expect(types.filter((type) => type === 'session.idle')).toHaveLength(1);
    expect(types.slice(-2)).toEqual(['run.finished', 'session.idle']);
    const session = await host.channel.call('sessions.list', {});
    expect(session['sessions']).toMatchObject([{ activeRunId: null }]);
  });
});

describe('fault settings at start', () => {
  const bin = new URL('../../bin/tether.js', import.meta.url).pathname;

  /** `tether start` with `env`; it must refuse before touching the data directory. */
  function startWith(env: Record<string, string>) {
    using root = tempDir('tether-fault-env-', { realpath: false });
    const data = join(root.path, 'data');
    const run = spawnSync(process.execPath, [bin, 'start', '--data', data, '--port', '0'], {
      env: { PATH: process.env['PATH'] ?? '', HOME: root.path, TETHER_KEY_STORE: 'file', ...env },
      encoding: 'utf8',
      timeout: 20_000,
    });
    return { status: run.status, stderr: run.stderr, created: existsSync(data) };
  }

  it('refuses an unknown point, a point without TETHER_FAULTS=1 and a bad hit, with exit 2', () => {
    const unknown = startWith({ TETHER_FAULTS: '1', TETHER_FAULT_POINT: 'nowhere' });
    expect(unknown).toMatchObject({ status: 2, created: false });
    expect(unknown.stderr).toContain('TETHER_FAULT_POINT: unknown fault point nowhere');
    expect(unknown.stderr).toContain('tool-spawned');

    const unarmed = startWith({ TETHER_FAULT_POINT: 'tool-ready' });
    expect(unarmed).toMatchObject({ status: 2, created: false });
    expect(unarmed.stderr).toContain('fault points need TETHER_FAULTS=1');

    const hit = startWith({
      TETHER_FAULTS: '1',
      TETHER_FAULT_POINT: 'tool-ready',
      TETHER_FAULT_HIT: '0',
    });
    expect(hit).toMatchObject({ status: 2, created: false });
    expect(hit.stderr).toContain('TETHER_FAULT_HIT: expected a positive integer');
  });

  /** A process that arms `env` and reaches `tool-ready` twice, its stderr as given. */
  function reachPoint(env: Record<string, string>, stderr: number | 'pipe') {
    const faults = new URL('../../dist/host/faults/index.js', import.meta.url).href;
    const script = [
      `import { armFaultPoints, faultPoint } from ${JSON.stringify(faults)};`,
      `armFaultPoints(${JSON.stringify(env)});`,
      "faultPoint('tool-ready');",
      "faultPoint('tool-ready');",
      "process.stdout.write('went on');",
    ].join('\n');
    return spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', stderr],
      encoding: 'utf8',
      timeout: 20_000,
    });
  }

  it('are inert without TETHER_FAULTS=1 and a point, and kill at the hit asked for', () => {
    expect(reachPoint({}, 'pipe')).toMatchObject({ status: 0, signal: null, stdout: 'went on' });
    const second = reachPoint(
      { TETHER_FAULTS: '1', TETHER_FAULT_POINT: 'tool-ready', TETHER_FAULT_HIT: '2' },
      'pipe',
    );
    expect(second).toMatchObject({ status: null, signal: 'SIGKILL', stdout: '' });
    expect(second.stderr).toBe('fault point tool-ready reached: killing\n');
  });

  it('kill even when their line cannot be written to stderr', () => {
    using root = tempDir('tether-fault-stderr-', { realpath: false });
    const readOnly = join(root.path, 'read-only');
    writeFileSync(readOnly, '');
    const fd = openSync(readOnly, 'r');
    try {
      // A write to fd 2 now fails (EBADF), as one to a full non-blocking pipe would.
      const run = reachPoint({ TETHER_FAULTS: '1', TETHER_FAULT_POINT: 'tool-ready' }, fd);
      expect(run).toMatchObject({ status: null, signal: 'SIGKILL', stdout: '' });
    } finally {
      closeSync(fd);
    }
  });
});

/**
 * After a restart an unknown call stays as it is: no new `tool.started`, the marker
 * unchanged, nothing more asked of the model, over a second of watching.
 */
async function expectNeverRerun(host: FaultHost, runId: string, marks: number): Promise<void> {
  const started = host.typesOf(runId).filter((type) => type === 'tool.started').length;
  const requests = host.model.chatBodies().length;
  await new Promise((resolve) => setTimeout(resolve, 1000));
  expect(host.typesOf(runId).filter((type) => type === 'tool.started')).toHaveLength(started);
  expect(host.markerLines()).toHaveLength(marks);
  expect(host.model.chatBodies()).toHaveLength(requests);
}
