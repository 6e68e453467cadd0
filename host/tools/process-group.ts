/**
 * Process groups of commands: stopping one (SIGTERM, a grace period, SIGKILL) and knowing
 * when it is gone. A command leads its own group, so its children and grandchildren are
 * reached by one signal to `-pgid`, also after the leader itself has exited.
 */
import { execFile } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { promisify } from 'node:util';
import { errnoCode } from './errno.js';

/** How a group was left by {@link killProcessGroup}. */
export interface GroupStop {
  /** True when no process of the group can run any more (zombies awaiting a reaper count as gone). */
  gone: boolean;
}

// After SIGKILL, how long to wait for the kernel to finish the group before giving up
// (a process in uninterruptible sleep dies only when its I/O returns).
const KILL_CONFIRM_MS = 5000;

/**
 * Stops the process group `pgid`: SIGTERM (and SIGCONT, so stopped members can act on it)
 * to every member, up to `graceMs` for them to exit, then SIGKILL, then waits a bounded
 * time until none is left. `signal` cuts the grace period short: SIGKILL follows at once.
 * Refuses (throws a RangeError) a pgid ≤ 1 and the host's own group: the runtime uses it
 * to kill groups left behind by a crashed host, whose ids come from the store.
 * `sandboxed`: as {@link stopProcessGroup}'s.
 */
export async function killProcessGroup(
  pgid: number,
  graceMs: number,
  signal?: AbortSignal,
  sandboxed = false,
): Promise<GroupStop> {
  if (!Number.isSafeInteger(pgid) || pgid <= 1) {
    throw new RangeError(`refusing to kill process group ${pgid}`);
  }
  if (pgid === (await ownProcessGroup())) {
    throw new RangeError(`refusing to kill the host's own process group ${pgid}`);
  }
  return stopProcessGroup(pgid, graceMs, signal, sandboxed);
}

/**
 * {@link killProcessGroup} without its checks, for groups this host has just made. With
 * `sandboxed` (a bubblewrap sandbox leads the group, Linux), SIGTERM goes to the command's
 * processes but not to bubblewrap's own two (the leader and the PID namespace's init):
 * when init ends, the kernel kills everything in its namespace at once, and the grace
 * period would be lost. SIGKILL goes to the whole group.
 */
export async function stopProcessGroup(
  pgid: number,
  graceMs: number,
  signal?: AbortSignal,
  sandboxed = false,
): Promise<GroupStop> {
  if (sandboxed && process.platform === 'linux') {
    const spared = sandboxMonitors(pgid);
    const members = groupMembers(pgid).filter((pid) => !spared.has(pid));
    if (members.length === 0) return stopWholeGroup(pgid, 0, signal);
    for (const pid of members) signalProcess(pid, 'SIGTERM');
    for (const pid of members) signalProcess(pid, 'SIGCONT');
    if (await waitUntilGone(pgid, graceMs, signal)) return { gone: true };
    const kill = signalGroup(pgid, 'SIGKILL');
    if (kill !== 'sent') return { gone: kill === 'gone' };
    return { gone: await waitUntilGone(pgid, KILL_CONFIRM_MS) };
  }
  return stopWholeGroup(pgid, graceMs, signal);
}

async function stopWholeGroup(
  pgid: number,
  graceMs: number,
  signal?: AbortSignal,
): Promise<GroupStop> {
  const term = signalGroup(pgid, 'SIGTERM');
  if (term !== 'sent') return { gone: term === 'gone' };
  signalGroup(pgid, 'SIGCONT');
  if (await waitUntilGone(pgid, graceMs, signal)) return { gone: true };
  const kill = signalGroup(pgid, 'SIGKILL');
  if (kill !== 'sent') return { gone: kill === 'gone' };
  return { gone: await waitUntilGone(pgid, KILL_CONFIRM_MS) };
}

/**
 * True when no process of the group can run: the group is empty, or (on Linux) only
 * zombies are left. Orphaned members are reparented to init, and an init that reaps
 * lazily (a container's, or this VM's: about 2 s) would otherwise hold the group open.
 */
export function isGroupGone(pgid: number): boolean {
  const probe = signalGroup(pgid, 0);
  if (probe !== 'sent') return probe === 'gone';
  return process.platform === 'linux' && onlyZombiesIn(pgid);
}

type Delivery = 'sent' | 'gone' | 'denied';

function signalGroup(pgid: number, signal: NodeJS.Signals | 0): Delivery {
  try {
    process.kill(-pgid, signal);
    return 'sent';
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'ESRCH') return 'gone';
    // EPERM: the group exists but belongs to another user; nothing we send reaches it.
    if (code === 'EPERM') return 'denied';
    throw error;
  }
}

/**
 * Waits up to `ms` until the group is gone; true when it is. A sandbox's PID namespace
 * ends a moment after its command: its processes are being killed, not left running.
 */
export async function waitUntilGone(
  pgid: number,
  ms: number,
  signal?: AbortSignal,
): Promise<boolean> {
  const deadline = performance.now() + ms;
  // Polls often at first, when most groups end, then less: on Linux each poll of a live
  // group reads /proc.
  for (let poll = 0; ; poll++) {
    if (isGroupGone(pgid)) return true;
    const left = deadline - performance.now();
    if (left <= 0 || signal?.aborted) return false;
    await pause(Math.min(poll < 10 ? 10 : 50, left), signal);
  }
}

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** The group's leader (bubblewrap) and its children that are bubblewrap too (the init). */
function sandboxMonitors(pgid: number): Set<number> {
  const spared = new Set([pgid]);
  for (const pid of groupMembers(pgid)) {
    const stat = readProcStat(String(pid));
    if (stat?.ppid === pgid && stat.comm === 'bwrap') spared.add(pid);
  }
  return spared;
}

/** Live members of the group (Linux, from /proc). */
function groupMembers(pgid: number): number[] {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    if (!/^\d+$/.test(name)) return [];
    const stat = readProcStat(name);
    return stat !== null && stat.pgrp === pgid && stat.state !== 'Z' ? [Number(name)] : [];
  });
}

function signalProcess(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch (error) {
    if (errnoCode(error) !== 'ESRCH') throw error;
  }
}

// Synchronous on purpose: /proc lives in memory, and reading a hundred small files this
// way takes about 2 ms where the thread pool takes ten times longer.
function onlyZombiesIn(pgid: number): boolean {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return false;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readProcStat(name);
    // A missing entry has exited since the listing: skip it.
    if (stat === null) continue;
    if (stat.pgrp === pgid && stat.state !== 'Z' && stat.state !== 'X') return false;
  }
  return true;
}

function readProcStat(
  pid: string,
): { comm: string; state: string; ppid: number; pgrp: number } | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // `pid (comm) state ppid pgrp …`, where comm may hold spaces and parentheses.
  const close = text.lastIndexOf(')');
  const comm = text.slice(text.indexOf('(') + 1, close);
  const fields = text.slice(close + 2).split(' ');
  return { comm, state: fields[0] ?? '', ppid: Number(fields[1]), pgrp: Number(fields[2]) };
}

let ownGroup: Promise<number> | undefined;

/** The host's own process group id (Node has no getpgrp), looked up once. */
function ownProcessGroup(): Promise<number> {
  ownGroup ??= readOwnProcessGroup().catch((error: unknown) => {
    ownGroup = undefined;
    throw error;
  });
  return ownGroup;
}

async function readOwnProcessGroup(): Promise<number> {
  let pgid: number;
  if (process.platform === 'linux') {
    pgid = readProcStat('self')?.pgrp ?? Number.NaN;
  } else {
    const ps = await promisify(execFile)('/bin/ps', ['-o', 'pgid=', '-p', `${process.pid}`]);
    pgid = Number(ps.stdout.trim());
  }
  if (!Number.isSafeInteger(pgid) || pgid <= 0) {
    throw new Error(`cannot tell the host's own process group (read ${pgid})`);
  }
  return pgid;
}
