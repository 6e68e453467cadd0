/**
 * Issue 24: the unit `tether service install` wrote did not load (`WorkingDirectory="/…"`
 * is "not absolute" to systemd) and its `append:` paths were not `%`-escaped. Each unit is
 * now written by the real command (fake systemctl) for data and workspace paths with
 * spaces, specifiers, quotes, `$`, backslashes and `;`, then read by the real systemd:
 * `systemd-analyze verify` must accept it, and the user manager must read back every path
 * and argument as given.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTether } from '../cli/run-cli.js';
import { tempDir } from '../support/temp-dir.js';
import { writeFakeTools } from './fake-tools.js';
import { loadUnit, managerMissing, systemdMissing, verifyUnit } from './systemd-tools.js';

const node = process.execPath;
const script = new URL('../../bin/tether.js', import.meta.url).pathname;

/** Folder names systemd reads specially in one setting or another. */
const NAMES = {
  plain: 'data',
  'spaces and specifiers': 'my data 100% %h %n',
  'quotes, $, backslash, ; and non-ASCII': `it's "q" $HOME \\x20; a\\b & <ü>`,
};

async function install(folder: string) {
  const temp = tempDir('tether-unit-');
  const home = join(temp.path, 'home');
  const data = join(temp.path, folder);
  const workspace = join(temp.path, `work ${folder}`);
  mkdirSync(home);
  mkdirSync(workspace);
  const fakes = writeFakeTools(temp.path);
  const env = { ...fakes.env, TETHER_SERVICE_MANAGER: 'systemd' };
  const args = ['service', 'install', '--data', data, '--workspace', workspace];
  const result = await runTether(args, home, env);
  const unit = join(home, '.config', 'systemd', 'user', 'tether.service');
  return { temp, data, workspace, unit, result, fakes };
}

describe('the systemd unit loads, with every path as given', () => {
  for (const [label, folder] of Object.entries(NAMES)) {
    it(`systemd-analyze verify accepts it: ${label}`, async (ctx) => {
      if (systemdMissing !== null) ctx.skip(systemdMissing);
      const { temp, unit, result } = await install(folder);
      using _ = temp;
      expect(result.stderr).not.toContain('tether:');
      expect(result.code).toBe(0);
      expect(verifyUnit(unit)).toEqual({ code: 0, output: '' });
    });

    it(`the user manager reads back each path and argument: ${label}`, async (ctx) => {
      if (managerMissing !== null) ctx.skip(managerMissing);
      const { temp, data, workspace, unit, result } = await install(folder);
      using _ = temp;
      expect(result.code).toBe(0);
      const loaded = loadUnit(unit);
      const log = join(data, 'logs', 'service.log');
      expect(loaded.workingDirectory).toBe(data);
      expect(loaded.outputs).toEqual([log, log]);
      expect(loaded.description).toBe(`Tether host (${data})`);
      expect(loaded.environment).toContain('TETHER_KEY_STORE=file');
      expect(loaded.environment.find((entry) => entry.startsWith('PATH='))).toMatch(
        /^PATH=[^$%]*\/usr\/bin:/,
      );
      // systemd turns `$$` into `$` when it runs the command, after this dump.
      expect(loaded.execStart.map((word) => word.replaceAll('$$', '$'))).toEqual([
        node,
        script,
        'start',
        '--data',
        data,
        '--port',
        '8787',
        '--workspace',
        workspace,
      ]);
    });
  }

  it('the old quoted WorkingDirectory is what verify refused (the check can fail)', (ctx) => {
    if (systemdMissing !== null) ctx.skip(systemdMissing);
    using temp = tempDir('tether-unit-old-');
    const unit = join(temp.path, 'old.service');
    const text = `[Service]\nExecStart="${node}"\nWorkingDirectory="${temp.path}"\n`;
    writeFileSync(unit, text);
    const verified = verifyUnit(unit);
    expect(verified.code).not.toBe(0);
    expect(verified.output).toContain('WorkingDirectory= path is not absolute');
  });

  for (const [label, folder] of [
    ['a trailing space (systemd trims it)', 'data '],
    ['a trailing backslash (it continues the line)', 'data\\'],
  ]) {
    it(`refuses a data directory with ${label}, writing no unit`, async () => {
      const { temp, unit, result, fakes } = await install(folder ?? '');
      using _ = temp;
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('cannot be named in a systemd unit');
      expect(result.stderr).toContain('--data');
      expect(existsSync(unit)).toBe(false);
      expect(fakes.calls()).toEqual([]);
    });
  }
});
