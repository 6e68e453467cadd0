/**
 * The real host process armed with one fault point (docs/testing.md, "Fault points"),
 * the scripted model server, a paired raw channel, and read-only looks into its SQLite
 * store: start it, let the point kill it, restart it without the fault, and inspect.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { PairedHost } from '../../pairing/index.js';
import { startHostProcess, type HostProcess } from './host-process.js';
import { pairDevice, RawChannel } from './raw-channel.js';
import { startScriptedModelServer, type ScriptedModelServer } from './scripted-model-server.js';
import { readStoredEvents, type StoredEvent } from './store-events.js';
import { until } from './wait.js';

/**
 * The workspace script every fault test's commands run: prints a line, then appends its
 * argument to `marker.txt`, so the file says whether (and how often) a command ran.
 */
export const MARK_SCRIPT = 'echo "marking $1"\necho "$1" >> marker.txt\n';

/** `run_command` input that runs {@link MARK_SCRIPT}; allowed without asking by the test policy. */
export function markCommand(tag: string): { command: string } {
  return { command: `sh mark.sh ${tag}` };
}

/** True while any process of the group exists (zombies included), by kill(-pgid, 0). */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
}

export interface FaultHostOptions {
  /** The fault point that kills the host (none: a plain host, killed from outside). */
  point?: string;
  /** Die at this arrival of the point (TETHER_FAULT_HIT). */
  hit?: number;
  /** More workspace scripts, by file name; each is allowed as `sh <name> …` by policy. */
  scripts?: Record<string, string>;
  /** Extra keys of the host's config file. */
  config?: Record<string, unknown>;
}

export interface FaultHost {
  readonly host: HostProcess;
  readonly model: ScriptedModelServer;
  readonly paired: PairedHost;
  /** The channel of the current host process (reopened by {@link FaultHost.restartClean}). */
  readonly channel: RawChannel;
  /**
   * Resolves once the armed point has killed the host: the process ended by SIGKILL and
   * its stderr line was printed. Throws when it ended any other way, so a point that
   * failed to kill is not hidden by the graceful stop of {@link FaultHost.restartClean}.
   */
  died(timeoutMs?: number): Promise<void>;
  /** Starts the host again without any fault env, and opens a new channel. */
  restartClean(): Promise<void>;
  /** Runs `query` on a read-only connection to the store (closed right after). */
  query<T>(query: (db: Database.Database) => T): T;
  /** Changes the store while the host is down (a state only a power cut leaves). */
  write(change: (db: Database.Database) => void): void;
  /** Every event in the store, seq ascending. */
  events(): StoredEvent[];
  /** The event types recorded for a run, seq ascending. */
  typesOf(runId: string): string[];
  /** Lines of `marker.txt` in the workspace ([] when the file does not exist). */
  markerLines(): string[];
  /** Closes the channel, removes the host and stops the model server. */
  dispose(): Promise<void>;
  /** {@link FaultHost.dispose}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}

export async function startFaultHost(options: FaultHostOptions = {}): Promise<FaultHost> {
  const model = await startScriptedModelServer();
  const scripts = { 'mark.sh': MARK_SCRIPT, ...options.scripts };
  // startHostProcess reads `env` at every launch: emptying it makes the restart clean.
  const env: Record<string, string> = {};
  if (options.point !== undefined) {
    env['TETHER_FAULTS'] = '1';
    env['TETHER_FAULT_POINT'] = options.point;
    if (options.hit !== undefined) env['TETHER_FAULT_HIT'] = String(options.hit);
  }
  const host = await startHostProcess({
    model: model.baseUrl,
    config: {
      policy: { commands: { allow: Object.keys(scripts).map((name) => ['sh', name, '…']) } },
      ...options.config,
    },
    env,
  });
  for (const [name, text] of Object.entries(scripts)) {
    writeFileSync(join(host.workspace, name), text);
  }
  const { host: paired } = await pairDevice(await host.pairLink());
  let channel = await RawChannel.open(paired);
  const database = join(host.dataDir, 'tether.db');

  const query = <T>(run: (db: Database.Database) => T): T => {
    const db = new Database(database, { readonly: true, fileMustExist: true });
    try {
      return run(db);
    } finally {
      db.close();
    }
  };
  const events = (): StoredEvent[] => readStoredEvents(host.dataDir);
  const marker = join(host.workspace, 'marker.txt');
  const dispose = async () => {
    channel.socket.socket.terminate();
    await host.dispose();
    await model.close();
  };

  return {
    host,
    model,
    paired,
    get channel() {
      return channel;
    },
    async died(timeoutMs = 20_000) {
      const exit = await until('the host to exit', () => host.exit() ?? undefined, {
        timeout: timeoutMs,
      });
      if (exit.signal !== 'SIGKILL') {
        throw new Error(
          `the host ended by ${exit.signal ?? `exit code ${exit.code}`}, not SIGKILL:\n${host.output()}`,
        );
      }
      // stderr may still be draining when the exit is reported.
      const line = `fault point ${options.point} reached: killing`;
      await until(line, () => (host.output().includes(line) ? true : undefined), {
        timeout: 2_000,
      });
    },
    async restartClean() {
      channel.socket.socket.terminate();
      for (const key of Object.keys(env)) delete env[key];
      await host.restart();
      channel = await RawChannel.open(paired);
    },
    query,
    write(change) {
      const db = new Database(database, { fileMustExist: true });
      try {
        change(db);
      } finally {
        db.close();
      }
    },
    events,
    typesOf: (runId) => events().flatMap((event) => (event.runId === runId ? [event.type] : [])),
    markerLines: () =>
      existsSync(marker) ? readFileSync(marker, 'utf8').split('\n').filter(Boolean) : [],
    dispose,
    [Symbol.asyncDispose]: dispose,
  };
}
