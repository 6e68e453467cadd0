/**
 * `tether model set-key` on a terminal: a real pseudo-terminal from util-linux `script`.
 * The prompt goes out, the key typed after it is not echoed, and it is stored.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../support/temp-dir.js';
import { until } from '../support/wait.js';

const bin = new URL('../../bin/tether.js', import.meta.url).pathname;
const KEY = 'sk-typed-on-a-terminal-42';
// util-linux's script (-e: its exit status is the command's); the BSD one on macOS differs.
const hasScript = process.platform === 'linux' && existsSync('/usr/bin/script');

describe.skipIf(!hasScript)('tether model set-key on a terminal', () => {
  it('prompts, does not echo the key, and stores it', async () => {
    await using temp = tempDir('tether-set-key-tty-');
    const dataDir = join(temp.path, 'data');
    const command = `'${process.execPath}' '${bin}' model set-key --data '${dataDir}'`;
    const child = spawn('/usr/bin/script', ['-qec', command, '/dev/null'], {
      env: { PATH: process.env['PATH'] ?? '', HOME: temp.path, TETHER_KEY_STORE: 'file' },
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    await until(
      'the prompt',
      () => output,
      (text) => text.includes('Model API key (not shown): '),
    );
    child.stdin.write(`${KEY}\r`);
    expect(await exited).toBe(0);
    expect(output).toContain('stored the model key in');
    expect(output).not.toContain(KEY);
    expect(readFileSync(join(dataDir, 'model-key.json'), 'utf8')).toContain(KEY);
  });
});
