/**
 * `tether service install | uninstall | restart | status | logs` as child processes against
 * fake `launchctl`, `systemctl` and `loginctl` on PATH (test/service/fake-tools.ts): the
 * file written (a plist plistlib and plutil accept, a unit systemd-analyze accepts), the
 * arguments given to the service manager, no model key anywhere in the file, and what
 * status, logs and restart say when the host keeps failing. The failure is real: the real
 * `tether start` on a port this test holds, its output appended to `logs/service.log` as
 * the service manager does.
 */
import { spawnSync } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:net';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runTether } from '../cli/run-cli.js';
import { tempDir } from '../support/temp-dir.js';
import { writeFakeTools } from './fake-tools.js';
import { systemdMissing, verifyUnit } from './systemd-tools.js';

const SECRETS = {
  TETHER_MODEL_API_KEY: 'sk-never-in-a-service-file-1',
  DEEPSEEK_API_KEY: 'sk-never-in-a-service-file-2',
};
const uid = process.getuid?.() ?? 0;
const node = process.execPath;
const script = new URL('../../bin/tether.js', import.meta.url).pathname;

const Plist = z.object({
  Label: z.string(),
  ProgramArguments: z.array(z.string()),
  EnvironmentVariables: z.record(z.string(), z.string()),
  WorkingDirectory: z.string(),
  RunAtLoad: z.literal(true),
  KeepAlive: z.object({ SuccessfulExit: z.literal(false) }),
  ThrottleInterval: z.number(),
  StandardOutPath: z.string(),
  StandardErrorPath: z.string(),
});

/** The plist as Python's plistlib reads it (the same parser on every machine). */
function parsePlist(path: string): unknown {
  const python = spawnSync(
    'python3',
    [
      '-c',
      'import json,plistlib,sys; print(json.dumps(plistlib.load(open(sys.argv[1],"rb"))))',
      path,
    ],
    { encoding: 'utf8' },
  );
  if (python.status !== 0) throw new Error(`plistlib did not parse ${path}: ${python.stderr}`);
  return JSON.parse(python.stdout);
}

const plutil = spawnSync('sh', ['-c', 'command -v plutil']).status === 0;

function setup(prefix: string) {
  const temp = tempDir(prefix);
  const home = join(temp.path, 'home');
  const data = join(temp.path, `data dir & <more> "100%" $HOME ü`);
  const workspace = join(temp.path, 'workspace %n');
  mkdirSync(home);
  mkdirSync(workspace);
  const fakes = writeFakeTools(temp.path);
  return { temp, home, data, workspace, fakes };
}

/** A port taken by this test process, as another program would take the host's port. */
async function holdPort(): Promise<{ port: number; server: Server } & AsyncDisposable> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    port: address.port,
    server,
    [Symbol.asyncDispose]: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The real host failing to start on `port`, its output appended where the service's goes. */
async function failToStart(home: string, data: string, port: number): Promise<string> {
  const failed = await runTether(['start', '--data', data, '--port', String(port)], home, {});
  expect(failed.code).toBe(1);
  mkdirSync(join(data, 'logs'), { recursive: true });
  appendFileSync(join(data, 'logs', 'service.log'), `${failed.stdout}${failed.stderr}`);
  return failed.stderr.trim();
}

describe('tether service on macOS (launchd, chosen by TETHER_SERVICE_MANAGER)', () => {
  it('install writes a valid LaunchAgent without secrets and bootstraps it; again replaces it', async () => {
    const { temp, home, data, workspace, fakes } = setup('tether-service-launchd-');
    using _ = temp;
    const env = { ...fakes.env, ...SECRETS, TETHER_SERVICE_MANAGER: 'launchd' };
    const args = ['service', 'install', '--data', data, '--workspace', workspace, '--port', '9123'];
    const installed = await runTether(args, home, env);
    expect(installed.stderr).toContain('TETHER_MODEL_API_KEY is set in this shell');
    expect(installed.stderr).toContain('tether model set-key');
    expect(installed.code).toBe(0);
    const plistPath = join(home, 'Library', 'LaunchAgents', 'dev.tether.host.plist');
    expect(installed.stdout).toContain(`installed ${plistPath} (launchd)`);

    const text = readFileSync(plistPath, 'utf8');
    for (const secret of Object.values(SECRETS)) expect(text).not.toContain(secret);
    const plist = Plist.parse(parsePlist(plistPath));
    expect(plist.Label).toBe('dev.tether.host');
    expect(plist.ProgramArguments).toEqual([
      node,
      script,
      'start',
      '--data',
      data,
      '--port',
      '9123',
      '--workspace',
      workspace,
    ]);
    expect(Object.keys(plist.EnvironmentVariables).sort()).toEqual(['PATH', 'TETHER_KEY_STORE']);
    expect(plist.EnvironmentVariables['TETHER_KEY_STORE']).toBe('file');
    expect(plist.WorkingDirectory).toBe(data);
    expect(plist.StandardOutPath).toBe(join(data, 'logs', 'service.log'));
    expect(existsSync(join(data, 'logs'))).toBe(true);
    expect(fakes.calls()).toEqual([
      `launchctl bootout gui/${uid}/dev.tether.host`,
      `launchctl bootstrap gui/${uid} ${plistPath}`,
    ]);

    const again = await runTether([...args.slice(0, -2), '--port', '9124'], home, env);
    expect(again.code).toBe(0);
    expect(Plist.parse(parsePlist(plistPath)).ProgramArguments).toContain('9124');
    // The loaded one goes first, and launchd is given time to let go of it.
    expect(fakes.calls().slice(2)).toEqual([
      `launchctl bootout gui/${uid}/dev.tether.host`,
      `launchctl print gui/${uid}/dev.tether.host`,
      `launchctl bootstrap gui/${uid} ${plistPath}`,
    ]);

    // The admin file a running host leaves gives status its URL.
    writeFileSync(
      join(data, 'admin.json'),
      JSON.stringify({
        url: 'http://127.0.0.1:9124',
        token: 't'.repeat(43),
        pid: 4242,
        instance: 'i',
      }),
      { mode: 0o600 },
    );
    // No --data: status reads the installed service's data directory.
    const status = await runTether(['service', 'status'], home, env);
    expect(status.stdout).toContain(`data: ${data}\n`);
    expect(status.stdout).toContain('loaded: yes\n');
    // The environment block's own `pid = 1` (two tabs) is not the job's.
    expect(status.stdout).toContain('running: yes, pid 4242\n');
    expect(status.stdout).toContain('last exit: none\n');
    expect(status.stdout).toContain('url: http://127.0.0.1:9124\n');
    expect(status.code).toBe(0);
    expect(fakes.calls().at(-1)).toBe(`launchctl print gui/${uid}/dev.tether.host`);

    const removed = await runTether(['service', 'uninstall'], home, env);
    expect(removed.code).toBe(0);
    expect(removed.stdout).toContain('the data directory is kept');
    expect(existsSync(plistPath)).toBe(false);
    expect(existsSync(data)).toBe(true);
    expect(fakes.calls().at(-1)).toBe(`launchctl bootout gui/${uid}/dev.tether.host`);

    const after = await runTether(['service', 'status', '--data', data], home, env);
    expect(after.code).toBe(3);
    expect(after.stdout).toContain('loaded: no\n');
    expect(after.stdout).toContain('(not installed)');
    expect(after.stdout).toContain('install it with: tether service install');
  });

  it('plutil -lint accepts the plist', async (ctx) => {
    if (!plutil) ctx.skip('plutil is macOS only: plistlib reads the plist in the test above');
    const { temp, home, data, workspace, fakes } = setup('tether-service-plutil-');
    using _ = temp;
    const env = { ...fakes.env, TETHER_SERVICE_MANAGER: 'launchd' };
    const installed = await runTether(
      ['service', 'install', '--data', data, '--workspace', workspace],
      home,
      env,
    );
    expect(installed.code).toBe(0);
    const plistPath = join(home, 'Library', 'LaunchAgents', 'dev.tether.host.plist');
    const lint = spawnSync('plutil', ['-lint', plistPath], { encoding: 'utf8' });
    expect(lint.stdout.trim()).toBe(`${plistPath}: OK`);
  });

  it('a job that keeps failing: status says why and who holds the port; restart kickstarts it', async () => {
    const { temp, home, data, workspace, fakes } = setup('tether-service-launchd-dead-');
    using _ = temp;
    await using held = await holdPort();
    const env = { ...fakes.env, TETHER_SERVICE_MANAGER: 'launchd' };
    const port = String(held.port);
    const args = ['service', 'install', '--data', data, '--workspace', workspace, '--port', port];
    expect((await runTether(args, home, env)).code).toBe(0);
    fakes.setJob('crashed');
    const reason = await failToStart(home, data, held.port);
    expect(reason).toContain(`port ${port} on 127.0.0.1 is already in use`);

    const status = await runTether(['service', 'status'], home, env);
    expect(status.code).toBe(3);
    expect(status.stdout).toContain('running: no (launchd: spawn scheduled)\n');
    expect(status.stdout).toContain('last exit: 1\n');
    expect(status.stdout).toContain(`last error: ${reason}\n`);
    expect(status.stdout).toContain(`port ${port} is in use by pid ${process.pid} (`);
    expect(status.stdout).toContain(`fix: stop pid ${process.pid} (kill ${process.pid})`);
    expect(status.stdout).toContain('then: ');
    expect(status.stdout).not.toContain('service install');

    const restarted = await runTether(['service', 'restart'], home, env);
    expect(restarted.code).toBe(0);
    expect(fakes.calls().slice(-2)).toEqual([
      `launchctl print gui/${uid}/dev.tether.host`,
      `launchctl kickstart -k gui/${uid}/dev.tether.host`,
    ]);
  });

  it('a job killed by a signal: launchd prints no exit code, only the signal', async () => {
    const { temp, home, data, workspace, fakes } = setup('tether-service-launchd-killed-');
    using _ = temp;
    const env = { ...fakes.env, TETHER_SERVICE_MANAGER: 'launchd' };
    const args = ['service', 'install', '--data', data, '--workspace', workspace];
    expect((await runTether(args, home, env)).code).toBe(0);
    fakes.setJob('killed');
    const status = await runTether(['service', 'status'], home, env);
    expect(status.code).toBe(3);
    expect(status.stdout).toContain('running: no (launchd: not running)\n');
    expect(status.stdout).toContain('last exit: signal Killed: 9\n');
    expect(status.stdout).toContain('see its output with: tether service logs');
  });
});

describe('tether service on Linux (systemd user unit)', () => {
  it('install writes a unit without secrets that systemd loads, and drives systemctl --user', async () => {
    const { temp, home, data, workspace, fakes } = setup('tether-service-systemd-');
    using _ = temp;
    const env = { ...fakes.env, ...SECRETS, TETHER_SERVICE_MANAGER: 'systemd' };
    const args = ['service', 'install', '--data', data, '--workspace', workspace];
    const installed = await runTether(args, home, env);
    expect(installed.code).toBe(0);
    // A user unit runs with a login session unless the user lingers.
    expect(installed.stderr).toContain('note: the service runs while you are logged in');
    expect(installed.stderr).toContain('sudo loginctl enable-linger $USER');
    const unitPath = join(home, '.config', 'systemd', 'user', 'tether.service');
    const unit = readFileSync(unitPath, 'utf8');
    for (const secret of Object.values(SECRETS)) expect(unit).not.toContain(secret);
    expect(unit).toContain('Restart=on-failure\n');
    expect(unit).toContain('WantedBy=default.target\n');
    const quoted = (path: string) => path.replace(/["\\]/g, '\\$&').replace(/%/g, '%%');
    expect(unit).toContain(
      `ExecStart="${node}" "${script}" "start" "--data" "${quoted(data).replace(/\$/g, '$$$$')}" "--port" "8787" "--workspace" "${quoted(workspace)}"\n`,
    );
    expect(unit).toContain(`WorkingDirectory=${data.replace(/%/g, '%%')}\n`);
    expect(unit).toContain('"TETHER_KEY_STORE=file"');
    expect(unit).toContain(
      `StandardOutput=append:${join(data, 'logs', 'service.log').replace(/%/g, '%%')}\n`,
    );
    if (systemdMissing === null) expect(verifyUnit(unitPath)).toEqual({ code: 0, output: '' });
    expect(fakes.calls()).toEqual([
      'systemctl --user daemon-reload',
      'systemctl --user enable tether.service',
      'systemctl --user restart tether.service',
      `loginctl show-user ${userInfo().username} --property=Linger --value`,
    ]);

    fakes.setLinger(true);
    const lingering = await runTether(args, home, env);
    expect(lingering.code).toBe(0);
    expect(lingering.stderr).not.toContain('loginctl');

    const status = await runTether(['service', 'status'], home, env);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(`data: ${data}\n`);
    expect(status.stdout).toContain('running: yes, pid 4343\n');

    const removed = await runTether(['service', 'uninstall'], home, env);
    expect(removed).toMatchObject({ code: 0, stderr: '' });
    expect(existsSync(unitPath)).toBe(false);
    expect(fakes.calls().slice(-2)).toEqual([
      'systemctl --user disable --now tether.service',
      'systemctl --user daemon-reload',
    ]);
    const after = await runTether(['service', 'status', '--data', data], home, env);
    expect(after.code).toBe(3);
    expect(after.stdout).toContain('running: no\n');
  });

  it('a unit that keeps failing: status shows its last error and the port holder, never reinstall', async () => {
    const { temp, home, data, workspace, fakes } = setup('tether-service-systemd-dead-');
    using _ = temp;
    await using held = await holdPort();
    const env = { ...fakes.env, TETHER_SERVICE_MANAGER: 'systemd' };
    const port = String(held.port);
    const args = ['service', 'install', '--data', data, '--workspace', workspace, '--port', port];
    expect((await runTether(args, home, env)).code).toBe(0);
    fakes.setJob('crashed');
    const reason = await failToStart(home, data, held.port);

    const status = await runTether(['service', 'status'], home, env);
    expect(status.code).toBe(3);
    expect(status.stdout).toContain('running: no (systemd: activating/auto-restart)\n');
    expect(status.stdout).toContain('last exit: 1\n');
    expect(status.stdout).toContain(`last error: ${reason}\n`);
    expect(status.stdout).toContain(`port ${port} is in use by pid ${process.pid} (`);
    expect(status.stdout).not.toContain('service install');

    fakes.setJob('killed');
    const killed = await runTether(['service', 'status'], home, env);
    expect(killed.stdout).toContain('last exit: signal 9 (SIGKILL)\n');

    fakes.setJob('running');
    const restarted = await runTether(['service', 'restart'], home, env);
    expect(restarted.code).toBe(0);
    expect(fakes.calls().slice(-3)).toEqual([
      'systemctl --user daemon-reload',
      'systemctl --user enable tether.service',
      'systemctl --user restart tether.service',
    ]);
    const running = await runTether(['service', 'status'], home, env);
    expect(running.code).toBe(0);
    expect(running.stdout).not.toContain('last error');
  });

  it('without a user bus: install says how to get one; uninstall still removes the unit', async () => {
    const { temp, home, data, workspace, fakes } = setup('tether-service-systemd-nobus-');
    using _ = temp;
    const env = { ...fakes.env, TETHER_SERVICE_MANAGER: 'systemd' };
    const args = ['service', 'install', '--data', data, '--workspace', workspace];
    expect((await runTether(args, home, env)).code).toBe(0);
    const units = join(home, '.config', 'systemd', 'user');
    const link = join(units, 'default.target.wants', 'tether.service');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);

    fakes.setBus(false);
    const again = await runTether(args, home, env);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('cannot reach your systemd user instance');
    expect(again.stderr).toContain('Failed to connect to bus: No medium found');
    expect(again.stderr).toContain('loginctl enable-linger $USER');
    expect(again.stderr).not.toContain('journalctl --user -u daemon-reload');

    const status = await runTether(['service', 'status'], home, env);
    expect(status.stdout).toContain(
      'note: systemctl --user cannot reach your systemd user instance',
    );
    expect(status.stdout).toContain('load and start it with: tether service restart\n');

    const removed = await runTether(['service', 'uninstall'], home, env);
    expect(removed.code).toBe(0);
    expect(removed.stdout).toContain(`removed ${join(units, 'tether.service')}`);
    expect(removed.stderr).toContain('note: tether.service was not stopped');
    expect(removed.stderr).toContain('systemctl --user stop tether.service');
    expect(existsSync(join(units, 'tether.service'))).toBe(false);
    expect(() => lstatSync(link)).toThrow(/ENOENT/);
  });

  it('restart of a service that is not installed says to install it', async () => {
    const { temp, home, fakes } = setup('tether-service-restart-');
    using _ = temp;
    const env = { ...fakes.env, TETHER_SERVICE_MANAGER: 'systemd' };
    const restarted = await runTether(['service', 'restart'], home, env);
    expect(restarted.code).toBe(1);
    expect(restarted.stderr).toContain('no service is installed at');
    expect(restarted.stderr).toContain('tether service install');
    expect(fakes.calls()).toEqual([]);
  });

  it('logs prints the host log as lines a person reads and the service output; --json the raw log', async () => {
    const { temp, home, data, fakes } = setup('tether-service-logs-');
    using _ = temp;
    const none = await runTether(['service', 'logs', '--data', data], home, fakes.env);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('no log at');
    await using held = await holdPort();
    const reason = await failToStart(home, data, held.port);
    const entries = Array.from({ length: 80 }, (_, i) =>
      JSON.stringify({
        at: `2026-05-01T09:30:${String(i % 60).padStart(2, '0')}.123Z`,
        level: i === 79 ? 'error' : 'info',
        msg: `line ${i}`,
        port: 8787,
        dir: 'a b',
      }),
    );
    writeFileSync(join(data, 'logs', 'host.log'), `${entries.join('\n')}\n`);
    const hostLog = join(data, 'logs', 'host.log');
    const serviceLog = join(data, 'logs', 'service.log');

    const tail = await runTether(['service', 'logs', '--data', data, '-n', '2'], home, fakes.env);
    expect(tail).toMatchObject({ code: 0, stderr: '' });
    expect(tail.stdout).toBe(
      `==> ${hostLog} <==\n` +
        '2026-05-01 09:30:18Z info  line 78 port=8787 dir="a b"\n' +
        '2026-05-01 09:30:19Z error line 79 port=8787 dir="a b"\n' +
        `\n==> ${serviceLog} <==\n` +
        `${reason}\n`,
    );

    const json = await runTether(
      ['service', 'logs', '--data', data, '-n', '3', '--json'],
      home,
      fakes.env,
    );
    expect(json).toMatchObject({ code: 0, stderr: '' });
    expect(json.stdout).toBe(`${entries.slice(-3).join('\n')}\n`);
  });

  it('refuses install-only and logs-only flags elsewhere, with the usage', async () => {
    const { temp, home, fakes } = setup('tether-service-usage-');
    using _ = temp;
    const wrong = await runTether(['service', 'status', '--port', '1'], home, fakes.env);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('--port is only for install');
    expect(wrong.stderr).toContain('Usage: tether service');
    const json = await runTether(['service', 'status', '--json'], home, fakes.env);
    expect(json.code).toBe(2);
    expect(json.stderr).toContain('--json is only for logs');
  });
});
