/**
 * The sleep assertion on its own, with fakes on PATH: on macOS `caffeinate -i -w <pid>`
 * for the host's pid (the fake, like the real one, ends when that pid does, so a SIGKILL
 * of the host ends it), and `power.keepAwake` in hours letting a long wait for approval
 * go to sleep (a fake clock and a fake runtime's run list).
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../host/log/index.js';
import { keepAwake } from '../../host/power/testing.js';
import type { Run } from '../../protocol/index.js';
import { tempDir } from '../support/temp-dir.js';
import { until } from '../support/wait.js';

const FAKE_CAFFEINATE = `#!/bin/sh
echo "$$ $*" >> "$FAKE_DIR/caffeinate"
[ "$1" = "-i" ] && [ "$2" = "-w" ] || exit 64
while kill -0 "$3" 2>/dev/null; do sleep 0.05; done
`;
const FAKE_INHIBIT = `#!/bin/sh
echo "$$ $*" >> "$FAKE_DIR/inhibit"
while [ $# -gt 0 ]; do case "$1" in --*) shift ;; *) break ;; esac; done
exec "$@"
`;

const originalPath = process.env['PATH'];
afterEach(() => {
  process.env['PATH'] = originalPath;
  delete process.env['FAKE_DIR'];
});

function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

function fakes(root: string) {
  const bin = join(root, 'bin');
  const state = join(root, 'state');
  mkdirSync(bin);
  mkdirSync(state);
  for (const [name, script] of [
    ['caffeinate', FAKE_CAFFEINATE],
    ['systemd-inhibit', FAKE_INHIBIT],
  ] as const) {
    writeFileSync(join(bin, name), script);
    chmodSync(join(bin, name), 0o755);
  }
  // Whole lines only: a read can meet a line the fake is still writing ("87" of "8755 …").
  const lines = (name: string) =>
    existsSync(join(state, name))
      ? readFileSync(join(state, name), 'utf8')
          .split('\n')
          .slice(0, -1)
          .map((line) => line.split(' '))
      : [];
  return { bin, state, lines };
}

const silent = () => createLogger({ level: 'error', sink: { write: () => undefined } });

describe.skipIf(!existsSync('/proc/self/stat'))('the sleep assertion', () => {
  it('on macOS is caffeinate -i -w <host pid>, and ends when a SIGKILLed host does', async () => {
    await using temp = tempDir('tether-caffeinate-');
    const fake = fakes(temp.path);
    const power = new URL('../../dist/host/power/testing.js', import.meta.url).href;
    // A stand-in host: keeps awake (platform darwin) for one active run, then waits.
    const script = `
      const { keepAwake } = await import(${JSON.stringify(power)});
      const runs = [{ id: 'run_1', state: 'running' }];
      keepAwake({
        runtime: { onCommit: () => () => {}, listRuns: () => ({ runs }), runStateChanges: 1 },
        policy: 'runs', platform: 'darwin',
        log: { info() {}, warn() {}, error() {}, debug() {} },
      });
      setInterval(() => {}, 1000);
    `;
    const host = spawn(process.execPath, ['--input-type=module', '-e', script], {
      env: { PATH: `${fake.bin}:${originalPath ?? ''}`, FAKE_DIR: fake.state },
      stdio: 'ignore',
    });
    const [line] = await until(
      'caffeinate to start',
      () => fake.lines('caffeinate'),
      (l) => l.length === 1,
    );
    const [pid, ...args] = line!;
    expect(args).toEqual(['-i', '-w', String(host.pid)]);
    expect(isAlive(Number(pid))).toBe(true);
    host.kill('SIGKILL');
    await until(
      'caffeinate to end with the host',
      () => isAlive(Number(pid)),
      (alive) => !alive,
    );
  });

  it('looks at the runs after a commit only when a run changed state (issue 26)', async () => {
    await using temp = tempDir('tether-keep-awake-lists-');
    const fake = fakes(temp.path);
    process.env['PATH'] = `${fake.bin}:${originalPath ?? ''}`;
    process.env['FAKE_DIR'] = fake.state;
    let runStateChanges = 1;
    let lists = 0;
    let commit = (): void => undefined;
    const handle = keepAwake({
      runtime: {
        onCommit: (listener) => {
          commit = () => listener([]);
          return () => undefined;
        },
        listRuns: () => {
          lists++;
          return { runs: [{ id: 'run_1', state: 'running' } as Run] };
        },
        get runStateChanges() {
          return runStateChanges;
        },
      },
      policy: 'runs',
      platform: 'linux',
      log: silent(),
    });
    try {
      expect(lists).toBe(1);
      commit();
      commit();
      await new Promise((resolve) => setImmediate(resolve));
      expect(lists).toBe(1);
      runStateChanges++;
      commit();
      commit();
      await new Promise((resolve) => setImmediate(resolve));
      expect(lists).toBe(2);
    } finally {
      handle.stop();
    }
  });

  it('keeps one assertion through an idle gap shorter than releaseAfterMs (issue 26)', async () => {
    await using temp = tempDir('tether-keep-awake-linger-');
    const fake = fakes(temp.path);
    process.env['PATH'] = `${fake.bin}:${originalPath ?? ''}`;
    process.env['FAKE_DIR'] = fake.state;
    let runs: Pick<Run, 'id' | 'state'>[] = [{ id: 'run_1', state: 'running' }];
    const logged: string[] = [];
    const handle = keepAwake({
      runtime: {
        onCommit: () => () => undefined,
        listRuns: () => ({ runs: runs as Run[] }),
        runStateChanges: 1,
      },
      policy: 'runs',
      platform: 'linux',
      log: createLogger({ level: 'info', sink: { write: (line) => logged.push(line) } }),
      releaseAfterMs: 5_000,
    });
    const said = (text: string) => logged.filter((line) => line.includes(text)).length;
    try {
      const [line] = await until(
        'the assertion',
        () => fake.lines('inhibit'),
        (l) => l.length === 1,
      );
      const pid = Number(line![0]);
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      runs = [];
      handle.check();
      vi.advanceTimersByTime(4_999);
      runs = [{ id: 'run_2', state: 'queued' }];
      handle.check();
      runs = [];
      handle.check();
      vi.advanceTimersByTime(4_999);
      expect(said('keeping the machine awake')).toBe(1);
      expect(said('sleep allowed again')).toBe(0);
      expect(
        isAlive(pid),
        `the assertion's process ended early; logged:\n${logged.join('\n')}`,
      ).toBe(true);
      vi.advanceTimersByTime(1);
      expect(said('sleep allowed again')).toBe(1);
      vi.useRealTimers();
      await until(
        'the assertion to end after 5 s idle',
        () => isAlive(pid),
        (alive) => !alive,
      );
      expect(fake.lines('inhibit')).toHaveLength(1);
    } finally {
      vi.useRealTimers();
      handle.stop();
    }
  });

  it('with keepAwake in hours, lets a long wait for approval sleep', async () => {
    await using temp = tempDir('tether-keep-awake-hours-');
    const fake = fakes(temp.path);
    process.env['PATH'] = `${fake.bin}:${originalPath ?? ''}`;
    process.env['FAKE_DIR'] = fake.state;
    let now = 1_000_000;
    let runs: Pick<Run, 'id' | 'state'>[] = [{ id: 'run_1', state: 'running' }];
    let runStateChanges = 1;
    const setRuns = (next: Pick<Run, 'id' | 'state'>[]) => {
      runs = next;
      runStateChanges++;
    };
    let commit = (): void => undefined;
    const logged: string[] = [];
    const handle = keepAwake({
      runtime: {
        onCommit: (listener) => {
          commit = () => listener([]);
          return () => undefined;
        },
        listRuns: () => ({ runs: runs as Run[] }),
        get runStateChanges() {
          return runStateChanges;
        },
      },
      policy: 2,
      platform: 'linux',
      log: createLogger({ level: 'info', sink: { write: (line) => logged.push(line) } }),
      now: () => now,
      releaseAfterMs: 0,
    });
    try {
      const [line] = await until(
        'the assertion',
        () => fake.lines('inhibit'),
        (l) => l.length === 1,
      );
      const pid = Number(line![0]);
      setRuns([{ id: 'run_1', state: 'waiting_for_approval' }]);
      commit();
      // The commit's look at the runs comes on the next turn: the wait is counted from it.
      await new Promise((resolve) => setImmediate(resolve));
      now += 1.5 * 3_600_000;
      handle.check();
      expect(
        isAlive(pid),
        `the assertion's process ended early; logged:\n${logged.join('\n')}`,
      ).toBe(true);
      now += 3_600_000;
      handle.check();
      await until(
        'the assertion to end after 2 h of waiting',
        () => isAlive(pid),
        (a) => !a,
      );
      // A new active run holds it again.
      setRuns([...runs, { id: 'run_2', state: 'queued' }]);
      handle.check();
      await until(
        'a new assertion',
        () => fake.lines('inhibit'),
        (l) => l.length === 2,
      );
    } finally {
      handle.stop();
    }
    const last = Number(fake.lines('inhibit')[1]![0]);
    await until(
      'stop() to release it',
      () => isAlive(last),
      (alive) => !alive,
    );
  });
});
