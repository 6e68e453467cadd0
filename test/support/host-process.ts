/**
 * The real host as a child process (`node bin/tether.js start`), on a temp data
 * directory and a free port, with helpers to pair devices through its admin API.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { tempDir } from './temp-dir.js';
import { until } from './wait.js';

const bin = new URL('../../bin/tether.js', import.meta.url).pathname;

export interface HostProcessOptions {
  /** Base URL of an OpenAI-compatible server (the scripted one in tests). */
  model?: string;
  /** Extra `tether start` flags. */
  args?: string[];
  env?: Record<string, string>;
  /** The data directory (default: `data` in a fresh temp folder); it may exist already. */
  dataDir?: string;
  /** A config file's content (`--config`), written in the temp folder. */
  config?: Record<string, unknown>;
}

export interface Offer {
  link: string;
  offerId: string;
  expiresAt: number;
}

/** How a host process ended: its exit code, or the signal that killed it. */
export interface HostExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface HostProcess {
  /** `http://127.0.0.1:PORT` (the same port across restarts). */
  readonly url: string;
  readonly dataDir: string;
  readonly workspace: string;
  /** Everything the host printed on stdout and stderr so far. */
  output(): string;
  /** A fresh pairing offer from the admin API; its link names `origin` when given. */
  offer(origin?: string): Promise<Offer>;
  pairLink(origin?: string): Promise<string>;
  /** Calls the admin API (loopback, with the token). */
  admin(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Response>;
  /** How the current process ended; null while it runs. */
  exit(): HostExit | null;
  /** SIGTERM and wait for a clean exit; resolves with the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL: no cleanup, as a crash. */
  kill(): Promise<void>;
  /** Starts it again on the same data directory and port. */
  restart(): Promise<void>;
  /** Stops it if running and removes its folders. */
  dispose(): Promise<void>;
  /** {@link HostProcess.dispose}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}

const LISTENING = /listening on (http:\/\/127\.0\.0\.1:(\d+))/;
const AdminFile = z.object({ url: z.string(), token: z.string() });
const OfferResult = z.object({ link: z.string(), offerId: z.string(), expiresAt: z.number() });

export async function startHostProcess(options: HostProcessOptions = {}): Promise<HostProcess> {
  const temp = tempDir('tether-host-');
  const root = temp.path;
  const dataDir = options.dataDir ?? join(root, 'data');
  const workspace = join(root, 'workspace');
  mkdirSync(workspace);
  writeFileSync(join(workspace, 'README.md'), '# A workspace for tests\n');
  const configArgs: string[] = [];
  if (options.config !== undefined) {
    const file = join(root, 'config.json');
    writeFileSync(file, JSON.stringify(options.config), { mode: 0o600 });
    configArgs.push('--config', file);
  }
  let child: ChildProcessWithoutNullStreams | null = null;
  let exited: Promise<HostExit> = Promise.resolve({ code: null, signal: null });
  let exit: HostExit | null = null;
  let output = '';
  let port = 0;

  const launch = async (): Promise<string> => {
    const env: Record<string, string> = {
      PATH: process.env['PATH'] ?? '',
      HOME: root,
      TETHER_KEY_STORE: 'file',
      ...(options.model === undefined
        ? {}
        : {
            TETHER_MODEL_BASE_URL: options.model,
            TETHER_MODEL: 'scripted-model',
            TETHER_MODEL_API_KEY: 'sk-test',
          }),
      ...options.env,
    };
    const args = [
      'start',
      '--data',
      dataDir,
      '--port',
      String(port),
      '--workspace',
      workspace,
      ...configArgs,
      ...(options.args ?? []),
    ];
    const started = spawn(process.execPath, [bin, ...args], { env });
    child = started;
    const from = output.length;
    started.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    started.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    exit = null;
    exited = new Promise((resolve) =>
      started.on('exit', (code, signal) => {
        exit = { code, signal };
        resolve(exit);
      }),
    );
    // Until it listens or ends; as long as a test or hook may take (vitest.config.ts).
    const seen = await until(
      'the host to listen or exit',
      () => ({ listening: LISTENING.exec(output.slice(from)), exit }),
      (now) => now.listening !== null || now.exit !== null,
      { timeout: 30_000, interval: 10 },
    );
    const match = seen.listening;
    if (match === null) {
      const { code, signal } = await exited;
      throw new Error(`the host exited (${signal ?? code}) before listening:\n${output}`);
    }
    port = Number(match[2]);
    return match[1]!;
  };

  let url = await launch();
  const admin = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
    const file = AdminFile.parse(JSON.parse(readFileSync(join(dataDir, 'admin.json'), 'utf8')));
    return fetch(`${file.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${file.token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  };
  const offer = async (origin?: string) => {
    const response = await admin(
      'POST',
      '/admin/api/offers',
      origin === undefined ? {} : { origin },
    );
    return OfferResult.parse(await response.json());
  };
  const stop = async () => {
    if (child === null) return null;
    child.kill('SIGTERM');
    const { code } = await exited;
    child = null;
    return code;
  };
  const dispose = async () => {
    if (child !== null) {
      child.kill('SIGKILL');
      await exited;
    }
    temp.remove();
  };
  return {
    get url() {
      return url;
    },
    dataDir,
    workspace,
    output: () => output,
    exit: () => exit,
    offer,
    pairLink: async (origin?: string) => (await offer(origin)).link,
    admin,
    stop,
    async kill() {
      if (child === null) return;
      child.kill('SIGKILL');
      await exited;
      child = null;
    },
    async restart() {
      await stop();
      url = await launch();
    },
    dispose,
    [Symbol.asyncDispose]: dispose,
  };
}
