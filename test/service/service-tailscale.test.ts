/**
 * `tether service install --tailscale` against fake `systemctl`/`loginctl` and a fake
 * `tailscale` on PATH (test/support/fake-tailscale.ts): the unit starts the host with
 * `--tailscale` and finds the `tailscale` command that was found at install; a tailnet that
 * cannot publish the host stops the install before anything is written, saying what to run.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTether } from '../cli/run-cli.js';
import { writeFakeTailscale } from '../support/fake-tailscale.js';
import { tempDir } from '../support/temp-dir.js';
import { writeFakeTools } from './fake-tools.js';
import { systemdMissing, verifyUnit } from './systemd-tools.js';

function setup(prefix: string) {
  const temp = tempDir(prefix);
  const home = join(temp.path, 'home');
  const data = join(temp.path, 'data');
  const workspace = join(temp.path, 'workspace');
  mkdirSync(home);
  mkdirSync(workspace);
  const fakes = writeFakeTools(temp.path);
  const tailscale = writeFakeTailscale(temp.path);
  const env = {
    ...fakes.env,
    ...tailscale.env,
    PATH: `${tailscale.bin}:${fakes.env['PATH'] ?? ''}`,
    TETHER_SERVICE_MANAGER: 'systemd',
    TETHER_KEY_STORE: 'file',
  };
  const unitPath = join(home, '.config', 'systemd', 'user', 'tether.service');
  return { temp, home, data, workspace, fakes, tailscale, env, unitPath };
}

describe('tether service install --tailscale', () => {
  it('writes a unit that starts the host with --tailscale and can find tailscale', async () => {
    const { temp, home, data, workspace, fakes, tailscale, env, unitPath } = setup(
      'tether-service-tailscale-',
    );
    using _ = temp;
    const installed = await runTether(
      ['service', 'install', '--data', data, '--workspace', workspace, '--tailscale'],
      home,
      env,
    );
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.stdout).toContain(
      'tailnet: https://mac.tail1234.ts.net (tailscale serve --bg at each start, removed at each clean stop)\n',
    );
    const unit = readFileSync(unitPath, 'utf8');
    expect(unit).toMatch(/^ExecStart=.* "--tailscale"$/m);
    // The service's own PATH holds the folder tailscale was found in.
    expect(unit).toMatch(new RegExp(`"PATH=[^"]*:${tailscale.bin}"`));
    if (systemdMissing === null) expect(verifyUnit(unitPath)).toEqual({ code: 0, output: '' });
    // Checked, not published: the service's host publishes at its start.
    expect(tailscale.calls()).toEqual(['status --json', 'serve status --json']);
    expect(fakes.calls()).toContain('systemctl --user restart tether.service');
  });

  it('stops before writing anything when Tailscale is logged out, saying what to run', async () => {
    const { temp, home, data, workspace, fakes, tailscale, env, unitPath } = setup(
      'tether-service-tailscale-out-',
    );
    using _ = temp;
    tailscale.set({ backendState: 'NeedsLogin' });
    const refused = await runTether(
      ['service', 'install', '--data', data, '--workspace', workspace, '--tailscale'],
      home,
      env,
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'tether: service install --tailscale: Tailscale is logged out (NeedsLogin): sign in with tailscale up (or at https://login.tailscale.com/a/1a2b3c4d5e6f), then run ',
    );
    expect(refused.stderr).toContain(
      'service install --tailscale again, or leave out --tailscale (docs/https.md)',
    );
    expect(existsSync(unitPath)).toBe(false);
    expect(existsSync(data)).toBe(false);
    expect(fakes.calls()).toEqual([]);
  });

  it('is only for install', async () => {
    const { temp, home, env } = setup('tether-service-tailscale-flag-');
    using _ = temp;
    const result = await runTether(['service', 'status', '--tailscale'], home, env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--tailscale is only for install');
  });
});
