/**
 * What holding an agent's network to some hosts costs (docs/performance.md, "An agent's
 * network through the host's proxy"), on a Linux machine with bubblewrap. A process in the
 * sandbox with all of the network against one allowed only a loopback server's name,
 * which reaches it through the bridge and the host's proxy (this process):
 * - `start`: from `prepare` to the process's first line on stdout (`node -e`), what the
 *   bridge adds to an agent's start; interleaved rounds, medians.
 * - `requests`: an HTTP request and its answer from inside the sandbox, each on a new
 *   connection (direct, or a new CONNECT tunnel), and many on one kept connection (direct,
 *   or one tunnel, as an HTTPS client keeps its connection to the API); medians per request.
 * - `transfer`: 256 MiB downloaded on one connection, MiB/s, and this process's CPU per
 *   MiB (the proxy's; the server is another process), from /proc/self/task/*\/schedstat.
 *
 *   npm run bench:agent-network   (or node dist/bench/agent-network.js [start] [requests] [transfer])
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { PolicyConfig, sandboxSecrets } from '../host/policy/index.js';
import { detectSandbox, Sandbox, spawnWrapped } from '../host/sandbox/index.js';
import type { SandboxRequest } from '../host/sandbox/index.js';
import { hostCpuNs } from './host-process.js';

const START_ROUNDS = 30;
const WARM_UP = 3;
const REQUESTS = 300;
const TRANSFER_MiB = 256;
const MiB = 1024 * 1024;

const policy = PolicyConfig.parse({});
const machine = new Sandbox(
  detectSandbox({ platform: process.platform, searchPath: process.env['PATH'] ?? '' }),
  (root) => sandboxSecrets(policy, root, homedir(), []),
  homedir(),
);
const root = realpathSync(mkdtempSync(join(tmpdir(), 'tether-bench-agent-network-')));

const median = (values: readonly number[]) =>
  [...values].sort((a, b) => a - b)[values.length >> 1] ?? Number.NaN;
const fixed = (value: number, digits = 2) => value.toFixed(digits);

/** This process's CPU so far in ms: every thread's time on a CPU (schedstat). */
const cpuMs = () => hostCpuNs(process.pid) / 1e6;

/**
 * A loopback HTTP server in its own process: `/` answers `ok`, `/bulk` sends
 * {@link TRANSFER_MiB} MiB. Resolves with its port.
 */
async function startServer(): Promise<{ port: number; child: ChildProcess }> {
  const source = `
    const block = Buffer.alloc(1 << 20, 97);
    const server = require('node:http').createServer((request, response) => {
      if (request.url !== '/bulk') return response.end('ok');
      response.writeHead(200, { 'content-length': ${TRANSFER_MiB} * block.length });
      let left = ${TRANSFER_MiB};
      const more = () => { while (left > 0) { left -= 1; if (!response.write(block)) return response.once('drain', more); } response.end(); };
      more();
    });
    server.keepAliveTimeout = 60000;
    server.listen(0, '127.0.0.1', () => console.log(server.address().port));
  `;
  const child = spawn(process.execPath, ['-e', source], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout?.once('data', (data: Buffer) => resolve(Number(String(data).trim())));
    child.once('error', reject);
  });
  return { port, child };
}

/** Runs `script` with node in the sandbox with `request`; its stdout, and ms to its first byte. */
async function inSandbox(
  script: string,
  request: SandboxRequest,
): Promise<{ out: string; firstByteMs: number }> {
  const started = performance.now();
  const prepared = await machine.prepare(root, request);
  try {
    const child = spawnWrapped(prepared.wrap([process.execPath, '-e', script], root), {
      cwd: root,
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin' },
      stdin: 'ignore',
    });
    let out = '';
    let firstByteMs = Number.NaN;
    let err = '';
    child.stdout?.on('data', (data: Buffer) => {
      if (out === '') firstByteMs = performance.now() - started;
      out += String(data);
    });
    child.stderr?.on('data', (data: Buffer) => (err += String(data)));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    if (code !== 0) throw new Error(`the sandboxed script failed (${code}): ${err}`);
    return { out, firstByteMs };
  } finally {
    prepared.finish();
  }
}

const ALL: SandboxRequest = { network: true };
const onlyServer = (port: number): SandboxRequest => ({ hosts: [`localhost:${port}`] });

async function startCost(port: number): Promise<void> {
  console.log(
    `\nStart: prepare to the first line on stdout, median of ${START_ROUNDS} interleaved ` +
      `rounds after ${WARM_UP} (ms)`,
  );
  const all: number[] = [];
  const hosts: number[] = [];
  for (let round = -WARM_UP; round < START_ROUNDS; round++) {
    const a = await inSandbox('console.log(1)', ALL);
    const h = await inSandbox('console.log(1)', onlyServer(port));
    if (round < 0) continue;
    all.push(a.firstByteMs);
    hosts.push(h.firstByteMs);
  }
  const [a, h] = [median(all), median(hosts)];
  console.log(`  all of the network   ${fixed(a)}`);
  console.log(`  one host, bridged    ${fixed(h)}   (+${fixed(h - a)} ms, ${fixed(h / a)}x)`);
}

/**
 * The script timing {@link REQUESTS} requests from inside: each on a new connection, then
 * all on one kept connection; direct, or through the proxy's tunnels. Prints
 * `[newConnectionUs[], keptUs[]]`.
 */
function requestScript(port: number, viaProxy: boolean): string {
  return `
    const net = require('node:net');
    const http = require('node:http');
    const proxy = ${viaProxy} ? new URL(process.env.HTTPS_PROXY) : null;
    function connection() {
      if (proxy === null) return new Promise((resolve) => { const s = net.connect(${port}, '127.0.0.1', () => resolve(s)); });
      return new Promise((resolve, reject) => {
        const s = net.connect(Number(proxy.port), proxy.hostname, () => s.write('CONNECT localhost:${port} HTTP/1.1\\r\\n\\r\\n'));
        let head = '';
        const onData = (d) => {
          head += d;
          if (!head.includes('\\r\\n\\r\\n')) return;
          s.off('data', onData);
          head.startsWith('HTTP/1.1 200') ? resolve(s) : reject(new Error(head));
        };
        s.on('data', onData);
      });
    }
    /** An agent whose one connection is \`socket\`, kept for more requests or not. */
    function over(socket, keepAlive) {
      const agent = new http.Agent({ keepAlive, maxSockets: 1 });
      agent.createConnection = () => socket;
      return agent;
    }
    function request(agent) {
      return new Promise((resolve, reject) => {
        http.get({ host: 'localhost', port: ${port}, path: '/', agent }, (response) => {
          response.resume();
          response.on('end', resolve);
        }).on('error', reject);
      });
    }
    (async () => {
      const fresh = [];
      for (let i = 0; i < ${REQUESTS}; i++) {
        const t = process.hrtime.bigint();
        const socket = await connection();
        await request(over(socket, false));
        socket.destroy();
        fresh.push(Number(process.hrtime.bigint() - t) / 1000);
      }
      const kept = [];
      const socket = await connection();
      const agent = over(socket, true);
      for (let i = 0; i < ${REQUESTS}; i++) {
        const t = process.hrtime.bigint();
        await request(agent);
        kept.push(Number(process.hrtime.bigint() - t) / 1000);
      }
      socket.destroy();
      console.log(JSON.stringify([fresh, kept]));
    })();
  `;
}

const Timings = z.tuple([z.array(z.number()), z.array(z.number())]);

async function requestCost(port: number): Promise<void> {
  console.log(
    `\nA request from inside the sandbox, median of ${REQUESTS} (µs): each on a new ` +
      `connection, and all on one kept connection`,
  );
  const direct = Timings.parse(JSON.parse((await inSandbox(requestScript(port, false), ALL)).out));
  const proxied = Timings.parse(
    JSON.parse((await inSandbox(requestScript(port, true), onlyServer(port))).out),
  );
  const rows: [string, number, number][] = [
    ['new connection', median(direct[0]), median(proxied[0])],
    ['kept connection', median(direct[1]), median(proxied[1])],
  ];
  console.log('                     direct   through the proxy');
  for (const [label, d, p] of rows) {
    console.log(
      `  ${label.padEnd(16)} ${fixed(d, 0).padStart(8)}   ${fixed(p, 0).padStart(8)}  (+${fixed(p - d, 0)} µs)`,
    );
  }
}

function transferScript(port: number, viaProxy: boolean): string {
  return `
    const net = require('node:net');
    const proxy = ${viaProxy} ? new URL(process.env.HTTPS_PROXY) : null;
    const socket = proxy === null ? net.connect(${port}, '127.0.0.1') : net.connect(Number(proxy.port), proxy.hostname);
    let bytes = 0;
    let started = 0;
    let tunnelled = proxy === null;
    socket.on('connect', () => {
      if (!tunnelled) socket.write('CONNECT localhost:${port} HTTP/1.1\\r\\n\\r\\n');
      else { started = performance.now(); socket.write('GET /bulk HTTP/1.1\\r\\nhost: x\\r\\nconnection: close\\r\\n\\r\\n'); }
    });
    socket.on('data', (d) => {
      if (!tunnelled) {
        tunnelled = true;
        started = performance.now();
        socket.write('GET /bulk HTTP/1.1\\r\\nhost: x\\r\\nconnection: close\\r\\n\\r\\n');
        return;
      }
      bytes += d.length;
    });
    socket.on('close', () => console.log(JSON.stringify([bytes, performance.now() - started])));
  `;
}

async function transferCost(port: number): Promise<void> {
  console.log(`\n${TRANSFER_MiB} MiB on one connection: MiB/s, and this process's CPU per MiB`);
  const Figures = z.tuple([z.number(), z.number()]);
  for (const [label, viaProxy] of [
    ['direct', false],
    ['through the proxy', true],
  ] as const) {
    const before = cpuMs();
    const { out } = await inSandbox(
      transferScript(port, viaProxy),
      viaProxy ? onlyServer(port) : ALL,
    );
    const cpu = cpuMs() - before;
    const [bytes, ms] = Figures.parse(JSON.parse(out));
    if (bytes < TRANSFER_MiB * MiB) throw new Error(`${label}: only ${bytes} bytes came`);
    const mib = bytes / MiB;
    console.log(
      `  ${label.padEnd(18)} ${fixed(mib / (ms / 1000), 0).padStart(6)} MiB/s   ${fixed(cpu / mib, 3)} ms CPU/MiB`,
    );
  }
}

const sections = new Map<string, (port: number) => Promise<void>>([
  ['start', startCost],
  ['requests', requestCost],
  ['transfer', transferCost],
]);
const chosen = process.argv.slice(2);
const status = machine.status;
const server = await startServer();
try {
  if (!status.available || status.kind !== 'bwrap') {
    const why = status.available ? `this machine's sandbox is ${status.kind}` : status.reason;
    console.log(`bench:agent-network skipped: bwrap is not available (${why})`);
  } else {
    console.log(`bubblewrap: ${status.program}; Node ${process.version}`);
    for (const [name, section] of sections) {
      if (chosen.length === 0 || chosen.includes(name)) await section(server.port);
    }
  }
} finally {
  server.child.kill();
  rmSync(root, { recursive: true, force: true });
}
