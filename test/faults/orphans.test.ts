/**
 * Orphan cleanup (docs/reliability.md): a host SIGKILLed while `run_command` runs. A
 * sandboxed command ends with the host (bubblewrap's --die-with-parent); a process group
 * the store still names (a command that ran without a sandbox, approved, on a machine
 * without one) is killed at the next start, background children included, unless the
 * group was started before the machine last booted (its number may belong to someone
 * else by now). The call is unknown either way.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { groupAlive, startFaultHost, type FaultHost } from '../support/fault-host.js';
import { until } from '../support/wait.js';
import { textTurn, toolCallTurn } from '../support/scripted-model-server.js';

// A background sleep (same process group) whose pid is written down, then a foreground one.
const ORPHAN_SCRIPT = 'sleep 300 &\necho $! > background.pid\necho started\nsleep 300\n';

let fault: FaultHost | undefined;
const groups: number[] = [];

afterEach(async () => {
  for (const pgid of groups.splice(0)) {
    if (groupAlive(pgid)) process.kill(-pgid, 'SIGKILL');
  }
  await fault?.dispose();
  fault = undefined;
});

/**
 * Starts a run of `sh orphan.sh`, SIGKILLs the host once it runs, and returns the group:
 * the sandbox's, which ends with the host.
 */
async function killedHostCommand(script = ORPHAN_SCRIPT): Promise<{
  host: FaultHost;
  runId: string;
  pgid: number;
}> {
  const host = await startFaultHost({ scripts: { 'orphan.sh': script } });
  fault = host;
  host.model.push(
    toolCallTurn([
      { id: 'call_orphan', name: 'run_command', arguments: '{"command":"sh orphan.sh"}' },
    ]),
    textTurn('Slept.'),
  );
  const submitted = await host.channel.call('run.submit', {
    commandId: randomUUID(),
    input: { text: 'Sleep a while' },
  });
  const runId = String(submitted['runId']);
  const pidFile = join(host.host.workspace, 'background.pid');
  const pgid = await until('the command and its background child', () => {
    if (!existsSync(pidFile) || readFileSync(pidFile, 'utf8').trim() === '') return undefined;
    return host.query(
      (db) =>
        (
          db.prepare('SELECT process_group FROM tool_calls WHERE run_id = ?').get(runId) as
            { process_group: number | null } | undefined
        )?.process_group ?? undefined,
    );
  });
  groups.push(pgid);
  await host.host.kill();
  return { host, runId, pgid };
}

/**
 * As {@link killedHostCommand}, then a process group outside any sandbox (a foreground and
 * a background sleep, deaf to SIGTERM with `stubborn`) takes the call's place in the
 * store: what a command approved on a machine without a sandbox leaves behind.
 */
async function orphanedCommand(stubborn = false): Promise<{
  host: FaultHost;
  runId: string;
  pgid: number;
  background: number;
}> {
  const { host, runId } = await killedHostCommand();
  const script = `${stubborn ? "trap '' TERM\n" : ''}sleep 300 &\necho $! >&3\nsleep 300\n`;
  const child = spawn('/bin/sh', ['-c', script], {
    detached: true,
    stdio: ['ignore', 'ignore', 'ignore', 'pipe'],
  });
  const pgid = child.pid!;
  groups.push(pgid);
  const background = Number(
    await new Promise<string>((resolve) =>
      child.stdio[3]!.once('data', (data) => resolve(String(data))),
    ),
  );
  child.unref();
  const db = new Database(join(host.host.dataDir, 'tether.db'));
  db.prepare('UPDATE tool_calls SET process_group = ? WHERE run_id = ?').run(pgid, runId);
  db.close();
  expect(groupAlive(pgid)).toBe(true);
  expect(() => process.kill(background, 0)).not.toThrow();
  return { host, runId, pgid, background };
}

/** The process groups the store still has to kill. */
function orphanRows(host: FaultHost): number[] {
  return host.query((db) =>
    (db.prepare('SELECT pgid FROM orphan_groups').all() as { pgid: number }[]).map(
      (row) => row.pgid,
    ),
  );
}

function toolCallState(host: FaultHost, runId: string): string | undefined {
  return (
    host.query((db) => db.prepare('SELECT state FROM tool_calls WHERE run_id = ?').get(runId)) as
      { state: string } | undefined
  )?.state;
}

describe('process groups left by a killed host', () => {
  it('a sandboxed command ends with the host; the next start says the call is unknown', async () => {
    const { host, runId, pgid } = await killedHostCommand();
    await until('the sandbox to end with its host', () => (groupAlive(pgid) ? undefined : true));
    await host.restartClean();
    await until('recovery', () =>
      host.typesOf(runId).includes('session.idle') ? true : undefined,
    );
    expect(toolCallState(host, runId)).toBe('unknown');
  });

  it('are killed at the next start, background children included; the call is unknown', async () => {
    const { host, runId, pgid, background } = await orphanedCommand();
    await host.restartClean();
    // The group is signalled at start; its members are gone once init has reaped them.
    await until('the orphaned group to be gone', () => (groupAlive(pgid) ? undefined : true));
    expect(() => process.kill(background, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
    expect(toolCallState(host, runId)).toBe('unknown');
    expect(host.typesOf(runId).slice(-2)).toEqual(['run.finished', 'session.idle']);
  });

  it('are still killed when the host dies again before it finished killing them', async () => {
    const { host, runId, pgid, background } = await orphanedCommand(true);
    await host.restartClean();
    // Recovery made the call unknown and sent SIGTERM, which the group ignores: the host
    // is killed again within the 2 s grace, before its SIGKILL.
    expect(toolCallState(host, runId)).toBe('unknown');
    expect(orphanRows(host)).toEqual([pgid]);
    await host.host.kill();
    expect(groupAlive(pgid)).toBe(true);
    expect(orphanRows(host)).toEqual([pgid]);

    await host.restartClean();
    await until('the orphaned group to be gone', () => (groupAlive(pgid) ? undefined : true));
    expect(() => process.kill(background, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
    await until('the group to be forgotten', () =>
      orphanRows(host).length === 0 ? true : undefined,
    );
    expect(toolCallState(host, runId)).toBe('unknown');
  });

  it('are left alone when the store says they started before this boot', async () => {
    const { host, runId, pgid } = await orphanedCommand();
    // As if the group were from before a reboot: its number may now be someone else's.
    const db = new Database(join(host.host.dataDir, 'tether.db'));
    db.prepare('UPDATE tool_calls SET started_at = 1000 WHERE run_id = ?').run(runId);
    db.close();
    await host.restartClean();
    await until('recovery', () =>
      host.typesOf(runId).includes('session.idle') ? true : undefined,
    );
    // A fixed wait on purpose: nothing must kill the group, so watch it for a while.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(groupAlive(pgid)).toBe(true);
    expect(toolCallState(host, runId)).toBe('unknown');
    expect(orphanRows(host)).toEqual([]);
  });
});
