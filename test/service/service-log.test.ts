/**
 * Reading the end of the service's logs: the last lines of a file larger than one read,
 * with characters cut across a read's edge; host log entries as lines a person reads; the
 * last error line of the host's output, and what it says is taken.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  humanLogLine,
  lastErrorLine,
  readLastLines,
  takenResource,
} from '../../host/cli/service-log.js';
import { tempDir } from '../support/temp-dir.js';

describe('service logs', () => {
  it('reads the last lines of a large file whole, multi-byte characters and all', () => {
    using temp = tempDir('tether-service-log-');
    const path = join(temp.path, 'service.log');
    // 3-byte characters: some fall across the 64 KiB edges the file is read in.
    const lines = Array.from({ length: 5_000 }, (_, i) => `${i} ${'€'.repeat(i % 50)}`);
    writeFileSync(path, `${lines.join('\n')}\n`);
    expect(readLastLines(path, 3)).toEqual(lines.slice(-3));
    expect(readLastLines(path, 4_000)).toEqual(lines.slice(-4_000));
    expect(readLastLines(path, 10_000)).toEqual(lines);
    writeFileSync(path, 'no newline at the end');
    expect(readLastLines(path, 5)).toEqual(['no newline at the end']);
  });

  it('shows a host log entry as time, level, message and fields; other lines as they are', () => {
    const entry = JSON.stringify({
      at: '2026-05-01T09:30:12.345Z',
      level: 'warn',
      msg: 'the store cannot commit',
      code: 'SQLITE_FULL',
      path: '/data dir/tether.db',
      state: { ok: false },
    });
    expect(humanLogLine(entry)).toBe(
      '2026-05-01 09:30:12Z warn  the store cannot commit code=SQLITE_FULL path="/data dir/tether.db" state={"ok":false}',
    );
    expect(humanLogLine('listening on http://127.0.0.1:8787')).toBe(
      'listening on http://127.0.0.1:8787',
    );
    expect(humanLogLine('{"not":"a log entry"}')).toBe('{"not":"a log entry"}');
  });

  it('finds the last error line and what it says is taken', () => {
    const output = [
      'tether: port 8787 on 127.0.0.1 is already in use: stop the other program or pass --port',
      'warning: push is off',
      'Error: listen EADDRINUSE: address already in use 0.0.0.0:9000',
      '    at Server.setupListenHandle [as _listen2] (node:net:1817:16)',
      'Node.js v20.20.2',
    ];
    expect(lastErrorLine(output)).toBe(output[2]);
    expect(lastErrorLine(output.slice(0, 2))).toBe(output[0]);
    expect(lastErrorLine(['listening', 'warning: x'])).toBeNull();
    expect(takenResource(output[0] ?? '')).toEqual({ port: 8787 });
    expect(takenResource(output[2] ?? '')).toEqual({ port: 9000 });
    expect(
      takenResource(
        'tether: another Tether host is running on the data directory /a (b) (it holds /a (b)/host.lock); stop it first, or pass another --data',
      ),
    ).toEqual({ dataDir: '/a (b)' });
    expect(takenResource('tether: the config file is not valid JSON')).toBeNull();
  });
});
