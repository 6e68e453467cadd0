import { execFile, execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, stat } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { killProcessGroup, parseToolInput } from '../../host/tools/index.js';
import { createRunCommandTool } from '../../host/tools/testing.js';
import { COMMAND_ENV_KEYS } from '../../host/tools/testing.js';
import type { ToolDefinition, ToolResult } from '../../host/tools/index.js';
import type { RunCommandInput } from '../../host/tools/testing.js';
import { until } from '../support/wait.js';
import { createFixture } from './fixture.js';
import type { Fixture } from './fixture.js';
import { machineSandbox } from '../support/sandbox.js';

const GRACE_MS = 300;
// Slack for a loaded machine on top of the grace period: spawning, signal delivery, the
// final poll, fsync of the output file.
const MARGIN_MS = 1500;
const MiB = 1024 * 1024;

let fx: Fixture;
beforeEach(async () => {
  fx = await createFixture();
});
afterEach(() => fx.remove());

const sha256 = (bytes: string | Buffer) => createHash('sha256').update(bytes).digest('hex');
const tool = createRunCommandTool({ sandbox: machineSandbox(), graceMs: GRACE_MS });
const runCommandTool = tool;

interface Run {
  result: ToolResult;
  /** The first MiB of the live tail as the sink heard it, chunk by chunk. */
  chunks: { text: string; offset: number }[];
  /** Offset of the last chunk heard. */
  lastOffset: number;
  /** Every pgid reported through onProcessGroup. */
  groups: number[];
  outputPath: string;
  elapsedMs: number;
}

async function run(
  input: RunCommandInput,
  options: {
    using?: ToolDefinition<RunCommandInput>;
    capBytes?: number;
    signal?: AbortSignal;
    onChunk?: (text: string, offset: number) => void;
  } = {},
): Promise<Run> {
  const chunks: Run['chunks'] = [];
  let lastOffset = -1;
  const groups: number[] = [];
  const outputPath = path.join(fx.root, 'output.log');
  const started = performance.now();
  const result = await (options.using ?? tool).execute(input, {
    ...fx.context(options.signal),
    output: {
      path: outputPath,
      capBytes: options.capBytes ?? 4 * MiB,
      onChunk(text, offset) {
        if (offset < MiB) chunks.push({ text, offset });
        lastOffset = offset;
        options.onChunk?.(text, offset);
      },
    },
    onProcessGroup: (pgid) => groups.push(pgid),
  });
  return { result, chunks, lastOffset, groups, outputPath, elapsedMs: performance.now() - started };
}

/** A controller that aborts once the live tail has shown `marker`. */
function abortOn(marker: string): { controller: AbortController; onChunk: (text: string) => void } {
  const controller = new AbortController();
  let seen = '';
  return {
    controller,
    onChunk(text) {
      seen += text;
      if (seen.includes(marker)) controller.abort();
    },
  };
}

/** Processes from `ps`, an oracle independent of the tool: zombies are not running. */
async function runningProcesses(): Promise<{ pid: number; pgid: number }[]> {
  const { stdout } = await promisify(execFile)('ps', ['-A', '-o', 'pid=,pgid=,stat=']);
  return stdout
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([, , state]) => state !== undefined && !state.startsWith('Z'))
    .map(([pid, pgid]) => ({ pid: Number(pid), pgid: Number(pgid) }));
}

function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    expect((error as NodeJS.ErrnoException).code).toBe('ESRCH');
    return false;
  }
}

/**
 * Waits until `kill(-pgid, 0)` fails with ESRCH. Killed orphans stay zombies in the group
 * until init reaps them, which some inits (containers, this CI's VM) do only every second
 * or two; the tool counts a group of zombies as gone, `kill` does not.
 */
async function expectGroupReaped(pgid: number): Promise<void> {
  await until(
    `process group ${pgid} to be gone`,
    () => groupExists(pgid),
    (alive) => !alive,
    {
      timeout: 5000,
      interval: 50,
    },
  );
  expect(groupExists(pgid)).toBe(false);
}

describe('run_command output', () => {
  it('streams stdout and stderr into a 0600 file with its size and sha256', async () => {
    const { result, chunks, groups, outputPath } = await run({
      command: 'echo out; echo err >&2; printf tail',
    });
    const file = await readFile(outputPath);
    const text = file.toString();
    // Two pipes: the order between them is the order the host happened to read them in.
    expect(['err\nout\ntail', 'out\nerr\ntail', 'out\ntailerr\n']).toContain(text);
    expect((await stat(outputPath)).mode & 0o777).toBe(0o600);
    expect(result).toMatchObject({
      status: 'succeeded',
      exit: { code: 0, signal: null },
      outputFile: { path: outputPath, bytes: 12, sha256: sha256(file), truncated: false },
      data: { exitCode: 0, outputBytes: 12, truncated: false, backgroundStopped: false },
    });
    expect(result.content).toMatch(/^exit 0 in \d+ ms, 12 B of output\n/);
    expect(result.content.endsWith(`output\n${text}`)).toBe(true);
    expect(result.summary).toMatch(/^echo out; echo err >&2; printf tail: exit 0 in \d+ ms/);
    expect(chunks.map((chunk) => chunk.text).join('')).toBe(text);
    let offset = 0;
    for (const chunk of chunks) {
      expect(chunk.offset).toBe(offset);
      offset += chunk.text.length;
    }
    expect(groups).toHaveLength(1);
    expect(groups[0]).toBeGreaterThan(1);
  });

  it('keeps a character split across two reads whole in the live tail', async () => {
    // é is C3 A9: its two bytes reach the host in separate reads.
    const { result, chunks } = await run({ command: "printf '\\303'; sleep 0.2; printf '\\251!'" });
    expect(chunks.map((chunk) => chunk.text)).toEqual(['é!']);
    expect(result.content).toMatch(/\né!$/);
  });

  it('shows the model the head and tail of long output and says what was left out', async () => {
    const { result, outputPath } = await run({ command: 'seq 1 20000' });
    const file = await readFile(outputPath, 'utf8');
    expect(file.length).toBe(108894);
    const [header, ...lines] = result.content.split('\n');
    expect(header).toMatch(/^exit 0 in \d+ ms, 106\.3 KiB of output$/);
    expect(lines.slice(0, 3)).toEqual(['1', '2', '3']);
    expect(result.content).toMatch(/\n\[… 90\.\d KiB left out here; the full output is kept …\]\n/);
    expect(result.content.endsWith('19999\n20000\n')).toBe(true);
    expect(result.content.length).toBeLessThan(17 * 1024 + 200);
  });

  it('cuts the excerpt at character boundaries', async () => {
    // 20 000 two-byte characters between two ASCII ones: both 8 KiB edges fall inside one.
    const { result } = await run({
      command: `printf a; i=0; while [ $i -lt 200 ]; do printf '${'é'.repeat(100)}'; i=$((i+1)); done; printf z`,
    });
    expect(result.content).not.toContain('\uFFFD');
    const [, head, marker, tail] = result.content.split('\n');
    expect(Buffer.byteLength(head!)).toBe(8191);
    expect(head!.endsWith('é')).toBe(true);
    expect(marker).toBe('[… 23.1 KiB left out here; the full output is kept …]');
    expect(Buffer.byteLength(tail!)).toBe(8191);
    expect(tail!.startsWith('é')).toBe(true);
  });

  it('reads stderr on after the command closes stdout', async () => {
    const { result } = await run({ command: 'echo before; exec 1>&-; sleep 0.2; echo done >&2' });
    expect(result.status).toBe('succeeded');
    expect(result.content).toMatch(/\nbefore\ndone\n$/);
  });

  it('passes on only the minimal environment, never API keys', async () => {
    const saved = { ...process.env };
    process.env.TETHER_MODEL_API_KEY = 'secret-model-key';
    process.env.OPENAI_API_KEY = 'secret-openai-key';
    try {
      const withExtra = createRunCommandTool({
        sandbox: machineSandbox(),
        extraEnv: { TETHER_WORKSPACE_HINT: 'yes' },
      });
      const { result, outputPath } = await run({ command: 'env' }, { using: withExtra });
      const output = await readFile(outputPath, 'utf8');
      expect(result.status).toBe('succeeded');
      expect(output).not.toContain('secret');
      expect(output).not.toContain('API_KEY');
      const names = output
        .trim()
        .split('\n')
        .map((line) => line.split('=')[0]);
      // The shell adds PWD, SHLVL, OLDPWD or _ depending on which /bin/sh it is; macOS adds
      // __CF_USER_TEXT_ENCODING to every process.
      const fromShell = ['PWD', 'SHLVL', 'OLDPWD', '_', '__CF_USER_TEXT_ENCODING'];
      const allowed = [...COMMAND_ENV_KEYS, 'TETHER_WORKSPACE_HINT', ...fromShell];
      expect(names.filter((name) => !allowed.includes(name!))).toEqual([]);
      expect(names).toContain('TETHER_WORKSPACE_HINT');
      expect(names).toContain('PATH');
    } finally {
      process.env = saved;
    }
  });
});

describe('run_command failures', () => {
  it('reports a non-zero exit as exit_nonzero, with the output', async () => {
    const { result } = await run({ command: 'echo oops >&2; exit 3' });
    expect(result).toMatchObject({
      status: 'failed',
      error: { code: 'exit_nonzero' },
      exit: { code: 3, signal: null },
    });
    expect(result.content).toMatch(/^exit 3 in \d+ ms, 5 B of output\noops\n$/);
  });

  it('reports death by a signal as exit_nonzero', async () => {
    const { result } = await run({ command: 'echo bye; kill -KILL $$' });
    expect(result).toMatchObject({
      status: 'failed',
      error: { code: 'exit_nonzero' },
      // bubblewrap reports a death by a signal as 128 + its number, and the result says both.
      exit: { code: 137, signal: null },
    });
    expect(result.content).toMatch(
      /^exit 137 in \d+ ms \(killed by SIGKILL, or its own exit status 137\), 4 B of output\nbye\n$/,
    );
  });

  it('keeps nothing but the excerpt without an output sink', async () => {
    const result = await tool.execute({ command: 'seq 1 5' }, fx.context());
    expect(result.status).toBe('succeeded');
    expect(result.outputFile).toBeUndefined();
    expect(result.data).not.toHaveProperty('sha256');
    expect(result.content).toMatch(/^exit 0 in \d+ ms, 10 B of output\n1\n2\n3\n4\n5\n$/);
  });

  it('reports a missing binary as exit 127', async () => {
    const { result } = await run({ command: 'nonexistent-cmd-xyz --version' });
    expect(result).toMatchObject({ status: 'failed', error: { code: 'exit_nonzero' } });
    expect(result.exit?.code).toBe(127);
    expect(result.content).toContain('nonexistent-cmd-xyz');
    expect(result.content).toContain('not found');
  });

  it('runs in a cwd inside the workspace and refuses one outside', async () => {
    await mkdir(path.join(fx.workspace, 'sub'));
    const inside = await run({ command: 'pwd', cwd: 'sub' });
    expect(inside.result.content.split('\n')[1]).toBe(path.join(fx.workspace, 'sub'));
    const outside = await run({ command: 'touch ran', cwd: fx.outside });
    expect(outside.result).toMatchObject({
      status: 'failed',
      error: { code: 'path_outside_workspace' },
    });
    const escape = await run({ command: 'touch ran', cwd: '../outside' });
    expect(escape.result.error?.code).toBe('path_outside_workspace');
    expect(existsSync(path.join(fx.outside, 'ran'))).toBe(false);
    expect(outside.groups).toEqual([]);
  });

  it('fails with spawn_failed when the cwd does not exist or is a file', async () => {
    await fx.write('file.txt', 'x');
    const missing = await run({ command: 'true', cwd: 'missing' });
    expect(missing.result).toMatchObject({
      status: 'failed',
      error: { code: 'spawn_failed', message: 'cannot run in missing: no such directory' },
    });
    const file = await run({ command: 'true', cwd: 'file.txt' });
    expect(file.result.error?.code).toBe('spawn_failed');
  });

  it('does not start when already cancelled', async () => {
    const controller = new AbortController();
    controller.abort();
    const { result, groups } = await run({ command: 'touch ran' }, { signal: controller.signal });
    expect(result.error?.code).toBe('cancelled');
    expect(groups).toEqual([]);
    expect(existsSync(path.join(fx.workspace, 'ran'))).toBe(false);
  });

  it('validates its input strictly', () => {
    const parse = (input: unknown) => parseToolInput(runCommandTool, JSON.stringify(input));
    expect(parse({ command: 'ls' })).toEqual({ ok: true, input: { command: 'ls' } });
    expect(parse({ command: '' }).ok).toBe(false);
    expect(parse({ command: 'x'.repeat(32 * 1024) }).ok).toBe(true);
    expect(parse({ command: 'é'.repeat(16 * 1024 + 1) }).ok).toBe(false);
    expect(parse({ command: 'a\0b' }).ok).toBe(false);
    expect(parse({ command: 'ls', timeoutMs: 999 }).ok).toBe(false);
    expect(parse({ command: 'ls', timeoutMs: 24 * 3600 * 1000 + 1 }).ok).toBe(false);
    expect(parse({ command: 'ls', timeoutMs: 1.5e3 + 0.5 }).ok).toBe(false);
    expect(parse({ command: 'ls', shell: 'bash' }).ok).toBe(false);
    const hosts = (sandbox: unknown) => parse({ command: 'npm ci', sandbox });
    expect(hosts({ hosts: ['registry.npmjs.org', '*.github.com'] }).ok).toBe(true);
    expect(hosts({ hosts: [] }).ok).toBe(false);
    expect(hosts({ hosts: ['*.com'] }).ok).toBe(false);
    const both = hosts({ hosts: ['registry.npmjs.org'], network: true });
    expect(both.ok ? '' : both.message).toContain(
      'give sandbox.network or sandbox.hosts, not both',
    );
  });

  it('holds the network of a command that names hosts to them, through the proxy', async () => {
    const listener = createServer((socket) => socket.end());
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const port = (listener.address() as AddressInfo).port;
    try {
      // CONNECT through the proxy its environment names: the proxy's status for each target.
      await fx.write(
        'probe.cjs',
        `const http = require('node:http');
const proxy = new URL(process.env.HTTPS_PROXY);
const ask = (target) => new Promise((resolve) => {
  http.request({ host: proxy.hostname, port: proxy.port, method: 'CONNECT', path: target })
    .once('connect', (response, socket) => { socket.destroy(); resolve(response.statusCode); })
    .once('error', (error) => resolve(error.code)).end();
});
(async () => console.log(await ask(process.argv[2]), await ask(process.argv[3])))();
`,
      );
      const input = {
        command: `node probe.cjs localhost:${port} 127.0.0.1:${port}`,
        sandbox: { hosts: [`localhost:${port}`] },
      };
      const { result } = await run(input);
      expect(result.status, result.content).toBe('succeeded');
      expect(result.content).toContain('200 403');
      const preview = await runCommandTool.preview?.(input, {
        workspace: fx.workspace,
        signal: new AbortController().signal,
      });
      expect(preview).toMatchObject({
        sandbox: { network: true, networkHosts: [`localhost:${port}`] },
      });
    } finally {
      listener.close();
    }
  });

  it('previews the command and the real path of its folder', async () => {
    await mkdir(path.join(fx.workspace, 'sub'));
    const preview = await runCommandTool.preview?.(
      { command: 'npm test', cwd: 'sub' },
      { workspace: fx.workspace, signal: new AbortController().signal },
    );
    expect(preview).toEqual({
      kind: 'command',
      command: 'npm test',
      cwd: path.join(fx.workspace, 'sub'),
      sandbox: { contained: true, kind: 'bwrap', writable: [fx.workspace], network: false },
    });
    const more = await runCommandTool.preview?.(
      { command: 'npm install', sandbox: { network: true, write: ['sub'] } },
      { workspace: fx.workspace, signal: new AbortController().signal },
    );
    expect(more).toMatchObject({
      sandbox: { writable: [fx.workspace, path.join(fx.workspace, 'sub')], network: true },
    });
  });
});

// A leader that handles SIGTERM, one child that handles it with a grandchild, and one child
// that ignores it (`trap '' TERM`, inherited by its grandchild). Each writes its pid.
const TREE = `
echo $$ > pids
sh -c 'sleep 300 & echo $! >> pids; wait' &
echo $! >> pids
sh -c 'trap "" TERM; sleep 300 & echo $! >> pids; while :; do sleep 1; done' &
echo $! >> pids
while [ $(wc -l < pids) -lt 5 ]; do sleep 0.05; done
echo ready
wait
`;

describe('run_command stops its process group', () => {
  it('kills children and grandchildren that ignore SIGTERM on cancel, within the grace', async () => {
    await fx.write('tree.sh', TREE);
    const { controller, onChunk } = abortOn('ready');
    const cancelled = run({ command: 'sh tree.sh' }, { signal: controller.signal, onChunk });
    let abortedAt = 0;
    controller.signal.addEventListener('abort', () => (abortedAt = performance.now()));
    const { result, groups } = await cancelled;
    const stopMs = performance.now() - abortedAt;
    expect(result).toMatchObject({
      status: 'failed',
      error: { code: 'cancelled' },
      exit: { code: 143, signal: null },
      data: { cancelled: true, groupGone: true },
    });
    // The TERM-ignoring pair would hold out for the grace period, but the leader ends on
    // SIGTERM, and with it the sandbox's PID namespace and everything in it.
    expect(stopMs).toBeLessThan(GRACE_MS + MARGIN_MS);
    const pids = (await readFile(path.join(fx.workspace, 'pids'), 'utf8')).trim().split('\n');
    expect(pids).toHaveLength(5);
    // The pids are the sandbox's own (its PID namespace); every process of it is in the group.
    const pgid = groups[0]!;
    const running = await runningProcesses();
    expect(running.filter((p) => p.pgid === pgid)).toEqual([]);
    await expectGroupReaped(pgid);
  });

  it('stops the group at the timeout and says so', async () => {
    await fx.write('tree.sh', TREE);
    const { result, groups, elapsedMs } = await run({ command: 'sh tree.sh', timeoutMs: 1000 });
    expect(result).toMatchObject({
      status: 'failed',
      error: { code: 'timeout' },
      exit: { code: 143 },
      data: { timedOut: true, groupGone: true },
    });
    expect(result.content).toMatch(/^timed out after 1\.\d s \(limit 1\.0 s\) and was stopped, /);
    expect(result.content).toContain('\nready\n');
    expect(elapsedMs).toBeGreaterThanOrEqual(1000);
    expect(elapsedMs).toBeLessThan(1000 + GRACE_MS + MARGIN_MS);
    expect((await runningProcesses()).filter((p) => p.pgid === groups[0])).toEqual([]);
  });

  it('ends background processes a command leaves running when it exits, with its sandbox', async () => {
    // A duration of its own: the suite's other worker may be running a `sleep 300` now.
    const sleep = `sleep 300.${process.pid}`;
    const { result, groups, elapsedMs } = await run({
      command: `setsid sh -c 'trap "" TERM; ${sleep}' & echo started`,
    });
    expect(result).toMatchObject({
      status: 'succeeded',
      exit: { code: 0 },
      data: { groupGone: true },
    });
    expect(elapsedMs).toBeLessThan(GRACE_MS + MARGIN_MS);
    // Even one that left the group (setsid): the PID namespace ends with the command.
    const running = await runningProcesses();
    expect(running.filter((p) => p.pgid === groups[0])).toEqual([]);
    const sleeping = execFileSync('ps', ['-eo', 'args']).toString();
    expect(sleeping.split('\n')).not.toContain(sleep);
  });
});

describe('run_command under a flood of output', () => {
  it('drains 256 MB past the cap without blocking the command, in bounded memory', async () => {
    const baseline = process.memoryUsage().rss;
    let peak = baseline;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    const { result, outputPath } = await run(
      { command: 'yes | head -c 256000000' },
      { capBytes: 8 * MiB },
    ).finally(() => clearInterval(sampler));
    const file = await readFile(outputPath);
    expect(file.length).toBe(8 * MiB);
    expect(result).toMatchObject({
      status: 'succeeded',
      exit: { code: 0 },
      outputFile: { bytes: 8 * MiB, sha256: sha256(file), truncated: true },
      data: { outputBytes: 256_000_000, fileBytes: 8 * MiB, truncated: true },
    });
    expect(result.content).toMatch(
      /^exit 0 in [\d.]+ m?s, 244\.1 MiB of output \(the output file keeps the first 8\.0 MiB\)\n/,
    );
    // Bounds: the host holds at most a MiB of queued writes and a 16 KiB excerpt, so the
    // RSS grows by far less than 100 MiB. A pipe left undrained would block `yes` for good:
    // that the command ends at all shows it is drained (its speed is bench:tools's).
    expect(peak - baseline).toBeLessThan(100 * MiB);
  }, 120_000);

  it('cancels in the middle of a flood and leaves no process behind', async () => {
    const controller = new AbortController();
    const { result, groups, lastOffset } = await run(
      { command: 'yes | head -c 100000000000' },
      {
        capBytes: 8 * MiB,
        signal: controller.signal,
        onChunk: (text, offset) => offset > 20 * MiB && controller.abort(),
      },
    );
    expect(result).toMatchObject({
      status: 'failed',
      error: { code: 'cancelled' },
      data: { groupGone: true, truncated: true },
    });
    expect(lastOffset).toBeGreaterThan(20 * MiB);
    expect((await runningProcesses()).filter((p) => p.pgid === groups[0])).toEqual([]);
    await expectGroupReaped(groups[0]!);
  });
});

describe('killProcessGroup', () => {
  it('kills a group this host did not start, TERM-ignoring members included', async () => {
    const orphan = spawn('/bin/sh', ['-c', 'trap "" TERM; sleep 300 & sleep 300; wait'], {
      detached: true,
      stdio: 'ignore',
    });
    const pgid = orphan.pid!;
    const started = performance.now();
    await expect(killProcessGroup(pgid, GRACE_MS)).resolves.toEqual({ gone: true });
    expect(performance.now() - started).toBeLessThan(GRACE_MS + MARGIN_MS);
    expect((await runningProcesses()).filter((p) => p.pgid === pgid)).toEqual([]);
  });

  it('cuts the grace period short when its signal aborts', async () => {
    const orphan = spawn('/bin/sh', ['-c', 'trap "" TERM; sleep 300'], {
      detached: true,
      stdio: 'ignore',
    });
    const controller = new AbortController();
    const started = performance.now();
    const killing = killProcessGroup(orphan.pid!, 60_000, controller.signal);
    setTimeout(() => controller.abort(), 100);
    await expect(killing).resolves.toEqual({ gone: true });
    expect(performance.now() - started).toBeLessThan(100 + MARGIN_MS);
  });

  it('refuses pgid 0, 1, negative ones and the host’s own group', async () => {
    for (const pgid of [0, 1, -5, 2.5]) {
      await expect(killProcessGroup(pgid, 0)).rejects.toThrow(RangeError);
    }
    const { stdout } = await promisify(execFile)('ps', ['-o', 'pgid=', '-p', `${process.pid}`]);
    await expect(killProcessGroup(Number(stdout.trim()), 0)).rejects.toThrow(/own process group/);
  });

  it('reports a group that no longer exists as gone', async () => {
    const done = spawn('/bin/sh', ['-c', 'exit 0'], { detached: true, stdio: 'ignore' });
    await new Promise((resolve) => done.once('exit', resolve));
    await expect(killProcessGroup(done.pid!, GRACE_MS)).resolves.toEqual({ gone: true });
  });
});
