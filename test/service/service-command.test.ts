/**
 * `tether service install | uninstall | status | logs` as child processes against fake
 * `launchctl` and `systemctl` on PATH: the file written (a valid plist, a unit), the
 * arguments given to the service manager, and no model key anywhere in the file.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runTether } from '../cli/run-cli.js';
import { tempDir } from '../support/temp-dir.js';
import { writeFakeTools } from './fake-tools.js';

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

/** The plist parsed by a real plist parser (plutil on macOS, Python's plistlib elsewhere). */
function parsePlist(path: string): unknown {
  const plutil = spawnSync('plutil', ['-convert', 'json', '-o', '-', path], { encoding: 'utf8' });
  if (plutil.status === 0) return JSON.parse(plutil.stdout);
  const python = spawnSync(
    'python3',
    [
      '-c',
      'import json,plistlib,sys; print(json.dumps(plistlib.load(open(sys.argv[1],"rb"))))',
      path,
    ],
    { encoding: 'utf8' },
  );
  if (python.status !== 0)
    throw new Error(`neither plutil nor python3 parsed ${path}: ${python.stderr}`);
  return JSON.parse(python.stdout);
}

function setup(prefix: string) {
  const temp = tempDir(prefix);
  const home = join(temp.path, 'home');
  const data = join(temp.path, 'data dir & <more>');
  const workspace = join(temp.path, 'workspace');
  mkdirSync(home);
  mkdirSync(workspace);
  const fakes = writeFakeTools(temp.path);
  return { temp, home, data, workspace, fakes };
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
    const status = await runTether(['service', 'status', '--data', data], home, env);
    expect(status.stdout).toContain('loaded: yes\n');
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
});

describe('tether service on Linux (systemd user unit)', () => {
  it('install writes a unit without secrets and drives systemctl --user', async () => {
    const { temp, home, data, workspace, fakes } = setup('tether-service-systemd-');
    using _ = temp;
    const env = { ...fakes.env, ...SECRETS, TETHER_SERVICE_MANAGER: 'systemd' };
    const args = ['service', 'install', '--data', data, '--workspace', workspace];
    const installed = await runTether(args, home, env);
    expect(installed.code).toBe(0);
    const unitPath = join(home, '.config', 'systemd', 'user', 'tether.service');
    const unit = readFileSync(unitPath, 'utf8');
    for (const secret of Object.values(SECRETS)) expect(unit).not.toContain(secret);
    expect(unit).toContain('Restart=on-failure\n');
    expect(unit).toContain('WantedBy=default.target\n');
    expect(unit).toContain(
      `ExecStart="${node}" "${script}" "start" "--data" "${data}" "--port" "8787" "--workspace" "${workspace}"\n`,
    );
    expect(unit).toContain('"TETHER_KEY_STORE=file"');
    expect(unit).toContain(`StandardOutput=append:${join(data, 'logs', 'service.log')}\n`);
    expect(fakes.calls()).toEqual([
      'systemctl --user daemon-reload',
      'systemctl --user enable tether.service',
      'systemctl --user restart tether.service',
    ]);

    const status = await runTether(['service', 'status', '--data', data], home, env);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain('running: yes, pid 4343\n');

    const removed = await runTether(['service', 'uninstall'], home, env);
    expect(removed.code).toBe(0);
    expect(existsSync(unitPath)).toBe(false);
    expect(fakes.calls().slice(-2)).toEqual([
      'systemctl --user disable --now tether.service',
      'systemctl --user daemon-reload',
    ]);
    const after = await runTether(['service', 'status', '--data', data], home, env);
    expect(after.code).toBe(3);
    expect(after.stdout).toContain('running: no\n');
  });

  it('logs prints the end of the host log, and says so when there is none', async () => {
    const { temp, home, data, fakes } = setup('tether-service-logs-');
    using _ = temp;
    const none = await runTether(['service', 'logs', '--data', data], home, fakes.env);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('no host log at');
    mkdirSync(join(data, 'logs'), { recursive: true });
    const lines = Array.from({ length: 80 }, (_, i) => `{"msg":"line ${i}"}`);
    writeFileSync(join(data, 'logs', 'host.log'), `${lines.join('\n')}\n`);
    const tail = await runTether(['service', 'logs', '--data', data, '-n', '3'], home, fakes.env);
    expect(tail).toMatchObject({ code: 0, stderr: '' });
    expect(tail.stdout).toBe(`${lines.slice(-3).join('\n')}\n`);
  });

  it('refuses install-only flags elsewhere, with the usage', async () => {
    const { temp, home, fakes } = setup('tether-service-usage-');
    using _ = temp;
    const wrong = await runTether(['service', 'status', '--port', '1'], home, fakes.env);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('--port is only for install');
    expect(wrong.stderr).toContain('Usage: tether service');
  });
});
