/**
 * `tether voice set`, `show` and `unset` (issue 28), the built CLI on a temp data
 * directory with the key kept in the 0600 file: the key is never printed, a bad value
 * names its flag and writes nothing, a first set needs both the URL and the model, `show`
 * masks the URL's credentials, and `unset` takes the endpoint and its key away.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { expect, it } from 'vitest';
import { tempDir } from '../support/temp-dir.js';

const bin = new URL('../../bin/tether.js', import.meta.url).pathname;
const KEY = 'gsk_voice-0123456789abcdefghij';

function voice(dataDir: string, args: string[], input = '') {
  const result = spawnSync(process.execPath, [bin, 'voice', ...args, '--data', dataDir], {
    input,
    encoding: 'utf8',
    env: { PATH: process.env['PATH'] ?? '', HOME: dataDir, TETHER_KEY_STORE: 'file' },
  });
  return { code: result.status, out: result.stdout, err: result.stderr };
}

it(
  'sets, shows and unsets the transcription endpoint, never printing its key',
  { timeout: 180_000 },
  () => {
    using temp = tempDir('tether-voice-cli-');
    const dataDir = join(temp.path, 'data');
    const configPath = join(dataDir, 'config.json');
    const keyPath = join(dataDir, 'voice-key.json');

    const empty = voice(dataDir, ['show']);
    expect(empty.code).toBe(0);
    expect(empty.out).toContain('no transcription endpoint is set');

    // A first set needs both; nothing is written without them.
    const partial = voice(dataDir, ['set', '--model', 'whisper-1']);
    expect(partial.code).toBe(2);
    expect(partial.err).toContain('command line: --base-url: no transcription endpoint is set yet');
    expect(existsSync(configPath)).toBe(false);

    const bad = voice(dataDir, [
      'set',
      '--base-url',
      'ftp://example.org',
      '--model',
      'w',
      '--language',
      'English',
    ]);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('command line: --base-url: expected an http or https URL');
    expect(bad.err).toContain('command line: --language: expected a language code such as en');
    expect(existsSync(configPath)).toBe(false);

    const spaced = voice(
      dataDir,
      [
        'set',
        '--base-url',
        'https://api.groq.com/openai/v1',
        '--model',
        'whisper-large-v3',
        '--key-stdin',
      ],
      'not a key\n',
    );
    expect(spaced.code).toBe(1);
    expect(spaced.err).toContain('nothing was stored');
    expect(existsSync(keyPath)).toBe(false);
    expect(existsSync(configPath)).toBe(false);

    writeFileSync(configPath, JSON.stringify({ port: 9999 }), { mode: 0o600 });
    const set = voice(
      dataDir,
      [
        'set',
        '--base-url',
        'https://user:hunter2@api.groq.com/openai/v1',
        '--model',
        'whisper-large-v3',
        '--key-stdin',
      ],
      `${KEY}\n`,
    );
    expect(set.code, set.err).toBe(0);
    expect(set.out + set.err).not.toContain(KEY);
    expect(set.out).toContain(`stored the transcription key in ${keyPath}`);
    expect(statSync(keyPath).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(configPath, 'utf8'))).toEqual({
      port: 9999,
      voice: {
        baseUrl: 'https://user:hunter2@api.groq.com/openai/v1',
        model: 'whisper-large-v3',
      },
    });
    expect(readFileSync(configPath, 'utf8')).not.toContain(KEY);

    const language = voice(dataDir, ['set', '--language', 'de']);
    expect(language.code, language.err).toBe(0);

    const shown = voice(dataDir, ['show']);
    expect(shown.code).toBe(0);
    expect(shown.out).toContain('base URL  https://user:***@api.groq.com/openai/v1');
    expect(shown.out).toContain('model     whisper-large-v3');
    expect(shown.out).toContain('language  de');
    expect(shown.out).toContain(`key       stored in ${keyPath}`);
    expect(shown.out).not.toContain(KEY);
    expect(shown.out).not.toContain('hunter2');

    const unset = voice(dataDir, ['unset']);
    expect(unset.code, unset.err).toBe(0);
    expect(unset.out).toContain(`removed the transcription endpoint from ${configPath}`);
    expect(unset.out).toContain('removed its stored key');
    expect(existsSync(keyPath)).toBe(false);
    expect(JSON.parse(readFileSync(configPath, 'utf8'))).toEqual({ port: 9999 });
    expect(voice(dataDir, ['show']).out).toContain('no transcription endpoint is set');
  },
);
