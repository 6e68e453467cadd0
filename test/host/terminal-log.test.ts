/**
 * What `tether start` shows of its log on the terminal: warnings, errors and the pairing
 * SAS as plain lines by default, every JSON line with `--log-format json`.
 */
import { describe, expect, it } from 'vitest';
import { takeLogFormat, terminalLogSink } from '../../host/cli/terminal-log.js';

function shown(format: 'human' | 'json', entries: object[]): string {
  let out = '';
  const sink = terminalLogSink(format, { write: (line: string) => (out += line) });
  for (const entry of entries) sink.write(`${JSON.stringify(entry)}\n`);
  return out;
}

const at = '2026-12-01T00:00:00.000Z';
const entries = [
  { at, level: 'info', msg: 'listening', url: 'http://127.0.0.1:8787' },
  { at, level: 'warn', msg: 'risky allow rule', warning: 'npm runs code' },
  { at, level: 'info', msg: 'device paired', deviceId: 'dev_1', name: 'iPhone', sas: '123456' },
  { at, level: 'error', msg: 'the store cannot commit' },
];

describe('the terminal log', () => {
  it('shows warnings, errors and a pairing with its SAS as plain lines, and hides other info', () => {
    expect(shown('human', entries)).toBe(
      'warning: risky allow rule {"warning":"npm runs code"}\n' +
        "device paired: iPhone (dev_1), SAS 123456: it must match the device's screen; if not, revoke it\n" +
        'error: the store cannot commit\n',
    );
  });

  it('passes every JSON line through with --log-format json', () => {
    expect(shown('json', entries).split('\n').filter(Boolean)).toHaveLength(4);
  });

  it('takes --log-format out of the arguments, and names the valid values otherwise', () => {
    expect(takeLogFormat(['--port', '1', '--log-format', 'json'])).toEqual({
      argv: ['--port', '1'],
      format: 'json',
    });
    expect(takeLogFormat(['--log-format=human'])).toEqual({ argv: [], format: 'human' });
    expect(() => takeLogFormat(['--log-format', 'xml'])).toThrow(
      '--log-format must be human or json, not "xml"',
    );
  });
});
