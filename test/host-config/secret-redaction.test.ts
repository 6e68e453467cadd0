/**
 * The redactor masks a registered key in every form a provider or a cut string shows it:
 * whole, a prefix of 8 or more characters, and elided echoes (`sk-proj-****abcd`,
 * `sk-abc…wxyz`, `****abcd`); and, for foreign text, tokens shaped like any key. The
 * logger masks the same forms.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { modelSecrets } from '../../host/config/index.js';
import { createLogger, Redactor } from '../../host/log/index.js';
import { logFilePath } from '../../host/log/testing.js';
import { tempDir } from '../support/temp-dir.js';

const KEY = 'sk-proj-Xq3vT9pLm2Rk7sWn4Yd8Hb1Jc6Fg0Ae5Zu2Io9Pw';
const TAIL = KEY.slice(-4);

function redactor(...secrets: string[]): Redactor {
  const redactor = new Redactor();
  for (const secret of secrets) redactor.register(secret);
  return redactor;
}

describe('Redactor.text: a registered key and its partial echoes', () => {
  it.each([
    ['whole', `Incorrect API key provided: ${KEY}.`, 'Incorrect API key provided: ***.'],
    [
      "OpenAI's elided echo",
      `Incorrect API key provided: sk-proj-${'*'.repeat(44)}${TAIL}. You can find your key`,
      'Incorrect API key provided: ***. You can find your key',
    ],
    ['first 6 … last 4', `key ${KEY.slice(0, 6)}…${TAIL} refused`, 'key *** refused'],
    ['first 8 ... last 4', `key ${KEY.slice(0, 8)}...${TAIL} refused`, 'key *** refused'],
    ['first 12 *** last 6', `key ${KEY.slice(0, 12)}***${KEY.slice(-6)}!`, 'key ***!'],
    [
      'elision and last 4 alone',
      `Your api key: ****${TAIL} is invalid`,
      'Your api key: *** is invalid',
    ],
    ['a prefix of 12', `cut at ${KEY.slice(0, 12)}`, 'cut at ***'],
    [
      'a prefix cut anywhere later',
      `"${KEY.slice(0, 30)}…[12 more chars]"`,
      '"***…[12 more chars]"',
    ],
    ['twice, side by side', `${KEY}${KEY} and ${KEY}`, '*** and ***'],
  ])('masks it %s', (_form, text, masked) => {
    expect(redactor(KEY).text(text)).toBe(masked);
  });

  it.each([
    ['the type tag every project key shares', 'keys look like sk-proj-…'],
    ['the tag and 3 more characters', `${KEY.slice(0, 11)} is not enough`],
    ['the last 4 without an elision', `the id ends in ${TAIL}`],
    ['the last 4 after two dots', `see ..${TAIL}`],
    ['another key', 'sk-proj-AAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
  ])('keeps %s', (_what, text) => {
    expect(redactor(KEY).text(text)).toBe(text);
  });

  it('masks a key without a type tag from its first 8 characters', () => {
    const key = 'Qm9sZXNsYXdAbG9uZ3Rva2Vu';
    expect(redactor(key).text(`t=${key.slice(0, 8)} t=${key.slice(0, 7)}`)).toBe(
      `t=*** t=${key.slice(0, 7)}`,
    );
  });

  it('masks a key with characters JSON escapes in its JSON form too', () => {
    const key = 'pass"word\\with-quotes';
    const text = JSON.stringify({ error: `bad ${key}` });
    expect(redactor(key).text(text)).toBe('{"error":"bad ***"}');
  });

  it('masks several secrets in one text, overlaps merged into one mask', () => {
    const other = 'adm1n-t0ken-0123456789abcdef';
    expect(redactor(KEY, other).text(`${KEY}${other} | ${other.slice(0, 9)}…`)).toBe('*** | ***…');
  });

  it('returns the very text when nothing is registered or nothing shows', () => {
    const text = 'nothing to see here';
    expect(new Redactor().text(text)).toBe(text);
    expect(redactor(KEY).text(text)).toBe(text);
  });
});

describe('Redactor.foreignText: tokens shaped like a key, registered or not', () => {
  it.each([
    [
      'an OpenAI key',
      'Incorrect API key provided: sk-abcdefghijklmnop1234.',
      'Incorrect API key provided: ***.',
    ],
    ['an elided OpenAI key', 'key sk-proj-******************wxyz refused', 'key *** refused'],
    ['an elided key with …', 'key sk-abc…wxyz refused', 'key *** refused'],
    [
      'an Anthropic key',
      'x-api-key sk-ant-api03-AbCdEf0123456789_xyz-Q invalid',
      'x-api-key *** invalid',
    ],
    ['a Groq key', 'Invalid API Key gsk_0123456789abcdefABCDEF', 'Invalid API Key ***'],
    [
      'an xAI key',
      'Incorrect API key provided: xai-0123456789abcdefABCDEF',
      'Incorrect API key provided: ***',
    ],
    [
      'a Google key',
      'API key not valid: AIzaSyA-0123456789abcdefghijklmnopqrstu',
      'API key not valid: ***',
    ],
    [
      'a bearer token',
      'sent Authorization: Bearer eyJhbGciOi.JIUzI1NiJ9.abc-def_123',
      'sent Authorization: Bearer ***',
    ],
  ])('masks %s', (_what, text, masked) => {
    expect(new Redactor().foreignText(text)).toBe(masked);
  });

  it('keeps ordinary words that only look a little like keys', () => {
    const text = 'Missing Bearer token; task-sk-ok; disk-usage; sk-short';
    expect(new Redactor().foreignText(text)).toBe(text);
  });

  it('masks the registered key first, then what is shaped like one', () => {
    expect(redactor(KEY).foreignText(`${KEY.slice(0, 6)}…${TAIL} / Bearer ${'t'.repeat(20)}`)).toBe(
      '*** / Bearer ***',
    );
  });
});

describe('the logger masks the partial echoes too', () => {
  it('in the message, fields and errors it writes to host.log', () => {
    using temp = tempDir('tether-secret-log-', { realpath: false });
    const dataDir = temp.path;
    const lines: string[] = [];
    const log = createLogger({
      level: 'info',
      dataDir,
      sink: { write: (l: string) => lines.push(l) },
    });
    log.registerSecret(KEY);
    const elided = `sk-proj-${'*'.repeat(20)}${TAIL}`;
    log.error(`model failed: ${elided}`, {
      reason: `Incorrect API key provided: ${KEY.slice(0, 6)}…${TAIL}`,
      error: new Error(`prefix ${KEY.slice(0, 14)}`),
    });
    log.close();
    const written = readFileSync(logFilePath(dataDir), 'utf8');
    expect(written).toBe(lines.join(''));
    expect(written).toContain('model failed: ***');
    expect(written).toContain('Incorrect API key provided: ***');
    expect(written).toContain('prefix ***');
    expect(written).not.toContain(TAIL);
    expect(written).not.toContain(KEY.slice(0, 12));
  });
});

describe('modelSecrets: what of a model account the host registers', () => {
  it('takes the key, every provider key variable, and credentials in the base URL', () => {
    const secrets = modelSecrets(
      {
        apiKey: 'sk-configured-0123456789',
        baseUrl:
          'https://user:p%40ssw0rd-long@example.azure.com/v1?api-key=azure-key-0123&api-version=2024-10-21',
      },
      { OPENAI_API_KEY: 'sk-unused-openai-key-0123', TETHER_MODEL_API_KEY: '', PATH: '/usr/bin' },
    );
    expect(secrets.sort()).toEqual(
      [
        'sk-unused-openai-key-0123',
        'sk-configured-0123456789',
        'p@ssw0rd-long',
        'azure-key-0123',
      ].sort(),
    );
  });

  it('is empty without a model and without key variables', () => {
    expect(modelSecrets(null, { HOME: '/home/me' })).toEqual([]);
  });
});
