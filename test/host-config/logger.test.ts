import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nacl from 'tweetnacl';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createLogger, logFilePath } from '../../host/log/index.js';
import type { LogLevel } from '../../host/log/index.js';
import { b64u } from '../../protocol/index.js';

const Entry = z.looseObject({ at: z.iso.datetime(), level: z.string(), msg: z.string() });

let dataDir: string;
let lines: string[];

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'tether-log-'));
  lines = [];
});

afterEach(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

function logger(level: LogLevel = 'debug', withFile = false) {
  return createLogger({
    level,
    dataDir: withFile ? dataDir : null,
    sink: { write: (line: string) => lines.push(line) },
    now: () => new Date('2026-01-02T03:04:05.678Z'),
  });
}

function entries() {
  return lines.map((line) => Entry.parse(JSON.parse(line)));
}

describe('logger', () => {
  it('writes one JSON line per entry, with bound and given fields', () => {
    const log = logger().child({ component: 'server' });
    log.info('listening', { port: 8787 });
    expect(lines).toEqual([
      '{"at":"2026-01-02T03:04:05.678Z","level":"info","msg":"listening","component":"server","port":8787}\n',
    ]);
  });

  it('masks a registered secret anywhere in the line', () => {
    const log = logger();
    const child = log.child({ component: 'model' });
    log.registerSecret('sk-live-0123456789abcdef');
    child.error('request failed with key sk-live-0123456789abcdef!', {
      detail: { url: 'https://x/?key=sk-live-0123456789abcdef' },
      list: ['sk-live-0123456789abcdef'],
      error: new Error('bad key sk-live-0123456789abcdef'),
    });
    expect(lines.join('')).not.toContain('sk-live-0123456789abcdef');
    const [entry] = entries();
    expect(entry).toMatchObject({
      msg: 'request failed with key ***!',
      detail: { url: 'https://x/?key=***' },
      list: ['***'],
      error: { name: 'Error', message: 'bad key ***' },
    });
  });

  it('masks fields named like secrets, at any depth, and keeps look-alikes', () => {
    logger().warn('call', {
      apiKey: 'k',
      headers: { Authorization: 'Bearer abc', 'x-api-key': 'k2' },
      hostSk: new Uint8Array(64),
      pairing: { psk: 'p', token: 't', seed: 's', clientSecret: 'c' },
      task: 'write tests',
      disk: 'ssd',
      maxTokens: 4096,
    });
    expect(entries()[0]).toEqual({
      at: '2026-01-02T03:04:05.678Z',
      level: 'warn',
      msg: 'call',
      apiKey: '***',
      headers: { Authorization: '***', 'x-api-key': '***' },
      hostSk: '***',
      pairing: { psk: '***', token: '***', seed: '***', clientSecret: '***' },
      task: 'write tests',
      disk: 'ssd',
      maxTokens: 4096,
    });
  });

  it('masks a registered seed in its text forms and never prints bytes', () => {
    const log = logger();
    const { secretKey } = nacl.sign.keyPair();
    const seed = secretKey.subarray(0, 32);
    log.registerSecret(seed);
    log.info(`seed ${b64u(seed)} / ${Buffer.from(seed).toString('hex')}`, { raw: seed });
    expect(entries()[0]).toMatchObject({ msg: 'seed *** / ***', raw: '[32 bytes]' });
  });

  it('drops entries below its level and keeps at, level and msg its own', () => {
    const log = logger('warn');
    log.debug('d');
    log.info('i');
    log.warn('w', { level: 'debug', msg: 'other', at: 'then' });
    log.error('e');
    expect(entries().map((e) => [e.level, e.msg, e.at])).toEqual([
      ['warn', 'w', '2026-01-02T03:04:05.678Z'],
      ['error', 'e', '2026-01-02T03:04:05.678Z'],
    ]);
  });

  it('cuts cycles instead of failing', () => {
    const loop: Record<string, unknown> = { name: 'loop' };
    loop.self = loop;
    logger().info('cycle', { loop, big: 10n });
    expect(entries()[0]).toMatchObject({ loop: { name: 'loop', self: '[circular]' }, big: '10' });
  });

  it('appends the same lines to <dataDir>/logs/host.log with mode 0600 in a 0700 folder', () => {
    const log = logger('info', true);
    log.registerSecret('a-very-secret-value');
    log.info('first a-very-secret-value');
    log.child({ component: 'store' }).info('second');
    log.close();
    log.info('after close');
    const path = logFilePath(dataDir);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(dataDir, 'logs')).mode & 0o777).toBe(0o700);
    expect(readFileSync(path, 'utf8')).toBe(lines.slice(0, 2).join(''));
    expect(lines).toHaveLength(3);
    expect(readFileSync(path, 'utf8')).toContain('"msg":"first ***"');

    const again = logger('info', true);
    again.info('third');
    again.close();
    expect(readFileSync(path, 'utf8').split('\n').filter(Boolean)).toHaveLength(3);
  });
});
