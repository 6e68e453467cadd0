/**
 * `tether remote approve` / `deny` as child processes against the real host process:
 * the host asks before `write_file`, `submit --wait` shows the pending approval, and the
 * CLI's recomputed digest is the one the host accepts; approve asks `Approve? [y/N]` on a
 * terminal and, without one, refuses unless `--yes`. Needs a host that offers
 * `write_file` with its ask-first policy (start-host wiring the write tools).
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostProcess } from '../support/host-process.js';
import { startModelHost, type ModelHost } from '../support/model-host.js';
import {
  textTurn,
  toolCallTurn,
  type ScriptedModelServer,
} from '../support/scripted-model-server.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';
import { runTether, startTether } from './run-cli.js';

const bin = new URL('../../bin/tether.js', import.meta.url).pathname;
/** The device that approves: `approved by` names it. */
const DEVICE_NAME = 'Approving laptop';
let served: ModelHost;
let host: HostProcess;
let model: ScriptedModelServer;
let homeDir: TempDir;
let home: string;
let state: string;

beforeAll(async () => {
  served = await startModelHost();
  ({ model, host } = served);
  homeDir = tempDir('tether-approval-e2e-', { realpath: false });
  home = homeDir.path;
  state = join(home, 'remote.json');
  const paired = await runTether(
    ['remote', 'pair', await host.pairLink(), '--state', state, '--name', DEVICE_NAME],
    home,
  );
  expect(paired.code).toBe(0);
});

afterAll(async () => {
  await served?.dispose();
  homeDir.remove();
});

/** Scripts a write of `path`, submits with --wait, and resolves once it waits for approval. */
async function submitWrite(path: string) {
  const input = { path, content: 'hi\n', expectedSha256: null };
  model.push(
    toolCallTurn([{ id: `call_${path}`, name: 'write_file', arguments: JSON.stringify(input) }]),
    textTurn('Done.'),
  );
  const waiting = startTether(
    ['remote', 'submit', `Write ${path}`, '--wait', '--state', state],
    home,
  );
  const [, approvalId] = await waiting.waitFor(/^ {2}answer: tether remote approve (apr_\S+) /m);
  return { waiting, approvalId: approvalId! };
}

describe('approvals on the real host', () => {
  it('approve shows the write with its diff, and the host writes the file', async () => {
    const { waiting, approvalId } = await submitWrite('notes.txt');
    const refused = await runTether(['remote', 'approve', approvalId, '--state', state], home);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('stdin is not a terminal');
    expect(refused.stderr).toContain('pass --yes');
    expect(existsSync(join(host.workspace, 'notes.txt'))).toBe(false);

    const approved = await runTether(
      ['remote', 'approve', approvalId, '--yes', '--state', state],
      home,
    );
    expect(approved).toMatchObject({ code: 0, stderr: '' });
    expect(approved.stdout).toContain('  writes:  notes.txt\n');
    expect(approved.stdout).toMatch(/^ {2}real path: \/\S+\/notes\.txt$/m);
    expect(approved.stdout).toContain('  │ +hi\n');
    expect(approved.stdout).toContain(
      '  input: {"path":"notes.txt","content":"hi\\n","expectedSha256":null}\n',
    );
    expect(approved.stdout.endsWith('approved\n')).toBe(true);

    const done = await waiting.exit;
    expect(done.code).toBe(0);
    expect(done.stdout).toMatch(
      new RegExp(`^approval ${approvalId}: approved by ${DEVICE_NAME} \\([\\w-]{22}\\)$`, 'm'),
    );
    expect(done.stdout).toMatch(/^tool write_file: succeeded/m);
    expect(readFileSync(join(host.workspace, 'notes.txt'), 'utf8')).toBe('hi\n');

    const again = await runTether(
      ['remote', 'approve', approvalId, '--yes', '--state', state],
      home,
    );
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('[not_found]');
  });

  it('deny with a note keeps the file unwritten, and the run goes on', async () => {
    const { waiting, approvalId } = await submitWrite('other.txt');
    const denied = await runTether(
      ['remote', 'deny', approvalId, '--note', 'not this one', '--state', state],
      home,
    );
    expect(denied.code).toBe(0);
    expect(denied.stdout.endsWith('denied\n')).toBe(true);

    const done = await waiting.exit;
    expect(done.code).toBe(0);
    expect(done.stdout).toMatch(
      new RegExp(`^approval ${approvalId}: denied by ${DEVICE_NAME} \\([\\w-]{22}\\)$`, 'm'),
    );
    expect(done.stdout).toMatch(/^tool write_file: failed/m);
    expect(existsSync(join(host.workspace, 'other.txt'))).toBe(false);
  });

  it('approve on a terminal (script(1) gives it one) asks first and approves on y', async () => {
    const { waiting, approvalId } = await submitWrite('asked.txt');
    const tty = onTerminal(['remote', 'approve', approvalId, '--state', state]);
    await tty.waitFor(/Approve\? \[y\/N\] $/);
    expect(existsSync(join(host.workspace, 'asked.txt'))).toBe(false);
    tty.type('y\n');
    const result = await tty.exit;
    expect(result.output).toMatch(/^ {2}writes: {2}asked\.txt\r?$/m);
    expect(result.output).toMatch(/^approved\r?$/m);
    expect(result.code).toBe(0);
    expect((await waiting.exit).code).toBe(0);
    expect(readFileSync(join(host.workspace, 'asked.txt'), 'utf8')).toBe('hi\n');
  });
});

/** `tether <args>` with a pseudo-terminal as its stdin and stdout, by util-linux script(1). */
function onTerminal(args: readonly string[]) {
  const line = [process.execPath, bin, ...args].map((arg) => `'${arg}'`).join(' ');
  const child = spawn('script', ['-qec', line, '/dev/null'], {
    env: { PATH: process.env['PATH'] ?? '', HOME: home, TERM: 'dumb' },
  });
  let output = '';
  const seen = new Set<() => void>();
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    for (const check of seen) check();
  });
  const exit = new Promise<{ code: number | null; output: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, output })),
  );
  return {
    exit,
    type: (text: string) => child.stdin.write(text),
    waitFor: (pattern: RegExp) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!pattern.test(output)) return;
          seen.delete(check);
          resolve();
        };
        seen.add(check);
        check();
        void exit.then(() => seen.has(check) && reject(new Error(`exited first:\n${output}`)));
      }),
  };
}
