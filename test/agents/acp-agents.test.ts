/**
 * ACP agents as runs of the real host process (docs/agents.md): a scripted agent written
 * with the official SDK's agent side (agents/scripted-acp-agent.js) runs as a real child
 * process inside the host's bubblewrap sandbox, and each case's task names what it does.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { groupAlive, startFaultHost, type FaultHost } from '../support/fault-host.js';
import { tempDir } from '../support/temp-dir.js';
import { until } from '../support/wait.js';

const root = new URL('../../', import.meta.url).pathname;
const scripted = join(root, 'test/agents/agents/scripted-acp-agent.js');
const TOKEN = 'agent-token-5d1e0c9f7a3b';

const LogEntry = z.looseObject({
  method: z.string(),
  params: z.record(z.string(), z.unknown()).optional(),
  answer: z.object({ outcome: z.looseObject({ outcome: z.string() }) }).optional(),
  stopReason: z.string().optional(),
  sessionId: z.string().optional(),
});
type LogEntry = z.infer<typeof LogEntry>;
const RunError = z.object({ code: z.string(), message: z.string() });

/** A host with the scripted agent as `scripted`, its log and an outside folder. */
async function agentHost(): Promise<{
  host: FaultHost;
  state: string;
  outside: string;
  log: () => LogEntry[];
}> {
  const folder = tempDir('tether-acp-');
  const state = join(folder.path, 'state');
  const outside = join(folder.path, 'outside');
  mkdirSync(state);
  mkdirSync(outside);
  const logFile = join(state, 'acp.jsonl');
  const scriptedAgent = {
    command: process.execPath,
    args: [scripted],
    env: {
      ACP_LOG: logFile,
      AGENT_OUTSIDE: join(outside, 'escaped.txt'),
      AGENT_TOKEN: TOKEN,
    },
    writable: [state],
    // The agent's program and the SDK it loads, outside the system's folders.
    readable: [root],
  };
  const host = await startFaultHost({
    config: {
      agents: {
        scripted: scriptedAgent,
        // The same agent allowed one host: it runs behind the host's proxy.
        filtered: { ...scriptedAgent, network: ['api.anthropic.com'] },
      },
    },
  });
  const log = () =>
    existsSync(logFile)
      ? readFileSync(logFile, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => LogEntry.parse(JSON.parse(line)))
      : [];
  return { host, state, outside, log };
}

async function submit(host: FaultHost, text: string, extra: object = {}): Promise<string> {
  const result = await host.channel.call('run.submit', {
    commandId: randomUUID(),
    agent: 'scripted',
    input: { text },
    ...extra,
  });
  return String(result['runId']);
}

function ended(host: FaultHost, runId: string): Promise<true> {
  return until(
    `session.idle of ${runId}`,
    () => (host.typesOf(runId).includes('session.idle') ? true : undefined),
    { timeout: 60_000 },
  );
}

function runRow(host: FaultHost, runId: string) {
  return host.query(
    (db) =>
      db.prepare('SELECT state, error_json, agent FROM runs WHERE id = ?').get(runId) as {
        state: string;
        error_json: string | null;
        agent: string | null;
      },
  );
}

function messages(host: FaultHost, runId: string): string[] {
  return host
    .events()
    .filter((event) => event.runId === runId && event.type === 'message.completed')
    .map((event) => String((event.payload as { text: string }).text));
}

function calls(host: FaultHost, runId: string) {
  return host.query(
    (db) =>
      db
        .prepare(
          'SELECT id, name, state, result_json FROM tool_calls WHERE run_id = ? ORDER BY position',
        )
        .all(runId) as { id: string; name: string; state: string; result_json: string | null }[],
  );
}

/** The agent's process group as the host recorded it while it runs. */
function agentGroups(host: FaultHost): number[] {
  return host.query(
    (db) =>
      db
        .prepare("SELECT pgid FROM mcp_server_groups WHERE server = 'agent:scripted'")
        .pluck()
        .all() as number[],
  );
}

const PendingApproval = z.object({
  id: z.string(),
  tool_call_id: z.string(),
  input_digest: z.string(),
  input_json: z.string(),
  preview_json: z.string(),
});

function pendingApproval(host: FaultHost, runId: string) {
  return until(
    'the approval',
    () => {
      const row: unknown = host.query((db) =>
        db
          .prepare(
            "SELECT id, tool_call_id, input_digest, input_json, preview_json FROM approvals WHERE run_id = ? AND state = 'pending'",
          )
          .get(runId),
      );
      return row === undefined ? undefined : PendingApproval.parse(row);
    },
    { timeout: 60_000 },
  );
}

describe('an ACP agent as a run', () => {
  let host: FaultHost;
  let log: () => LogEntry[];
  let outside: string;
  beforeAll(async () => {
    ({ host, log, outside } = await agentHost());
  });
  afterAll(async () => {
    await host.host.stop();
    await host.dispose();
  });

  it('host.info lists the agent, idle, and what the sandbox holds of it', async () => {
    const info = await host.channel.call('host.info', {});
    const sandbox = {
      contained: true,
      kind: 'bwrap',
      writable: [host.host.workspace, expect.stringContaining('state')],
      network: true,
    };
    expect(info['agents']).toEqual([
      { name: 'scripted', state: 'idle', sandbox },
      {
        name: 'filtered',
        state: 'idle',
        sandbox: { ...sandbox, networkHosts: ['api.anthropic.com'] },
      },
    ]);
  });

  it('an agent allowed only some hosts runs behind the proxy: its stdio and its run as any', async () => {
    const runId = await submit(host, 'script:text say hello', { agent: 'filtered' });
    await ended(host, runId);
    expect(runRow(host, runId)).toMatchObject({ state: 'succeeded', agent: 'filtered' });
    expect(messages(host, runId)).toEqual(['Hello from the agent.']);
    expect(agentGroups(host)).toEqual([]);
  });

  it('an unknown agent is refused, and no run is recorded', async () => {
    const before = host.query((db) => db.prepare('SELECT COUNT(*) FROM runs').pluck().get());
    const answer = await host.channel.request('run.submit', {
      commandId: randomUUID(),
      agent: 'nobody',
      input: { text: 'hello' },
    });
    expect(answer.ok).toBe(false);
    expect(answer.ok ? null : answer.error).toMatchObject({
      code: 'invalid_request',
      message: 'no agent named nobody is configured on this host',
    });
    expect(host.query((db) => db.prepare('SELECT COUNT(*) FROM runs').pluck().get())).toBe(before);
  });

  it('text: live previews, then a completed message with the plan; the run succeeds', async () => {
    const runId = await submit(host, 'script:text say hello');
    await ended(host, runId);
    expect(runRow(host, runId)).toMatchObject({ state: 'succeeded', agent: 'scripted' });
    expect(messages(host, runId)).toEqual(['Hello from the agent.']);
    const completed = host
      .events()
      .find((event) => event.runId === runId && event.type === 'message.completed');
    expect(completed?.payload).toMatchObject({
      finishReason: 'end_turn',
      plan: [{ content: 'Say hello', status: 'completed', priority: 'high' }],
      usage: { contextTokens: 1200, contextWindow: 200000 },
    });
    const got = await host.channel.call('run.get', { runId });
    expect(got['run']).toMatchObject({ agent: 'scripted', state: 'succeeded' });
    expect(log().find((entry) => entry.method === 'initialize')?.params).toMatchObject({
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
    });
    expect(agentGroups(host)).toEqual([]);
  });

  it('a permission request is an approval card bound to its input; approved, the agent writes its marker; a resent answer is deduplicated', async () => {
    const runId = await submit(host, 'script:permission write the marker');
    const approval = await pendingApproval(host, runId);
    const [pgid] = agentGroups(host);
    expect(pgid).toBeGreaterThan(1);
    expect(groupAlive(pgid!)).toBe(true);
    // The card says where the agent runs, its network above all (docs/agents.md).
    expect(JSON.parse(approval.preview_json)).toEqual({
      kind: 'agent',
      agent: 'scripted',
      sandbox: {
        contained: true,
        kind: 'bwrap',
        writable: [host.host.workspace, expect.stringContaining('state')],
        network: true,
      },
    });
    const target = join(host.host.workspace, 'marker.txt');
    expect(JSON.parse(approval.input_json)).toEqual({
      title: 'Write marker.txt',
      kind: 'edit',
      locations: [{ path: target, line: null }],
      rawInput: { path: target, content: 'marked\n' },
    });
    expect(runRow(host, runId).state).toBe('waiting_for_approval');
    const answer = {
      commandId: randomUUID(),
      approvalId: approval.id,
      toolCallId: approval.tool_call_id,
      inputDigest: approval.input_digest,
      decision: 'approve',
    };
    const first = await host.channel.call('approval.respond', answer);
    const again = await host.channel.request('approval.respond', answer);
    expect(first).toMatchObject({ status: 'approved' });
    expect(again.ok ? again.result : again.error).toMatchObject({ status: 'approved' });
    await ended(host, runId);
    expect(runRow(host, runId).state).toBe('succeeded');
    expect(readFileSync(target, 'utf8')).toBe('marked\n');
    expect(
      log()
        .filter((entry) => entry.method === 'permission-answer')
        .at(-1)?.answer,
    ).toEqual({
      outcome: { outcome: 'selected', optionId: 'once' },
    });
    expect(calls(host, runId).map((call) => [call.name, call.state])).toEqual([
      ['agent:edit', 'succeeded'],
    ]);
    expect(messages(host, runId).join('')).toContain('Marker written.');
    // The agent's whole group (its sleep child too) is gone, and no longer recorded.
    await until('the agent group gone', () => (groupAlive(pgid!) ? undefined : true));
    expect(agentGroups(host)).toEqual([]);
  });

  it('denied, the agent is told "reject" and writes nothing', async () => {
    const target = join(host.host.workspace, 'marker.txt');
    writeFileSync(target, 'before\n');
    const runId = await submit(host, 'script:permission write the marker');
    const approval = await pendingApproval(host, runId);
    const [pgid] = agentGroups(host);
    await host.channel.call('approval.respond', {
      commandId: randomUUID(),
      approvalId: approval.id,
      toolCallId: approval.tool_call_id,
      inputDigest: approval.input_digest,
      decision: 'deny',
    });
    await ended(host, runId);
    expect(readFileSync(target, 'utf8')).toBe('before\n');
    expect(
      log()
        .filter((entry) => entry.method === 'permission-answer')
        .at(-1)?.answer,
    ).toEqual({
      outcome: { outcome: 'selected', optionId: 'no' },
    });
    expect(runRow(host, runId).state).toBe('succeeded');
    expect(calls(host, runId).map((call) => call.state)).toEqual(['failed']);
    // Its processes are killed: a zombie may wait a moment for its reaper.
    await until('the agent group gone', () => (groupAlive(pgid!) ? undefined : true));
  });

  it("terminal/* are run_command calls: asked on a card, run in Tether's sandbox, killed, denied", async () => {
    const runId = await submit(host, 'script:terminal');
    const answer = async (decision: 'approve' | 'deny', command: string) => {
      const approval = await until('the next card', () => {
        const row = host.query((db) =>
          db
            .prepare(
              "SELECT id, tool_call_id, input_digest, input_json, preview_json FROM approvals WHERE run_id = ? AND state = 'pending'",
            )
            .get(runId),
        );
        return row === undefined ? undefined : PendingApproval.parse(row);
      });
      expect(JSON.parse(approval.input_json)).toEqual({ command });
      expect(JSON.parse(approval.preview_json)).toMatchObject({
        kind: 'command',
        command,
        sandbox: { contained: true, kind: 'bwrap', network: false },
      });
      await host.channel.call('approval.respond', {
        commandId: randomUUID(),
        approvalId: approval.id,
        toolCallId: approval.tool_call_id,
        inputDigest: approval.input_digest,
        decision,
      });
    };
    await answer('approve', "sh -c 'echo out; echo é >&2; exit 3'");
    await answer('approve', "sh -c 'printf éa; sleep 30'");
    await answer('deny', 'touch denied.txt');
    await ended(host, runId);
    expect(runRow(host, runId).state).toBe('succeeded');
    const logged = (method: string) =>
      log().find((entry) => entry.method === method) as Record<string, unknown> | undefined;
    expect(logged('terminal-exited')).toMatchObject({
      exited: { exitCode: 3, signal: null },
      output: { output: 'out\né\n', truncated: false, exitStatus: { exitCode: 3, signal: null } },
    });
    // 'éa' within 2 bytes: the cut falls inside 'é', so only 'a' is given.
    expect(logged('terminal-killed')).toMatchObject({
      running: { output: 'a', truncated: true },
    });
    // Killed: its group got TERM; bwrap reports what its command died of as 128 + 15.
    expect(logged('terminal-killed')).toMatchObject({ killed: { exitCode: 143, signal: null } });
    expect(logged('terminal-denied')?.['error']).toMatch(/run_command was not done: .*denied/);
    expect(existsSync(join(host.host.workspace, 'denied.txt'))).toBe(false);
    expect(calls(host, runId).map((call) => [call.name, call.state])).toEqual([
      ['run_command', 'failed'],
      ['run_command', 'cancelled'],
      ['run_command', 'failed'],
    ]);
    expect(agentGroups(host)).toEqual([]);
  });

  it("fs/write_text_file into a protected path is refused by Tether's policy", async () => {
    const runId = await submit(host, 'script:fs-protected');
    await ended(host, runId);
    expect(existsSync(join(host.host.workspace, '.env'))).toBe(false);
    const [call] = calls(host, runId);
    expect(call).toMatchObject({ name: 'write_file', state: 'failed' });
    expect(JSON.parse(call!.result_json!)).toMatchObject({ error: { code: 'permission_denied' } });
    expect(messages(host, runId).join('')).toContain('fs write refused: write_file was not done');
  });

  it('fs/write_text_file of a FIFO or a device is refused, and the host does not block on it', async () => {
    const runId = await submit(host, 'script:fs-fifo');
    // Each write the policy asks about is approved: the write itself must still refuse.
    const answered = new Set<string>();
    await until(
      `the end of ${runId}, its writes approved`,
      async () => {
        if (host.typesOf(runId).includes('session.idle')) return true;
        const approval: unknown = host.query((db) =>
          db
            .prepare(
              "SELECT id, tool_call_id, input_digest, input_json, preview_json FROM approvals WHERE run_id = ? AND state = 'pending'",
            )
            .get(runId),
        );
        if (approval === undefined) return undefined;
        const pending = PendingApproval.parse(approval);
        if (answered.has(pending.id)) return undefined;
        answered.add(pending.id);
        await host.channel.call('approval.respond', {
          commandId: randomUUID(),
          approvalId: pending.id,
          toolCallId: pending.tool_call_id,
          inputDigest: pending.input_digest,
          decision: 'approve',
        });
        return undefined;
      },
      { timeout: 60_000 },
    );
    expect(runRow(host, runId).state).toBe('succeeded');
    const said = messages(host, runId).join('');
    expect(said).toContain(
      `fs write ${join(host.host.workspace, 'pipe')} refused: write_file was not done`,
    );
    expect(said).toContain('fs write /dev/zero refused: write_file was not done');
    expect(calls(host, runId).map((call) => [call.name, call.state])).toEqual([
      ['write_file', 'failed'],
      ['write_file', 'failed'],
    ]);
    // The host still answers.
    expect(await host.channel.call('host.info', {})).toHaveProperty('agents');
  }, 90_000);

  it('the agent runs in the sandbox: it cannot write outside the workspace', async () => {
    const runId = await submit(host, 'script:outside');
    await ended(host, runId);
    const said = messages(host, runId).join('');
    expect(said).toMatch(/outside write failed: (EROFS|EACCES|ENOENT|EPERM)/);
    expect(said).toContain('inside write: done');
    expect(existsSync(join(outside, 'escaped.txt'))).toBe(false);
    expect(readFileSync(join(host.host.workspace, 'inside.txt'), 'utf8')).toBe('inside\n');
  });

  it('cancel sends session/cancel, takes the stop reason, and the group is gone', async () => {
    const runId = await submit(host, 'script:cancel');
    await until('the agent working', () =>
      log().some(
        (entry) =>
          entry.method === 'session/prompt' &&
          String(entry.params?.['text']).includes('script:cancel'),
      )
        ? true
        : undefined,
    );
    const [pgid] = agentGroups(host);
    await host.channel.call('run.cancel', { commandId: randomUUID(), runId });
    await ended(host, runId);
    expect(runRow(host, runId).state).toBe('cancelled');
    expect(log().some((entry) => entry.method === 'session/cancel')).toBe(true);
    expect(
      log()
        .filter((entry) => entry.method === 'stop')
        .at(-1)?.stopReason,
    ).toBe('cancelled');
    await until('the agent group gone', () => (groupAlive(pgid!) ? undefined : true));
    expect(agentGroups(host)).toEqual([]);
  });

  it('a crash mid-turn fails the run with its last stderr lines (masked); its call in flight is unknown', async () => {
    const runId = await submit(host, 'script:crash');
    await ended(host, runId);
    const row = runRow(host, runId);
    expect(row.state).toBe('failed');
    const error = RunError.parse(JSON.parse(row.error_json!));
    expect(error.code).toBe('agent_failed');
    expect(error.message).toContain('the agent scripted exited mid-turn (code 7)');
    expect(error.message).toContain('agent: boom');
    expect(error.message).not.toContain(TOKEN);
    // Masked before the 500-character cut: no part of the token across it is shown.
    expect(error.message).toContain('x'.repeat(490));
    expect(error.message).not.toContain(TOKEN.slice(0, 6));
    expect(calls(host, runId).map((call) => [call.name, call.state])).toEqual([
      ['agent:execute', 'unknown'],
    ]);
    const info = await host.channel.call('host.info', {});
    expect(info['agents']).toMatchObject([
      { name: 'scripted', state: 'failed' },
      { name: 'filtered', state: 'idle' },
    ]);
    expect(JSON.stringify(info['agents'])).not.toContain(TOKEN);
    expect(agentGroups(host)).toEqual([]);
  });

  it('an agent without a login fails the run saying so and naming the logins it offers, not as a crash', async () => {
    const runId = await submit(host, 'script:login');
    await ended(host, runId);
    const row = runRow(host, runId);
    expect(row.state).toBe('failed');
    const error = RunError.parse(JSON.parse(row.error_json!));
    expect(error).toEqual({
      code: 'agent_failed',
      message:
        'the agent scripted is not logged in (Authentication required); it offers: Log in with Scripted (Run `scripted login`). Log in to it on this machine as its own docs say, keep its login in a folder named in agents.scripted.writable (docs/agents.md), then submit again',
    });
    expect(agentGroups(host)).toEqual([]);
  });

  it('a message is kept up to 1,000,000 characters, and the event says how many more were cut', async () => {
    const runId = await submit(host, 'script:flood-text');
    await ended(host, runId);
    expect(runRow(host, runId).state).toBe('succeeded');
    const completed = host
      .events()
      .filter((event) => event.runId === runId && event.type === 'message.completed');
    expect(completed).toHaveLength(1);
    const payload = completed[0]!.payload as { text: string; cutChars?: number };
    expect(payload.cutChars).toBe(100_000);
    expect(payload.text.slice(0, 1_000_000)).toBe(
      Array.from({ length: 10 }, (_, i) => String(i).repeat(100_000)).join(''),
    );
    expect(payload.text.slice(1_000_000)).toBe(
      '\n\n[the host cut 100000 more characters of this message: it keeps at most 1000000 characters of one]',
    );
  });

  it.each([
    ['many-calls', 'it made more than 1000 tool calls in one run'],
    [
      'big-raw',
      'it sent the tool call "A big call" is 300077 characters as a card, more than the 262144 the host keeps of one',
    ],
    ['big-plan', 'it sent a plan of 201 entries, more than the 200 the host keeps'],
  ])(
    '%s: past a bound the run fails saying which, and keeps no more',
    async (script, why) => {
      const runId = await submit(host, `script:${script}`);
      await ended(host, runId);
      const row = runRow(host, runId);
      expect(row.state).toBe('failed');
      expect(RunError.parse(JSON.parse(row.error_json!))).toEqual({
        code: 'agent_failed',
        message: `the host stopped the agent scripted: ${why}`,
      });
      const kept = calls(host, runId);
      expect(kept.length).toBeLessThanOrEqual(1_000);
      if (script !== 'big-plan') expect(kept).toEqual([]);
      if (script === 'big-plan') {
        for (const event of host.events()) {
          if (event.runId === runId && event.type === 'message.completed') {
            expect(event.payload).not.toHaveProperty('plan');
          }
        }
      }
      expect(messages(host, runId).join('')).not.toContain('after the big');
      expect(agentGroups(host)).toEqual([]);
    },
    300_000,
  );

  it('at most eight permission requests wait at once: the ninth is rejected without a card', async () => {
    const runId = await submit(host, 'script:many-permissions');
    const answered = () =>
      log().filter(
        (entry) => entry.method === 'permission-answer' && entry.params?.['i'] !== undefined,
      );
    const first = await until('the ninth answered', () => answered().at(0), { timeout: 60_000 });
    expect(first.answer).toEqual({ outcome: { outcome: 'selected', optionId: 'no' } });
    const pending = host.query(
      (db) =>
        db
          .prepare("SELECT COUNT(*) FROM approvals WHERE run_id = ? AND state = 'pending'")
          .pluck()
          .get(runId) as number,
    );
    expect(pending).toBe(8);
    expect(calls(host, runId)).toHaveLength(8);
    await host.channel.call('run.cancel', { commandId: randomUUID(), runId });
    await ended(host, runId);
    expect(runRow(host, runId).state).toBe('cancelled');
    expect(answered()).toHaveLength(9);
  });

  it("a title with bidi and control characters is kept exactly (the card escapes it); a kind not ACP's is other", async () => {
    const runId = await submit(host, 'script:bidi-title');
    const approval = await pendingApproval(host, runId);
    expect(JSON.parse(approval.input_json)).toEqual({
      title: 'Read notes\u202Etxt.exe\u0007\u200B',
      // The SDK reads a kind that is none of ACP's as "other".
      kind: 'other',
      locations: [],
      rawInput: { path: 'notes\u202Etxt' },
    });
    expect(calls(host, runId).map((call) => call.name)).toEqual(['agent:other']);
    await host.channel.call('approval.respond', {
      commandId: randomUUID(),
      approvalId: approval.id,
      toolCallId: approval.tool_call_id,
      inputDigest: approval.input_digest,
      decision: 'deny',
    });
    await ended(host, runId);
    expect(runRow(host, runId).state).toBe('succeeded');
  });

  it("a follow-up in the session loads the agent's session; the replayed history is not recorded", async () => {
    const first = await submit(host, 'script:text first');
    await ended(host, first);
    const sessionId = host.query(
      (db) => db.prepare('SELECT session_id FROM runs WHERE id = ?').pluck().get(first) as string,
    );
    const second = await submit(host, 'script:text second', { sessionId });
    await ended(host, second);
    const made = log()
      .filter((entry) => entry.method === 'session/new')
      .at(-1);
    expect(
      log()
        .filter((entry) => entry.method === 'session/load')
        .at(-1)?.params,
    ).toMatchObject({
      sessionId: made?.sessionId,
    });
    expect(messages(host, second)).toEqual(['Hello from the agent.']);
    // The session is the agent's: Tether's own loop is refused there.
    const mixed = await host.channel.request('run.submit', {
      commandId: randomUUID(),
      sessionId,
      input: { text: 'hello' },
    });
    expect(mixed.ok ? null : mixed.error).toMatchObject({
      code: 'invalid_request',
      message: "the session's runs are the agent scripted's: a follow-up goes to it",
    });
    // And a session of Tether's own loop refuses the agent.
    const own = await host.channel.call('run.submit', {
      commandId: randomUUID(),
      input: { text: 'hello' },
    });
    const intoOwn = await host.channel.request('run.submit', {
      commandId: randomUUID(),
      agent: 'scripted',
      sessionId: own['sessionId'],
      input: { text: 'script:text hello' },
    });
    expect(intoOwn.ok ? null : intoOwn.error).toMatchObject({
      code: 'invalid_request',
      message: "the session's runs are Tether's own: start a new task for an agent",
    });
  });
});

describe('an ACP agent and a host killed while its permission request waits', () => {
  let host: FaultHost;
  let log: () => LogEntry[];
  beforeAll(async () => {
    ({ host, log } = await agentHost());
  });
  afterAll(async () => {
    await host.host.stop();
    await host.dispose();
  });

  it('after the restart the approval is still answerable; the run goes on in the loaded session', async () => {
    const runId = await submit(host, 'script:permission write the marker');
    const approval = await pendingApproval(host, runId);
    const [pgid] = agentGroups(host);
    await host.host.kill();
    await host.restartClean();
    // The dead host's agent group is killed at the start.
    await until('the old agent group gone', () => (groupAlive(pgid!) ? undefined : true));
    expect(runRow(host, runId).state).toBe('waiting_for_approval');
    await host.channel.call('approval.respond', {
      commandId: randomUUID(),
      approvalId: approval.id,
      toolCallId: approval.tool_call_id,
      inputDigest: approval.input_digest,
      decision: 'approve',
    });
    // The agent that asked died with the host: the new one loads its session, is told
    // the answer, and asks again for what it still needs.
    const again = await pendingApproval(host, runId);
    expect(again.id).not.toBe(approval.id);
    const loaded = log().filter((entry) => entry.method === 'session/load');
    expect(loaded.length).toBe(1);
    const resumed = log()
      .filter((entry) => entry.method === 'session/prompt')
      .at(-1);
    expect(String(resumed?.params?.['text'])).toContain('was approved by the user');
    expect(calls(host, runId)[0]?.state).toBe('cancelled');
    await host.channel.call('approval.respond', {
      commandId: randomUUID(),
      approvalId: again.id,
      toolCallId: again.tool_call_id,
      inputDigest: again.input_digest,
      decision: 'approve',
    });
    await until(
      'the run to end',
      () => (['succeeded', 'failed'].includes(runRow(host, runId).state) ? true : undefined),
      { timeout: 60_000 },
    );
    expect(runRow(host, runId).state).toBe('succeeded');
    expect(readFileSync(join(host.host.workspace, 'marker.txt'), 'utf8')).toBe('marked\n');
    expect(agentGroups(host)).toEqual([]);
  });
});

describe.runIf(process.platform === 'linux')('an ACP agent in its own worktree', () => {
  let host: FaultHost;
  let log: () => LogEntry[];
  beforeAll(async () => {
    ({ host, log } = await agentHost());
  });
  afterAll(async () => {
    await host.host.stop();
    await host.dispose();
  });

  it("uses git in its worktree, the repository's git folder read-only, as run_command does", async () => {
    const repository = host.host.workspace;
    const git = (...args: string[]) =>
      execFileSync('git', ['-C', repository, ...args], { encoding: 'utf8' }).trim();
    git('init', '--quiet', '--initial-branch=main');
    git('config', 'user.email', 'user@example.com');
    git('config', 'user.name', 'User');
    writeFileSync(join(repository, 'notes.txt'), 'one\n');
    git('add', 'notes.txt');
    git('commit', '--quiet', '-m', 'first');
    const runId = await submit(host, 'script:git', { isolation: 'worktree' });
    await ended(host, runId);
    const said = messages(host, runId).join('');
    expect(said).toMatch(/git branch: tether\/\S+\. /);
    expect(said).toContain('git folder write failed');
    expect(existsSync(join(repository, '.git', 'planted'))).toBe(false);
    expect(runRow(host, runId).state).toBe('succeeded');
  });

  it("a terminal the agent did not wait for is stopped with its turn, before the worktree's commit, and recorded so", async () => {
    const runId = await submit(host, 'script:terminal-orphan', { isolation: 'worktree' });
    await ended(host, runId);
    const worktree = host.query(
      (db) => db.prepare('SELECT path FROM worktrees').pluck().get() as string,
    );
    const [call] = calls(host, runId);
    expect(call).toMatchObject({ name: 'run_command', state: 'cancelled' });
    const group = host.query(
      (db) =>
        db.prepare('SELECT process_group FROM tool_calls WHERE id = ?').pluck().get(call!.id) as
          number | null,
    );
    // Its processes are killed: a zombie may wait a moment for its reaper.
    if (group !== null) {
      await until('its group gone', () => (groupAlive(group) ? undefined : true));
    }
    // Past the second its command waited: it never wrote.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(existsSync(join(worktree, 'late.txt'))).toBe(false);
    expect(runRow(host, runId).state).toBe('succeeded');
  });

  it('at most eight terminals live at once, counted as they come; an env name that is not a variable is refused', async () => {
    const runId = await submit(host, 'script:terminal-flood', { isolation: 'worktree' });
    await ended(host, runId);
    const entry = log().find((candidate) => candidate.method === 'terminal-flood') as
      { answers: string[]; option: string } | undefined;
    expect(entry?.answers.filter((answer) => answer === 'created')).toHaveLength(8);
    expect(entry?.answers.filter((answer) => answer !== 'created')).toEqual(
      Array.from({ length: 12 }, () => 'the run already has 8 terminals: release one first'),
    );
    expect(entry?.option).toBe('"--split-string" is not a variable name');
    expect(calls(host, runId).map((call) => call.state)).toEqual(
      Array.from({ length: 8 }, () => 'cancelled'),
    );
  });
});
