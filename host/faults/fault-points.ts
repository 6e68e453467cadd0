/**
 * Fault points: named crash windows where a host started for fault tests kills itself
 * with SIGKILL, so the test can check what a restart makes of the state left behind
 * (docs/testing.md, "Fault points"; docs/reliability.md). Off unless the host is started
 * with `TETHER_FAULTS=1` and `TETHER_FAULT_POINT=<name>`; off, a point is one comparison.
 */
import { writeSync } from 'node:fs';
import { ConfigError, type ConfigIssue } from '../config/index.js';

/** Every crash window, in the order a run meets them. */
export const FAULT_POINTS = [
  /** `run.submit` committed (command, run, `run.queued`); its answer not sent. */
  'command-committed',
  /** A model stream event arrived; `message.completed` not committed. */
  'model-stream',
  /** `tool.approval_requested` committed; the run parked, waiting for an answer. */
  'approval-requested',
  /** A tool call's intent (`ready`) committed; `running` not yet. */
  'tool-ready',
  /** `running` and `tool.started` committed; the tool not yet started (no spawn). */
  'tool-running',
  /** `run_command`'s child spawned and its process group recorded; it may be running. */
  'tool-spawned',
  /** The tool returned (a command exited, its output file written); the result not committed. */
  'tool-exited',
  /** A worktree run's files committed on its branch; `run.result` not yet recorded. */
  'worktree-committed',
  /** `run.finished` committed; `session.idle` not yet. */
  'run-finished',
  /** A push committed as pending (host/push); not yet sent. */
  'push-pending',
] as const;

export type FaultPointName = (typeof FAULT_POINTS)[number];

/** Which point kills the host, and at its how-manieth arrival. */
export interface FaultPlan {
  point: FaultPointName;
  hit: number;
}

let plan: FaultPlan | null = null;
let arrivals = 0;

function isFaultPoint(name: string): name is FaultPointName {
  return (FAULT_POINTS as readonly string[]).includes(name);
}

/**
 * Reads the fault settings once, at start: `TETHER_FAULTS=1`, `TETHER_FAULT_POINT=<name>`,
 * optionally `TETHER_FAULT_HIT=<n>` (die at the n-th arrival, default 1). Throws a
 * ConfigError naming every problem (an unknown point, a point without TETHER_FAULTS=1, a
 * hit that is not a positive integer). Returns the plan, or null when no point is armed.
 */
export function armFaultPoints(
  env: Readonly<Record<string, string | undefined>>,
): FaultPlan | null {
  const enabled = env['TETHER_FAULTS'];
  const point = env['TETHER_FAULT_POINT'];
  const hit = env['TETHER_FAULT_HIT'];
  const issues: ConfigIssue[] = [];
  const issue = (field: string, message: string) =>
    issues.push({ source: 'environment', field, message });
  if (enabled !== undefined && enabled !== '' && enabled !== '0' && enabled !== '1') {
    issue('TETHER_FAULTS', 'expected 1 (fault points on) or 0');
  }
  const on = enabled === '1';
  if (point === undefined || point === '') {
    if (hit !== undefined && hit !== '')
      issue('TETHER_FAULT_HIT', 'set without TETHER_FAULT_POINT');
  } else {
    if (!on) issue('TETHER_FAULT_POINT', 'fault points need TETHER_FAULTS=1 as well');
    if (!isFaultPoint(point)) {
      issue(
        'TETHER_FAULT_POINT',
        `unknown fault point ${point}: expected one of ${FAULT_POINTS.join(', ')}`,
      );
    }
  }
  if (hit !== undefined && hit !== '' && !/^[1-9]\d{0,8}$/.test(hit)) {
    issue('TETHER_FAULT_HIT', 'expected a positive integer');
  }
  if (issues.length > 0) throw new ConfigError(issues);
  plan = on && point !== undefined && isFaultPoint(point) ? { point, hit: Number(hit || 1) } : null;
  arrivals = 0;
  return plan;
}

/**
 * Marks a crash window. When it is the armed point and this is its n-th arrival, writes
 * `fault point <name> reached: killing` to stderr (when it can: a failed write is ignored)
 * and SIGKILLs the host: no cleanup, no flush, nothing after this line runs. Otherwise does
 * nothing.
 */
export function faultPoint(name: FaultPointName): void {
  if (plan === null || plan.point !== name) return;
  arrivals += 1;
  if (arrivals < plan.hit) return;
  try {
    // Synchronous, so the line is out before the signal lands.
    writeSync(2, `fault point ${name} reached: killing\n`);
  } catch {
    // EAGAIN on a full non-blocking pipe, EPIPE, a closed fd: the host must die all the same.
  }
  process.kill(process.pid, 'SIGKILL');
}
