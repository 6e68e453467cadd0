/**
 * Issue 24, "The CLI says the right thing": a bad value is blamed on where it came from
 * (the flag, the variable or the config file), through the built `tether`, and a refused
 * value changes nothing.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTether } from './run-cli.js';
import { tempDir } from '../support/temp-dir.js';

describe('a bad model base URL names its source', () => {
  it('tether models --base-url names the flag, not TETHER_MODEL_BASE_URL', async () => {
    using home = tempDir('tether-sources-');
    const data = join(home.path, 'data');

    const result = await runTether(
      ['models', '--base-url', 'not-a-url', '--data', data],
      home.path,
    );

    expect(result.code).toBe(2);
    expect(result.stderr).toContain('command line: --base-url: expected an http or https URL');
    expect(result.stderr).not.toContain('TETHER_MODEL_BASE_URL');
  });

  it('tether models with a bad TETHER_MODEL_BASE_URL names the variable', async () => {
    using home = tempDir('tether-sources-');
    const data = join(home.path, 'data');

    const result = await runTether(['models', '--data', data], home.path, {
      TETHER_MODEL_BASE_URL: 'not-a-url',
    });

    expect(result.code).toBe(2);
    expect(result.stderr).toContain('environment: TETHER_MODEL_BASE_URL: expected an http');
  });

  it('tether model set --base-url names the flag and leaves the config file as it was', async () => {
    using home = tempDir('tether-sources-');
    const data = join(home.path, 'data');

    const fresh = await runTether(
      ['model', 'set', '--base-url', 'not-a-url', '--model', 'm', '--data', data],
      home.path,
    );

    expect(fresh.code).toBe(2);
    expect(fresh.stderr).toContain('command line: --base-url: expected an http or https URL');
    expect(fresh.stderr).not.toContain('config file');
    expect(existsSync(join(data, 'config.json'))).toBe(false);

    const file = join(home.path, 'config.json');
    const before = `${JSON.stringify({ port: 8000 }, null, 2)}\n`;
    writeFileSync(file, before, { mode: 0o600 });
    const kept = await runTether(
      ['model', 'set', '--provider', 'nope', '--config', file],
      home.path,
    );
    expect(kept.code).toBe(2);
    expect(kept.stderr).toContain('command line: --provider: expected one of');
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it('a bad model.baseUrl in the config file is blamed on that file', async () => {
    using home = tempDir('tether-sources-');
    const file = join(home.path, 'config.json');
    writeFileSync(file, JSON.stringify({ model: { baseUrl: 'not-a-url', model: 'm' } }), {
      mode: 0o600,
    });

    const result = await runTether(
      ['model', 'set', '--model', 'other', '--config', file],
      home.path,
    );

    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`config file ${file}: model.baseUrl: expected an http`);
  });
});
