/**
 * What a host command gets from the CLI: where to print, when to stop, and how to find
 * the data directory.
 */

/** The CLI's side of a host command (`tether pair`, `tether devices`, `tether revoke`). */
export interface HostCommandContext {
  /** Writes to stdout. */
  out(text: string): void;
  /** Writes to stderr. */
  err(text: string): void;
  /** Aborted on Ctrl-C. */
  signal: AbortSignal;
  /** The data directory: `--data`'s value, else TETHER_DATA_DIR, else the default. */
  dataDir(flag: string | undefined): string;
}
