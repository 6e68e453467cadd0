/**
 * Log lines for refused connections, at most one per reason and address per interval:
 * a flood of refusals costs a few lines, and says how many it did not write.
 */
import type { LogFields, Logger } from '../log/index.js';

const REFUSAL_LOG_INTERVAL_MS = 60_000;
/** Lines × reasons × addresses tracked at most; past that, refusals share one line per interval. */
const MAX_KEYS = 1024;

interface Quiet {
  suppressed: number;
  timer: NodeJS.Timeout;
  /** Writes the `suppressed` line if there is anything to say. */
  flush(): void;
}

export class RefusalLog {
  private readonly quiet = new Map<string, Quiet>();

  constructor(
    private readonly log: Logger,
    private readonly intervalMs = REFUSAL_LOG_INTERVAL_MS,
  ) {}

  /**
   * Logs `msg` (at info) for the first refusal with `msg` and `reason` from `address` in
   * an interval; later ones are counted, and when the interval ends one line says
   * `suppressed: N` if there were any.
   */
  refused(reason: string, address: string, msg: string, fields: LogFields = {}): void {
    const own = `${msg}\u0000${reason}\u0000${address}`;
    const crowded = !this.quiet.has(own) && this.quiet.size >= MAX_KEYS;
    const key = crowded ? '*' : own;
    const quiet = this.quiet.get(key);
    if (quiet !== undefined) {
      quiet.suppressed++;
      return;
    }
    const where = crowded ? { address: 'many addresses' } : { address };
    this.log.info(msg, { reason, ...where, ...fields });
    const since = Date.now();
    const entry: Quiet = {
      suppressed: 0,
      timer: setTimeout(() => {
        this.quiet.delete(key);
        entry.flush();
      }, this.intervalMs),
      flush: () => {
        if (entry.suppressed === 0) return;
        this.log.info(`${msg}: more of the same suppressed`, {
          reason,
          ...where,
          suppressed: entry.suppressed,
          inLastMs: Date.now() - since,
        });
      },
    };
    entry.timer.unref();
    this.quiet.set(key, entry);
  }

  /** Writes the pending counts now and stops the timers (host stopping). */
  close(): void {
    for (const entry of this.quiet.values()) {
      clearTimeout(entry.timer);
      entry.flush();
    }
    this.quiet.clear();
  }
}
