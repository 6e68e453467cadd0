/**
 * Issue 11, finding 6: refused hellos cannot grow host.log without bound. Every field is
 * cut to its bounds, a refusal repeated from one address is one line per interval with a
 * count, and host.log rotates by size keeping at most `keepFiles` old files.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { logFilePath } from '../../host/log/testing.js';
import { startLimitedHost, sendAndWait, type LimitedHost } from './limited-host.js';

const MAX_FILE_BYTES = 64 * 1024;
const KEEP_FILES = 2;
const INTERVAL_MS = 400;

let harness: LimitedHost;

beforeAll(async () => {
  harness = await startLimitedHost(
    {
      logRotation: { maxFileBytes: MAX_FILE_BYTES, keepFiles: KEEP_FILES },
      // Every hello reaches the version check: the log is what is under test here.
      channelLimits: {
        refusalLogIntervalMs: INTERVAL_MS,
        handshakesPerAddress: { burst: 1000, perMinute: 1000 },
      },
    },
    'info',
  );
});

afterAll(async () => harness.dispose());

/** A hello offering 40,000 versions, none of them the host's: about 80 KB of JSON. */
const hugeHello = JSON.stringify({ t: 'hello', v: Array.from({ length: 40_000 }, () => 9) });

const Line = z.looseObject({ msg: z.string() });

function logLines(): z.infer<typeof Line>[] {
  const path = logFilePath(harness.dataDir);
  return [`${path}.2`, `${path}.1`, path].flatMap((file) => {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      return [];
    }
    return text
      .split('\n')
      .filter(Boolean)
      .map((line) => Line.parse(JSON.parse(line)));
  });
}

function logBytes(): number {
  const folder = join(harness.dataDir, 'logs');
  return readdirSync(folder).reduce((sum, name) => sum + statSync(join(folder, name)).size, 0);
}

describe('issue 11: refused hellos cannot fill the disk through host.log', () => {
  it('a hello with a huge version list logs one bounded line, and a flood from one address one line per interval', async () => {
    const before = logBytes();
    const started = Date.now();
    const floods = 8;
    const each = 12;
    // 8 sockets at a time from one address, as the finding's 8 sockets from a web page.
    for (let round = 0; round < each; round++) {
      const endings = await Promise.all(
        Array.from({ length: floods }, () => sendAndWait(harness.wsUrl, hugeHello, '192.0.2.10')),
      );
      for (const ending of endings) expect(ending.code).toBe(4426);
    }
    const elapsed = Date.now() - started;
    const sent = floods * each * hugeHello.length;
    const refused = () => logLines().filter((line) => line['address'] === '192.0.2.10');
    // Each refusal is a line or counted in the next `suppressed` line, once its interval ends.
    const accounted = () =>
      refused().reduce((sum, line) => sum + (Number(line['suppressed'] ?? 0) || 1), 0);
    await vi.waitFor(() => expect(accounted()).toBe(floods * each), { timeout: INTERVAL_MS * 5 });
    const lines = refused();
    for (const line of lines) expect(line).toMatchObject({ reason: 'unsupported_version' });
    expect(lines.length).toBeLessThanOrEqual(2 * (Math.ceil(elapsed / INTERVAL_MS) + 1));
    expect(lines.some((line) => Number(line['suppressed']) > 1)).toBe(true);
    expect(String(lines[0]!['detail'])).toMatch(
      /^hello offered versions 9,9,9.*…\[\d+ more chars\]$/,
    );
    // 7.7 MB offered; what the log took is a few short lines.
    expect(sent).toBeGreaterThan(7_000_000);
    expect(logBytes() - before).toBeLessThan(lines.length * 3_000);
  });

  it('hellos from many addresses rotate host.log, keeping at most keepFiles old files', async () => {
    for (let batch = 0; batch < 16; batch++) {
      await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          sendAndWait(harness.wsUrl, hugeHello, `198.51.100.${batch * 8 + i}`),
        ),
      );
    }
    const folder = join(harness.dataDir, 'logs');
    expect(readdirSync(folder).sort()).toEqual(['host.log', 'host.log.1', 'host.log.2']);
    expect(logBytes()).toBeLessThanOrEqual((KEEP_FILES + 1) * MAX_FILE_BYTES);
    for (const name of readdirSync(folder)) {
      expect(statSync(join(folder, name)).size).toBeLessThanOrEqual(MAX_FILE_BYTES);
      expect(statSync(join(folder, name)).mode & 0o777).toBe(0o600);
    }
    // 128 addresses, 128 lines of at most a few KB each, the newest still there.
    const lines = logLines().filter((line) => line.msg === 'hello refused');
    expect(lines.at(-1)).toMatchObject({ address: '198.51.100.127' });
    for (const line of lines) expect(JSON.stringify(line).length).toBeLessThan(4_000);
  });
});
