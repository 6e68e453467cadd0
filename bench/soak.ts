/**
 * Soak (issue 7): the chaos workload for `--minutes N` (default 10) against the real host
 * process: three remotes send commands in rounds while their sockets drop at random, and
 * in each round the host restarts (SIGTERM and SIGKILL in turn) at a random point, with
 * commands in flight. Every 30 s it prints commands/s, events/s, the host's RSS and any
 * broken invariant; then a summary. A settle that times out counts as a broken invariant;
 * the exit code is 1 when any broke.
 *
 *     npm run bench:soak -- --minutes 2
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { ChaosWorkload, seeded, type ChaosHost } from './chaos-workload.js';
import { startZeroLatencyModel } from './zero-latency-model.js';

const bin = new URL('../../bin/tether.js', import.meta.url).pathname;
const REPORT_MS = 30_000;
const AdminFile = z.object({ url: z.string(), token: z.string() });
const OfferLink = z.object({ link: z.string() });
const ROUND_COMMANDS = 300;

function minutesArg(): number {
  const index = process.argv.indexOf('--minutes');
  const value = index >= 0 ? Number(process.argv[index + 1]) : 10;
  if (!Number.isFinite(value) || value <= 0) throw new Error('--minutes takes a positive number');
  return value;
}

/** The host's resident memory in MiB, from /proc (Linux). */
function rssMiB(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

class SoakHost implements ChaosHost {
  child: ChildProcess | null = null;
  private port = 0;
  private url = '';

  constructor(
    readonly dataDir: string,
    private readonly workspace: string,
    private readonly modelUrl: string,
  ) {}

  async start(): Promise<void> {
    const child = spawn(
      process.execPath,
      [
        bin,
        'start',
        '--data',
        this.dataDir,
        '--port',
        String(this.port),
        '--workspace',
        this.workspace,
      ],
      {
        env: {
          PATH: process.env['PATH'] ?? '',
          HOME: join(this.dataDir, '..'),
          TETHER_KEY_STORE: 'file',
          TETHER_MODEL_BASE_URL: this.modelUrl,
          TETHER_MODEL: 'bench',
          TETHER_MODEL_API_KEY: 'sk-bench',
        },
        // The host logs to <data>/logs/host.log too; its stderr would drown the figures,
        // so only its tail is kept, for a start that fails.
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    this.child = child;
    this.url = await new Promise<string>((resolve, reject) => {
      let out = '';
      let errTail = '';
      child.stderr?.on(
        'data',
        (chunk: Buffer) => (errTail = (errTail + chunk.toString()).slice(-2000)),
      );
      child.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const match = /listening on (http:\/\/127\.0\.0\.1:(\d+))/.exec(out);
        if (match) resolve(match[1]!);
      });
      child.once('exit', (code) =>
        reject(new Error(`the host exited (${code}) before listening:\n${errTail}`)),
      );
    });
    this.port = Number(new URL(this.url).port);
  }

  async stop(signal: 'SIGTERM' | 'SIGKILL'): Promise<void> {
    const child = this.child;
    if (child === null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    await exited;
    this.child = null;
  }

  async pairLink(): Promise<string> {
    const admin = AdminFile.parse(
      JSON.parse(readFileSync(join(this.dataDir, 'admin.json'), 'utf8')),
    );
    const response = await fetch(`${admin.url}/admin/api/offers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin.token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    return OfferLink.parse(await response.json()).link;
  }
}

async function main(): Promise<void> {
  const minutes = minutesArg();
  const seed = Number(process.env['CHAOS_SEED'] ?? Date.now() % 1_000_000);
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'tether-soak-')));
  mkdirSync(join(root, 'workspace'));
  const model = await startZeroLatencyModel(0);
  const host = new SoakHost(join(root, 'data'), join(root, 'workspace'), model.baseUrl);
  await host.start();
  console.log(`soak: ${minutes} min, seed ${seed}, data ${host.dataDir}`);
  const workload = await ChaosWorkload.start(host, { clients: 3, sessionsPerClient: 3, seed });
  workload.startDropping(100, 600);
  const startedAt = Date.now();
  const endAt = startedAt + minutes * 60_000;
  let last = { at: startedAt, answered: workload.answered, events: workload.eventsReceived };
  const rss: number[] = [];
  let broken = 0;
  const report = (final = false) => {
    const now = Date.now();
    const seconds = (now - last.at) / 1000;
    const memory = rssMiB(host.child?.pid);
    if (memory !== null) rss.push(memory);
    const violations = workload.check(final);
    broken += violations.length;
    console.log(
      [
        `t=${Math.round((now - startedAt) / 1000)}s`,
        `commands/s ${((workload.answered - last.answered) / seconds).toFixed(1)}`,
        `events/s ${((workload.eventsReceived - last.events) / seconds).toFixed(1)}`,
        `host RSS ${memory === null ? 'n/a' : `${memory.toFixed(1)} MiB`}`,
        `invariants ${violations.length === 0 ? 'ok' : violations.slice(0, 3).join('; ')}`,
      ].join(' · '),
    );
    last = { at: now, answered: workload.answered, events: workload.eventsReceived };
  };
  const timer = setInterval(report, REPORT_MS);
  // A stream of its own, so the restart points do not shift the workload's choices.
  const random = seeded(seed + 1000);
  let restarts = 0;
  let inFlightAtRestarts = 0;
  while (Date.now() < endAt) {
    const roundStart = workload.sent;
    const sending = workload.sendCommands(ROUND_COMMANDS);
    // 10–90 % of the round sent, so the restart lands on commands still unanswered.
    const restartAt = roundStart + Math.floor(ROUND_COMMANDS * (0.1 + 0.8 * random()));
    while (workload.sent < restartAt) await new Promise((resolve) => setTimeout(resolve, 5));
    inFlightAtRestarts += workload.sent - workload.answered;
    restarts++;
    await host.stop(restarts % 2 === 1 ? 'SIGTERM' : 'SIGKILL');
    await host.start();
    await sending;
    // Runs are slower than answers: let the queue drain so it does not grow all along.
    if (!(await workload.settle(120_000))) {
      broken++;
      console.log(`round ${restarts}: not settled in 120 s (runs still queued or streams behind)`);
    }
  }
  workload.stopDropping();
  const settled = await workload.settle(180_000);
  clearInterval(timer);
  if (!settled) {
    broken++;
    console.log('not settled in 180 s (runs still queued or streams behind): the check is partial');
  }
  // Unsettled, every command answered and every stream at the head cannot be asked for.
  report(settled);
  const total = (Date.now() - startedAt) / 1000;
  console.log(
    [
      `summary: ${total.toFixed(0)} s`,
      `${workload.sent} commands (${(workload.answered / total).toFixed(1)}/s)`,
      `${workload.eventsReceived} events received (${(workload.eventsReceived / total).toFixed(1)}/s)`,
      `${workload.drops} socket drops`,
      `${restarts} host restarts with ${inFlightAtRestarts} commands in flight at them`,
      `host RSS min ${Math.min(...rss).toFixed(1)} / max ${Math.max(...rss).toFixed(1)} MiB`,
      `broken invariants ${broken}`,
    ].join(' · '),
  );
  await workload.close();
  await host.stop('SIGTERM');
  await model.close();
  rmSync(root, { recursive: true, force: true });
  process.exitCode = broken === 0 ? 0 : 1;
}

await main();
