/**
 * The model key kept by `tether model set-key` (the 0600 file here; the Keychain on
 * macOS) and the endpoint by `tether model set`: a host started with no key in its
 * environment sends it to the model, and it appears nowhere else in the data directory
 * (config, logs, database) nor in the host's /proc/<pid>/environ. A key in the
 * environment still wins.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runTether } from '../cli/run-cli.js';
import { startHostProcess } from '../support/host-process.js';
import { startScriptedModelServer, textTurn } from '../support/scripted-model-server.js';
import { tempDir } from '../support/temp-dir.js';

const bin = new URL('../../bin/tether.js', import.meta.url).pathname;
const AdminPid = z.object({ pid: z.number() });
const KEY = 'sk-kept-by-set-key-0123456789abcdef';

/** `tether model set-key` with the key piped on stdin. */
function setKey(dataDir: string, home: string, input: string) {
  return spawnSync(process.execPath, [bin, 'model', 'set-key', '--data', dataDir], {
    input,
    encoding: 'utf8',
    env: { PATH: process.env['PATH'] ?? '', HOME: home, TETHER_KEY_STORE: 'file' },
  });
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile());
}

/** Pairs a remote and runs one task to its end; resolves with the Authorization header sent. */
async function oneRun(
  host: Awaited<ReturnType<typeof startHostProcess>>,
  home: string,
  model: Awaited<ReturnType<typeof startScriptedModelServer>>,
): Promise<string | undefined> {
  const state = join(home, 'remote.json');
  const paired = await runTether(['remote', 'pair', await host.pairLink(), '--state', state], home);
  expect(paired.code).toBe(0);
  model.push(textTurn('Hello.'));
  const done = await runTether(['remote', 'submit', 'Say hello', '--wait', '--state', state], home);
  expect(done.code).toBe(0);
  const chat = model.requests.filter((request) => request.path.endsWith('/chat/completions'));
  return chat.at(-1)?.headers.authorization;
}

describe('the model key kept by tether model set-key', () => {
  it('is read by a started host and appears nowhere else', async () => {
    await using model = await startScriptedModelServer();
    await using temp = tempDir('tether-model-key-');
    const dataDir = join(temp.path, 'data');
    const home = temp.path;

    const set = await runTether(
      ['model', 'set', '--base-url', model.baseUrl, '--model', 'scripted-model', '--data', dataDir],
      home,
    );
    expect(set).toMatchObject({ code: 0, stderr: '' });
    expect(set.stdout).toContain(`wrote the model settings to ${join(dataDir, 'config.json')}`);
    const stored = setKey(dataDir, home, `${KEY}\n`);
    expect(stored.stderr).toBe('');
    expect(stored.status).toBe(0);
    expect(stored.stdout).toContain(`stored the model key in ${join(dataDir, 'model-key.json')}`);
    expect(statSync(join(dataDir, 'model-key.json')).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(join(dataDir, 'config.json'), 'utf8'))).toEqual({
      model: { baseUrl: model.baseUrl, model: 'scripted-model' },
    });

    // No model variables at all: the host finds both in the data directory.
    await using host = await startHostProcess({ dataDir });
    expect(host.output()).toContain('model: scripted-model at');
    expect(await oneRun(host, home, model)).toBe(`Bearer ${KEY}`);

    const { pid } = AdminPid.parse(JSON.parse(readFileSync(join(dataDir, 'admin.json'), 'utf8')));
    if (existsSync(`/proc/${pid}/environ`)) {
      expect(readFileSync(`/proc/${pid}/environ`, 'latin1')).not.toContain(KEY);
    }
    await host.stop();
    const elsewhere = filesUnder(dataDir).filter((path) => !path.endsWith('model-key.json'));
    expect(elsewhere.some((path) => path.endsWith('host.log'))).toBe(true);
    expect(elsewhere.some((path) => /\.(db|sqlite)/.test(path))).toBe(true);
    for (const path of elsewhere) {
      expect(readFileSync(path, 'latin1'), path).not.toContain(KEY);
    }
    expect(host.output()).not.toContain(KEY);
  });

  it('loses to TETHER_MODEL_API_KEY when that is set', async () => {
    await using model = await startScriptedModelServer();
    await using temp = tempDir('tether-model-key-env-');
    const dataDir = join(temp.path, 'data');
    expect(setKey(dataDir, temp.path, KEY).status).toBe(0);
    await using host = await startHostProcess({ dataDir, model: model.baseUrl });
    expect(await oneRun(host, temp.path, model)).toBe('Bearer sk-test');
  });

  it('refuses an empty or spaced key and stores nothing', async () => {
    await using temp = tempDir('tether-model-key-bad-');
    const dataDir = join(temp.path, 'data');
    const empty = setKey(dataDir, temp.path, '\n');
    expect(empty.status).toBe(1);
    expect(empty.stderr).toContain('no key was given; nothing was stored');
    const spaced = setKey(dataDir, temp.path, 'sk one two\n');
    expect(spaced.status).toBe(1);
    expect(spaced.stderr).toContain('spaces');
    expect(existsSync(join(dataDir, 'model-key.json'))).toBe(false);
  });

  it('model set keeps the other settings and refuses an invalid URL', async () => {
    await using temp = tempDir('tether-model-set-');
    const dataDir = join(temp.path, 'data');
    const first = await runTether(
      ['model', 'set', '--model', 'm1', '--base-url', 'http://127.0.0.1:1/v1', '--data', dataDir],
      temp.path,
    );
    expect(first.code).toBe(0);
    const bad = await runTether(
      ['model', 'set', '--base-url', 'ftp://example.org', '--data', dataDir],
      temp.path,
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('command line: --base-url: expected an http or https URL');
    const second = await runTether(['model', 'set', '--model', 'm2', '--data', dataDir], temp.path);
    expect(second.code).toBe(0);
    expect(JSON.parse(readFileSync(join(dataDir, 'config.json'), 'utf8'))).toEqual({
      model: { baseUrl: 'http://127.0.0.1:1/v1', model: 'm2' },
    });
    expect(statSync(join(dataDir, 'config.json')).mode & 0o777).toBe(0o600);
  });
});
