/**
 * Keeping the machine awake while the host works: a sleep assertion while any run is
 * active or waits for approval (within `power.keepAwake`), released once none has been
 * for {@link RELEASE_AFTER_MS}.
 */
import type { KeepAwake } from '../config/index.js';
import type { Logger } from '../log/index.js';
import type { Runtime } from '../runtime/index.js';
import type { RunState } from '../../protocol/index.js';
import { holdSleepAssertion, sleepTool, type SleepAssertion } from './sleep-assertion.js';

const ACTIVE: RunState[] = ['queued', 'running', 'waiting_for_approval', 'cancelling'];
const HOUR_MS = 3_600_000;
/**
 * How long the host stays idle before the assertion goes: runs back to back, or a reply
 * sent soon after an answer, keep the one process instead of forking one per run.
 */
const RELEASE_AFTER_MS = 5_000;

export interface KeepAwakeOptions {
  runtime: Pick<Runtime, 'onCommit' | 'listRuns' | 'runStateChanges'>;
  policy: KeepAwake;
  platform: NodeJS.Platform;
  log: Logger;
  now?: () => number;
  /** Idle this long before the assertion is released (default {@link RELEASE_AFTER_MS}). */
  releaseAfterMs?: number;
}

/** What runs keep the machine awake; stop() releases everything. */
export interface KeepAwakeHandle {
  /** Looks at the runs again (after a wake, say). */
  check(): void;
  stop(): void;
}

/**
 * Watches commits and holds an assertion while it is needed. With `never`, or with no
 * tool to hold one (said once in the log), it does nothing. A run's wait for approval is
 * counted from when this host first saw it waiting (after a restart: from the start).
 */
export function keepAwake(options: KeepAwakeOptions): KeepAwakeHandle {
  const { runtime, policy, log } = options;
  const now = options.now ?? Date.now;
  const releaseAfterMs = options.releaseAfterMs ?? RELEASE_AFTER_MS;
  if (policy === 'never') return { check: () => undefined, stop: () => undefined };
  const tool = sleepTool(options.platform, process.env);
  if (tool === null) {
    log.info('nothing here can keep the machine awake (no caffeinate, no systemd-inhibit)');
    return { check: () => undefined, stop: () => undefined };
  }
  const waitingSince = new Map<string, number>();
  let held: SleepAssertion | null = null;
  let timer: NodeJS.Timeout | null = null;
  let release: NodeJS.Timeout | null = null;
  let scheduled = false;
  let stopped = false;
  let checkedChanges = -1;

  const check = (): void => {
    scheduled = false;
    if (stopped) return;
    checkedChanges = runtime.runStateChanges;
    const runs = runtime.listRuns({ states: ACTIVE, limit: 100 }).runs;
    const at = now();
    const seen = new Set<string>();
    let wanted = false;
    let nextExpiry = Infinity;
    for (const run of runs) {
      if (run.state !== 'waiting_for_approval') {
        wanted = true;
        continue;
      }
      seen.add(run.id);
      const since = waitingSince.get(run.id) ?? at;
      waitingSince.set(run.id, since);
      if (policy === 'runs') {
        wanted = true;
        continue;
      }
      const expiry = since + policy * HOUR_MS;
      if (expiry > at) {
        wanted = true;
        nextExpiry = Math.min(nextExpiry, expiry);
      }
    }
    for (const id of waitingSince.keys()) if (!seen.has(id)) waitingSince.delete(id);
    if (timer !== null) clearTimeout(timer);
    timer = null;
    if (nextExpiry !== Infinity) {
      timer = setTimeout(check, Math.min(nextExpiry - at + 1, 2 ** 31 - 1));
      timer.unref();
    }
    if (wanted) {
      if (release !== null) clearTimeout(release);
      release = null;
      if (held !== null) return;
      held = holdSleepAssertion(tool, log);
      log.info('keeping the machine awake while runs work', {
        command: tool.command,
        pid: held.pid,
      });
      return;
    }
    if (held === null || release !== null) return;
    release = setTimeout(() => {
      release = null;
      held?.release();
      held = null;
      log.info('no run needs the machine awake: sleep allowed again');
    }, releaseAfterMs);
    release.unref();
  };
  // Most commits (a model request, a tool's output) change no run's state: they cost a
  // number compared, not a query.
  const unsubscribe = runtime.onCommit(() => {
    if (scheduled || runtime.runStateChanges === checkedChanges) return;
    scheduled = true;
    setImmediate(check);
  });
  check();
  return {
    check,
    stop() {
      stopped = true;
      unsubscribe();
      if (timer !== null) clearTimeout(timer);
      if (release !== null) clearTimeout(release);
      held?.release();
      held = null;
    },
  };
}
