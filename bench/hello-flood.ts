/**
 * What a hello flood costs the host (issue 11, finding 6): the real host as a child
 * process (`node bin/tether.js start`, default limits) on loopback, and from this process
 * 16 sockets at a time from one address sending, phase by phase, hellos from an unknown
 * device, hellos of a paired device with a bad signature, a captured hello of another
 * paired device replayed, and hellos offering 40,000 versions. Each phase comes from its
 * own address (an `X-Forwarded-For` the host believes from a loopback peer, as behind
 * `tailscale serve`), so one phase's limits do not carry into the next. For each: the host's CPU per hello (all
 * threads, /proc/<pid>/task/∗/schedstat), what the host answered, how much host.log grew, and meanwhile the round trip of
 * a paired device's `host.info` on a channel opened before the flood (median, p99), next
 * to the same round trip with no flood. Bounded: 400 hellos or 20 s a phase.
 *
 *   npm run bench:hello
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { z } from 'zod';
import {
  createIdentity,
  type FrameCipher,
  openChannel,
  type PairedHost,
} from '../pairing/index.js';
import { b64u, HostMessage } from '../protocol/index.js';
import { hostCpuNs } from './host-process.js';
import { openSocket, pairDevice } from './lean-channel.js';

const HELLOS_PER_PHASE = 400;
const PHASE_MS = 20_000;
const SOCKETS = 16;
const BASELINE_CALLS = 200;

const bin = new URL('../../bin/tether.js', import.meta.url).pathname;

interface Host {
  readonly child: ChildProcess;
  readonly url: string;
  readonly dataDir: string;
  stop(): Promise<void>;
}

async function startHostProcess(): Promise<Host> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'tether-bench-hello-')));
  const dataDir = join(root, 'data');
  mkdirSync(join(root, 'workspace'));
  // BENCH_HOST_NODE_ARGS (e.g. `--cpu-prof --cpu-prof-dir=/tmp/p`) profiles the host.
  const nodeArgs = (process.env['BENCH_HOST_NODE_ARGS'] ?? '').split(' ').filter(Boolean);
  const child = spawn(
    process.execPath,
    [
      ...nodeArgs,
      bin,
      'start',
      '--data',
      dataDir,
      '--port',
      '0',
      '--workspace',
      join(root, 'workspace'),
    ],
    {
      env: { PATH: process.env['PATH'] ?? '', HOME: root, TETHER_KEY_STORE: 'file' },
      // host.log has every line; stderr, the same lines, goes nowhere (as in host-process.ts).
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  );
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the host exited (${code}):\n${output}`)));
  });
  return {
    child,
    url,
    dataDir,
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** The host's CPU time so far, in ms (all threads, /proc/<pid>/task/∗/schedstat). */
function hostCpuMs(pid: number): number {
  return hostCpuNs(pid) / 1e6;
}

function logBytes(dataDir: string): number {
  const folder = join(dataDir, 'logs');
  let total = 0;
  for (const name of ['host.log', 'host.log.1', 'host.log.2', 'host.log.3']) {
    try {
      total += statSync(join(folder, name)).size;
    } catch {
      // Not rotated that far.
    }
  }
  return total;
}

const AdminFile = z.object({ url: z.string(), token: z.string() });
const Offer = z.looseObject({ link: z.string() });

async function pairLink(host: Host): Promise<string> {
  const admin = AdminFile.parse(JSON.parse(readFileSync(join(host.dataDir, 'admin.json'), 'utf8')));
  const response = await fetch(`${admin.url}/admin/api/offers`, {
    method: 'POST',
    headers: { authorization: `Bearer ${admin.token}`, 'content-type': 'application/json' },
    body: '{}',
  });
  return Offer.parse(await response.json()).link;
}

async function pair(host: Host): Promise<PairedHost> {
  return pairDevice(host.url, await pairLink(host));
}

/** A paired device's open channel, answering one request at a time. */
class Channel {
  private nextId = 1;
  private waiter: ((message: HostMessage) => void) | null = null;

  private constructor(
    private readonly socket: WebSocket,
    private readonly cipher: FrameCipher,
  ) {
    socket.on('message', (data: Buffer, isBinary) => {
      const message = cipher.openFrame(new Uint8Array(data), isBinary, HostMessage);
      this.waiter?.(message);
    });
  }

  static async open(record: PairedHost): Promise<Channel> {
    const { socket, next } = await openSocket(record.origin);
    const { hello, channel } = openChannel(record);
    socket.send(JSON.stringify(hello));
    const welcome = channel.receiveWelcome(await next());
    if (!welcome.ok) throw welcome.error;
    socket.removeAllListeners('message');
    return new Channel(socket, welcome.cipher);
  }

  /** Round trip of `host.info`, in ms. */
  async roundTrip(): Promise<number> {
    const id = String(this.nextId++);
    const started = performance.now();
    const answered = new Promise<void>((resolve) => {
      this.waiter = (message) => {
        if (message.t === 'res' && message.id === id) resolve();
      };
    });
    this.socket.send(this.cipher.seal({ t: 'req', id, op: 'host.info', args: {} }));
    await answered;
    return performance.now() - started;
  }

  close(): void {
    this.socket.close();
  }
}

/** How one flooding socket ended: the first frame's `t` (and `code` for errors), the close code. */
function sendHello(url: string, hello: string, address: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url.replace(/^http/, 'ws') + '/v1/ws', {
      headers: { 'x-forwarded-for': address },
    });
    let first = 'nothing';
    socket.once('open', () => socket.send(hello));
    socket.on('message', (data: Buffer, isBinary) => {
      if (first !== 'nothing') return;
      const parsed = isBinary
        ? null
        : z
            .looseObject({ t: z.string(), code: z.string().optional() })
            .safeParse(JSON.parse(data.toString()));
      first = parsed?.success
        ? parsed.data.code === undefined
          ? parsed.data.t
          : `${parsed.data.t} ${parsed.data.code}`
        : 'binary';
      // A replayer cannot use a welcome; it hangs up as soon as it has one.
      if (first === 'welcome') socket.close();
    });
    socket.once('close', (code) => resolve(`${first} → ${code}`));
    socket.once('error', () => undefined);
  });
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;
}

function summary(times: number[]): string {
  const sorted = [...times].sort((a, b) => a - b);
  if (sorted.length === 0) return 'no samples';
  return `median ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms (${sorted.length})`;
}

/** Floods `hello` from 16 sockets while `channel` measures round trips; prints the phase. */
let phases = 0;

async function phase(host: Host, channel: Channel, name: string, hello: string): Promise<void> {
  const address = `192.0.2.${++phases}`;
  const cpuBefore = hostCpuMs(host.child.pid!);
  const logBefore = logBytes(host.dataDir);
  const started = performance.now();
  const outcomes = new Map<string, number>();
  let sent = 0;
  let flooding = true;
  const flooders = Array.from({ length: SOCKETS }, async () => {
    while (sent < HELLOS_PER_PHASE && performance.now() - started < PHASE_MS) {
      sent++;
      const outcome = await sendHello(host.url, hello, address);
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
    }
  });
  const times: number[] = [];
  const measuring = (async () => {
    while (flooding) times.push(await channel.roundTrip());
  })();
  await Promise.all(flooders);
  const elapsed = performance.now() - started;
  const cpu = hostCpuMs(host.child.pid!) - cpuBefore;
  flooding = false;
  await measuring;
  const grown = logBytes(host.dataDir) - logBefore;
  console.log(`\n${name}: ${sent} hellos in ${(elapsed / 1000).toFixed(1)} s`);
  console.log(`  host CPU: ${(cpu / sent).toFixed(2)} ms a hello (${cpu.toFixed(0)} ms in all)`);
  console.log(`  host.log: +${grown} bytes (${(grown / sent).toFixed(0)} a hello)`);
  const answers = [...outcomes].sort((a, b) => b[1] - a[1]);
  console.log(`  answers: ${answers.map(([what, n]) => `${n}× ${what}`).join(', ')}`);
  console.log(`  legitimate host.info meanwhile: ${summary(times)}`);
}

/**
 * Refused hellos one at a time, each from an address of its own, so none is stopped by a
 * rate limit: the whole refusal (upgrade, hello, lookup, verify, log line, error frame,
 * close) as a host pays for it. Prints the host's CPU per hello.
 */
async function oneByOne(host: Host, name: string, hellos: string[]): Promise<void> {
  const outcomes = new Map<string, number>();
  const cpuBefore = hostCpuMs(host.child.pid!);
  for (const [index, hello] of hellos.entries()) {
    const address = `198.51.${100 + Math.floor(index / 250)}.${(index % 250) + 1}`;
    const outcome = await sendHello(host.url, hello, address);
    outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
  }
  const cpu = hostCpuMs(host.child.pid!) - cpuBefore;
  const answers = [...outcomes].map(([what, n]) => `${n}× ${what}`).join(', ');
  console.log(`
${name}, one at a time, each from its own address: ${hellos.length} hellos`);
  console.log(`  host CPU: ${(cpu / hellos.length).toFixed(2)} ms a hello; answers: ${answers}`);
}

/** A hello from a device the host never paired, made with `device`'s host record. */
function strangerHello(device: PairedHost): string {
  const stranger = createIdentity();
  const { hello } = openChannel({
    ...device,
    deviceId: b64u(stranger.publicKey.subarray(0, 16)),
    deviceSeed: b64u(stranger.secretKey.subarray(0, 32)),
  });
  return JSON.stringify(hello);
}

async function main(): Promise<void> {
  const host = await startHostProcess();
  try {
    const device = await pair(host);
    const channel = await Channel.open(device);
    const baseline: number[] = [];
    for (let i = 0; i < BASELINE_CALLS; i++) baseline.push(await channel.roundTrip());
    console.log(`host ${host.url}, pid ${host.child.pid}`);
    console.log(`no flood: legitimate host.info ${summary(baseline)}`);

    // Within the device's own hello burst (20), so its rate limit refuses none of them.
    const forgedHellos = Array.from({ length: 20 }, () => {
      const forger = createIdentity();
      const seed = b64u(forger.secretKey.subarray(0, 32));
      return JSON.stringify(openChannel({ ...device, deviceSeed: seed }).hello);
    });
    await oneByOne(host, 'paired device, bad signature', forgedHellos);
    const strangers = Array.from({ length: 200 }, () => strangerHello(device));
    await oneByOne(host, 'unknown device', strangers);

    const stranger = createIdentity();
    const unknown = openChannel({
      ...device,
      deviceId: b64u(stranger.publicKey.subarray(0, 16)),
      deviceSeed: b64u(stranger.secretKey.subarray(0, 32)),
    }).hello;
    await phase(host, channel, 'unknown device', JSON.stringify(unknown));

    const forger = createIdentity();
    const forged = openChannel({ ...device, deviceSeed: b64u(forger.secretKey.subarray(0, 32)) });
    await phase(host, channel, 'paired device, bad signature', JSON.stringify(forged.hello));

    const captured = openChannel(await pair(host)).hello;
    await phase(host, channel, 'replayed hello', JSON.stringify(captured));

    const versions = { t: 'hello', v: Array.from({ length: 40_000 }, () => 9) };
    await phase(host, channel, 'hello offering 40,000 versions', JSON.stringify(versions));

    const after: number[] = [];
    for (let i = 0; i < BASELINE_CALLS; i++) after.push(await channel.roundTrip());
    console.log(`\nno flood again: legitimate host.info ${summary(after)}`);
    channel.close();
  } finally {
    await host.stop();
  }
}

await main();
