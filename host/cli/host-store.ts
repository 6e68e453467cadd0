/**
 * The store as `tether start` opens it: commit failures and history rewinds said in the
 * log (a rewind found at an earlier start said again until acknowledged), and the disk-full
 * fault point armed only for fault tests.
 */
import { tetherCommand } from '../../common/cli/index.js';
import type { LogFields, Logger, Redactor } from '../log/index.js';
import { describeRewind, Store, type HistoryRewind } from '../store/index.js';

/** A rewind's facts for the log, with the command that acknowledges it. */
function rewindFields(rewind: HistoryRewind): LogFields {
  return { ...rewind, acknowledge: `${tetherCommand()} history --acknowledge` };
}

/**
 * Says again, at each start, a rewind found at an earlier one and not yet acknowledged, and
 * a history mark that could not be read.
 */
function logEarlierRewind(store: Store, log: Logger): void {
  const { history } = store;
  if (history.markProblem !== null) {
    log.warn('history mark unreadable: written afresh', { problem: history.markProblem });
  }
  const earlier = history.unacknowledged.at(-1);
  if (earlier === undefined || history.foundAtOpen !== null) return;
  const when = new Date(earlier.detectedAt).toISOString();
  log.warn(
    `${describeRewind(earlier)} (found ${when}, not yet acknowledged)`,
    rewindFields(earlier),
  );
}

export async function openHostStore(
  dataDir: string,
  log: Logger,
  secrets: Redactor,
): Promise<Store> {
  const pageLimitFile = process.env['TETHER_FAULT_DB_MAX_PAGES'];
  const store = await Store.open({
    dataDir,
    reportError: (error) => log.error('a commit listener failed', { error: String(error) }),
    secrets,
    // Said when found; host.info.history says it until acknowledged.
    onHistoryRewound: (rewind) => log.warn(describeRewind(rewind), rewindFields(rewind)),
    ...(process.env['TETHER_FAULTS'] === '1' && pageLimitFile ? { pageLimitFile } : {}),
  });
  logEarlierRewind(store, log);
  return store;
}
