import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import nacl from 'tweetnacl';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createLogger } from '../../host/log/index.js';
import { logFilePath } from '../../host/log/testing.js';
import type { LogLevel } from '../../host/log/index.js';
import { b64u } from '../../protocol/index.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';

const Entry = z.looseObject({ at: z.iso.datetime(), level: z.string(), msg: z.string() });

let dataTemp: TempDir;
let dataDir: string;
let lines: string[];

beforeEach(() => {
  dataTemp = tempDir('tether-log-', { realpath: false });
  dataDir = dataTemp.path;
  lines = [];
});

afterEach(() => {
  dataTemp.remove();
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

  it('cuts long strings, long arrays, many keys and deep nesting, saying what it left out', () => {
    const log = logger();
    log.registerSecret('sk-live-0123456789abcdef');
    const deep: Record<string, unknown> = {};
    let at = deep;
    for (let i = 0; i < 20; i++) at = at['next'] = {};
    log.info('m'.repeat(5000), {
      reason: `${'x'.repeat(3000)} sk-live-0123456789abcdef`,
      versions: Array.from({ length: 1_000_000 }, (_, i) => i),
      wide: Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`k${i}`, i])),
      deep,
      secretAtTheCut: `${'y'.repeat(2040)}sk-live-0123456789abcdef`,
    });
    expect(lines).toHaveLength(1);
    expect(lines[0]!.length).toBeLessThan(16 * 1024);
    expect(lines[0]).not.toContain('sk-live');
    expect(lines[0]).not.toContain('sk-li');
    const entry = entries()[0]!;
    expect(entry.msg).toBe(`${'m'.repeat(2048)}…[2952 more chars]`);
    expect(entry['reason']).toBe(`${'x'.repeat(2048)}…[956 more chars]`);
    const versions = entry['versions'] as unknown[];
    expect(versions).toHaveLength(65);
    expect(versions.at(-1)).toBe('…[999936 more items]');
    expect(entry['wide']).toMatchObject({ k63: 63, '…': '136 more keys' });
    expect(JSON.stringify(entry['deep'])).toContain('[too deep]');
  });

  it('keeps a line within maxLineBytes however many fields are near their bounds', () => {
    const log = createLogger({
      level: 'info',
      sink: { write: (line: string) => lines.push(line) },
      bounds: { maxLineBytes: 4096 },
    });
    log.info(
      'wide',
      Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`f${i}`, 'z'.repeat(2000)])),
    );
    expect(lines[0]!.length).toBeLessThan(4096);
    const [entry] = entries();
    expect(entry?.msg).toBe('wide');
    expect(entry?.['cut']).toMatch(/^a line of \d+ chars$/);
  });

  it('rotates host.log by size and keeps at most keepFiles old files, each 0600', () => {
    const log = createLogger({
      level: 'info',
      dataDir,
      sink: { write: () => undefined },
      rotation: { maxFileBytes: 10_000, keepFiles: 2 },
    });
    for (let i = 0; i < 1000; i++) log.info('line', { i, pad: 'p'.repeat(100) });
    log.close();
    const path = logFilePath(dataDir);
    expect(readdirSync(join(dataDir, 'logs')).sort()).toEqual([
      'host.log',
      'host.log.1',
      'host.log.2',
    ]);
    for (const file of [path, `${path}.1`, `${path}.2`]) {
      expect(statSync(file).size).toBeLessThanOrEqual(10_000);
      expect(statSync(file).mode & 0o777).toBe(0o600);
    }
    expect(existsSync(`${path}.3`)).toBe(false);
    // The newest lines are in host.log, the ones before in host.log.1, with nothing lost between.
    const numbers = (file: string) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => z.object({ i: z.number() }).loose().parse(JSON.parse(line)).i);
    const older = numbers(`${path}.1`);
    const newest = numbers(path);
    expect(newest.at(-1)).toBe(999);
    expect(newest[0]).toBe(older.at(-1)! + 1);
  });
});
