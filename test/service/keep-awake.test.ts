/**
 * Awake while it works: the real host with a fake `systemd-inhibit` on PATH (a script
 * that records its arguments and then runs the command it was given, as the real one
 * does). The assertion starts with a run, stays while its approval waits, ends once the
 * host has been idle a few seconds after the run, and dies with the host when the host is
 * killed with SIGKILL.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTether, startTether } from '../cli/run-cli.js';
import { startHostProcess } from '../support/host-process.js';
import {
  startScriptedModelServer,
  textTurn,
  toolCallTurn,
} from '../support/scripted-model-server.js';
import { tempDir } from '../support/temp-dir.js';
import { until } from '../support/wait.js';

const FAKE_INHIBIT = `#!/bin/sh
echo "$$ $*" >> "$FAKE_DIR/inhibit"
while [ $# -gt 0 ]; do case "$1" in --*) shift ;; *) break ;; esac; done
exec "$@"
`;

/** Running and not a zombie (a reparented child may wait a moment to be reaped). */
function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

function assertions(dir: string): { pid: number; args: string }[] {
  const file = join(dir, 'inhibit');
  if (!existsSync(file)) return [];
  // Whole lines only: a read can meet a line the fake is still writing.
  return readFileSync(file, 'utf8')
    .split('\n')
    .slice(0, -1)
    .map((line) => {
      const [pid, ...args] = line.split(' ');
      return { pid: Number(pid), args: args.join(' ') };
    });
}

describe.skipIf(!existsSync('/proc/self/stat'))('keep-awake on the real host', () => {
  it('holds systemd-inhibit from a run to its end, through its approval, and not past a SIGKILL', async () => {
    await using model = await startScriptedModelServer();
    await using temp = tempDir('tether-keep-awake-');
    const bin = join(temp.path, 'fake-bin');
    const state = join(temp.path, 'fake-state');
    mkdirSync(bin);
    mkdirSync(state);
    writeFileSync(join(bin, 'systemd-inhibit'), FAKE_INHIBIT);
    chmodSync(join(bin, 'systemd-inhibit'), 0o755);
    await using host = await startHostProcess({
      model: model.baseUrl,
      env: { PATH: `${bin}:${process.env['PATH'] ?? ''}`, FAKE_DIR: state },
    });
    expect(assertions(state)).toEqual([]);
    const remote = join(temp.path, 'remote.json');
    const home = temp.path;
    const paired = await runTether(
      ['remote', 'pair', await host.pairLink(), '--state', remote],
      home,
    );
    expect(paired.code).toBe(0);

    const submitWrite = async (path: string) => {
      const input = { path, content: 'hi\n', expectedSha256: null };
      model.push(
        toolCallTurn([
          { id: `call_${path}`, name: 'write_file', arguments: JSON.stringify(input) },
        ]),
        textTurn('Done.'),
      );
      const waiting = startTether(
        ['remote', 'submit', `Write ${path}`, '--wait', '--state', remote],
        home,
      );
      const [, approvalId] = await waiting.waitFor(
        /^ {2}answer: tether remote approve (apr_\S+) /m,
      );
      return { waiting, approvalId: approvalId! };
    };

    const first = await submitWrite('one.txt');
    const [held] = await until(
      'the assertion to start',
      () => assertions(state),
      (a) => a.length === 1,
    );
    expect(held!.args).toBe(
      '--what=sleep:idle --who=Tether --why=A Tether run is working or waiting for approval --mode=block cat',
    );
    // The run waits for approval: the assertion stays.
    expect(isAlive(held!.pid)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(isAlive(held!.pid)).toBe(true);

    const approved = await runTether(
      ['remote', 'approve', first.approvalId, '--yes', '--state', remote],
      home,
    );
    expect(approved.code).toBe(0);
    expect((await first.waiting.exit).code).toBe(0);
    await until(
      'the assertion to end a few seconds after the run',
      () => isAlive(held!.pid),
      (alive) => !alive,
    );
    // The host logs it after the release: the line may reach the file a moment later.
    await until(
      'the host to log the release',
      () => readFileSync(join(host.dataDir, 'logs', 'host.log'), 'utf8'),
      (log) => log.includes('sleep allowed again'),
    );

    const second = await submitWrite('two.txt');
    const [, again] = await until(
      'a new assertion',
      () => assertions(state),
      (a) => a.length === 2,
    );
    expect(isAlive(again!.pid)).toBe(true);
    await host.kill();
    await until(
      'the assertion to die with the host',
      () => isAlive(again!.pid),
      (alive) => !alive,
    );
    second.waiting.signal('SIGTERM');
    await second.waiting.exit;
  });

  it('holds nothing with power.keepAwake "never"', async () => {
    await using model = await startScriptedModelServer();
    await using temp = tempDir('tether-keep-awake-never-');
    const bin = join(temp.path, 'fake-bin');
    const state = join(temp.path, 'fake-state');
    mkdirSync(bin);
    mkdirSync(state);
    writeFileSync(join(bin, 'systemd-inhibit'), FAKE_INHIBIT);
    chmodSync(join(bin, 'systemd-inhibit'), 0o755);
    await using host = await startHostProcess({
      model: model.baseUrl,
      config: { power: { keepAwake: 'never' } },
      env: { PATH: `${bin}:${process.env['PATH'] ?? ''}`, FAKE_DIR: state },
    });
    const remote = join(temp.path, 'remote.json');
    const paired = await runTether(
      ['remote', 'pair', await host.pairLink(), '--state', remote],
      temp.path,
    );
    expect(paired.code).toBe(0);
    model.push(textTurn('Hello.'));
    const done = await runTether(
      ['remote', 'submit', 'Hi', '--wait', '--state', remote],
      temp.path,
    );
    expect(done.code).toBe(0);
    expect(assertions(state)).toEqual([]);
  });

  it('refuses a power.keepAwake that is not "runs", "never" or hours', async () => {
    await using temp = tempDir('tether-keep-awake-bad-');
    const config = join(temp.path, 'config.json');
    writeFileSync(config, JSON.stringify({ power: { keepAwake: 'always' } }), { mode: 0o600 });
    const started = await runTether(
      ['start', '--data', join(temp.path, 'data'), '--config', config, '--port', '0'],
      temp.path,
    );
    expect(started.code).toBe(2);
    expect(started.stderr).toContain(
      'power.keepAwake: expected "runs", "never" or a number of hours (up to 8760)',
    );
  });
});
