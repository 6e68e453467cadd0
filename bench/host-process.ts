/**
 * The real host in a process of its own (`node bin/tether.js start`, on a temp data
 * directory and a free port), with one device paired through its admin API, for benches
 * that count the host's CPU apart from their own: {@link hostCpuNs} reads every thread of
 * its process from /proc/<pid>/task/∗/schedstat (ns; Linux only).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { TetherClient } from '../remote/client/index.js';
import { nodeWebSocketFactory } from '../remote/client/node/index.js';
import { MemoryStorage } from '../remote/client/testing.js';

const LISTENING = /listening on (http:\/\/127\.0\.0\.1:\d+)/;
const AdminFile = z.object({ url: z.string(), token: z.string() });
const OfferResult = z.looseObject({ link: z.string() });
const tether = new URL('../../bin/tether.js', import.meta.url).pathname;

export interface HostProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly hostId: string;
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** The paired device's identity and host record. */
  readonly storage: MemoryStorage;
  /** A fresh single-use pairing link from the host's admin API. */
  pairLink(): Promise<string>;
  /** SIGTERM, and resolves once it exited. */
  stop(): Promise<void>;
}

/** ns on CPU of every thread of `pid`. */
export function hostCpuNs(pid: number): number {
  let total = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      total += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // A thread that ended meanwhile.
    }
  }
  return total;
}

/**
 * Starts a host in `home` (its data, workspace and config file go there) with `config` as
 * its config file and `env` added to a minimal environment, and pairs a device with it.
 */
export async function startHostProcess(options: {
  home: string;
  config: Record<string, unknown>;
  env?: Record<string, string>;
}): Promise<HostProcess> {
  const { home } = options;
  const workspace = join(home, 'workspace');
  const dataDir = join(home, 'data');
  const config = join(home, 'config.json');
  mkdirSync(workspace, { recursive: true });
  writeFileSync(config, JSON.stringify(options.config), { mode: 0o600 });
  const args = ['start', '--data', dataDir, '--port', '0', '--workspace', workspace];
  // BENCH_HOST_NODE_ARGS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/p`) profiles the host.
  const nodeArgs = (process.env['BENCH_HOST_NODE_ARGS'] ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, tether, ...args, '--config', config], {
    env: {
      PATH: process.env['PATH'] ?? '',
      HOME: home,
      TETHER_KEY_STORE: 'file',
      ...options.env,
    },
    // Logging at its default level, as users run it: host.log has every line; stderr,
    // the same lines, goes nowhere (it would fill the bench's output).
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (LISTENING.test(output)) resolve();
    });
    child.on('exit', (code) => reject(new Error(`the host exited ${code}: ${output}`)));
  });
  const admin = AdminFile.parse(JSON.parse(readFileSync(join(dataDir, 'admin.json'), 'utf8')));
  const pairLink = async () => {
    const offer = await fetch(`${admin.url}/admin/api/offers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin.token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    return OfferResult.parse(await offer.json()).link;
  };
  const storage = new MemoryStorage();
  const pairing = new TetherClient({ storage, socketFactory: nodeWebSocketFactory() });
  const { hostId } = await pairing.pair(await pairLink(), {
    name: 'bench',
    platform: 'bench',
  });
  await pairing.close();
  return {
    child,
    pid: child.pid!,
    hostId,
    url: LISTENING.exec(output)![1]!,
    pairLink,
    storage,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
