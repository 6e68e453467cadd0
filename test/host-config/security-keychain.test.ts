import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { securityKeychain } from '../../host/identity/testing.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';

/**
 * A stand-in for /usr/bin/security: it logs each call's argv and stdin, keeps items in a
 * JSON file, splits `-i` lines the way Apple's split_line does (quotes, backslash
 * escapes), exits 44 for a missing item, and 36 when a `locked` file exists.
 */
const FAKE_SECURITY = `#!${process.execPath}
const fs = require('node:fs');
const path = require('node:path');
const at = (name) => path.join(__dirname, name);
const stdin = fs.readFileSync(0, 'utf8');
fs.appendFileSync(at('calls.jsonl'), JSON.stringify({ argv: process.argv.slice(2), stdin }) + '\\n');
if (fs.existsSync(at('locked'))) {
  process.stderr.write('security: User interaction is not allowed.\\n');
  process.exit(36);
}
const items = fs.existsSync(at('items.json')) ? JSON.parse(fs.readFileSync(at('items.json'), 'utf8')) : {};
function split(line) {
  const words = [];
  let word = null;
  let quote = null;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (word === null) {
      if (/\\s/.test(ch)) continue;
      word = '';
      if (ch === '"' || ch === "'") { quote = ch; continue; }
    }
    if (ch === '\\\\') { word += line[++i] ?? ''; continue; }
    if (quote ? ch === quote : /\\s/.test(ch)) { words.push(word); word = null; quote = null; continue; }
    word += ch;
  }
  if (word !== null) words.push(word);
  return words;
}
function execute(args) {
  const options = {};
  for (let i = 1; i < args.length; i++) if (args[i] !== '-U') options[args[i]] = args[++i];
  const key = options['-a'] + '|' + options['-s'];
  if (args[0] === 'find-generic-password') {
    if (!(key in items)) return 44;
    process.stdout.write(items[key] + '\\n');
    return 0;
  }
  if (args[0] === 'add-generic-password') {
    items[key] = options['-w'];
    fs.writeFileSync(at('items.json'), JSON.stringify(items));
    return 0;
  }
  if (args[0] === 'delete-generic-password') {
    if (!(key in items)) return 44;
    delete items[key];
    fs.writeFileSync(at('items.json'), JSON.stringify(items));
    return 0;
  }
  return 2;
}
let code = 0;
if (process.argv[2] === '-i') {
  for (const line of stdin.split('\\n')) if (line.trim() !== '') code = execute(split(line));
} else {
  code = execute(process.argv.slice(2));
}
process.exit(code);
`;

let temp: TempDir;
let dir: string;
let command: string;

beforeEach(() => {
  temp = tempDir('tether-security-', { realpath: false });
  dir = temp.path;
  command = join(dir, 'security');
  writeFileSync(command, FAKE_SECURITY);
  chmodSync(command, 0o755);
});

afterEach(() => {
  temp.remove();
});

const Call = z.strictObject({ argv: z.array(z.string()), stdin: z.string() });

function calls() {
  const lines = readFileSync(join(dir, 'calls.jsonl'), 'utf8').trim().split('\n');
  return lines.map((line) => Call.parse(JSON.parse(line)));
}

describe('securityKeychain', () => {
  it('stores through stdin, never argv, and reads back names with spaces and quotes', async () => {
    const keychain = securityKeychain(command);
    const service = 'Tether host key (/Users/a "b"/Library/Application Support/Tether\\x)';
    const secret = 'q2Lk2wB6mQ0bF1oHh3m0fGm7d1V6n2kq9m8xY0z1A2c';

    expect(await keychain.read(service)).toBeNull();
    await keychain.write(service, secret);
    expect(await keychain.read(service)).toBe(secret);

    const all = calls();
    expect(all.map((call) => call.argv[0])).toEqual([
      'find-generic-password',
      '-i',
      'find-generic-password',
      'find-generic-password',
    ]);
    for (const call of all) expect(call.argv.join(' ')).not.toContain(secret);
    expect(all[1]).toEqual({ argv: ['-i'], stdin: expect.stringContaining(secret) as string });
    expect(all[0]!.argv).toEqual([
      'find-generic-password',
      '-a',
      'tether-host',
      '-s',
      service,
      '-w',
    ]);
  });

  it('removes an item by its names, and says when there was none', async () => {
    const keychain = securityKeychain(command);
    const service = 'Tether voice key (/Users/a/Library/Application Support/Tether)';
    await keychain.write(service, 'gsk-voice-key-0123456789');
    expect(await keychain.remove(service)).toBe(true);
    expect(await keychain.read(service)).toBeNull();
    expect(await keychain.remove(service)).toBe(false);
    const removal = calls().find((call) => call.argv[0] === 'delete-generic-password');
    expect(removal?.argv).toEqual(['delete-generic-password', '-a', 'tether-host', '-s', service]);
  });

  it('rejects with the exit status when the Keychain cannot be used', async () => {
    writeFileSync(join(dir, 'locked'), '');
    const keychain = securityKeychain(command);
    await expect(keychain.read('Tether host key (/x)')).rejects.toThrow(
      'security find-generic-password exited with 36: security: User interaction is not allowed.',
    );
    await expect(keychain.write('Tether host key (/x)', 'secret-value')).rejects.toThrow(
      /add-generic-password exited with 36/,
    );
  });

  it('refuses a name with a line break before running anything', async () => {
    const keychain = securityKeychain(command);
    await expect(keychain.write('two\nlines', 'secret-value')).rejects.toThrow(/line break/);
    expect(existsSync(join(dir, 'calls.jsonl'))).toBe(false);
  });
});
