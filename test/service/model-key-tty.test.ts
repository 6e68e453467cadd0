/**
 * `tether model set-key` on a terminal: a real pseudo-terminal from util-linux `script`.
 * The prompt goes out, the key typed after it is not echoed, and it is stored. Under
 * `strace`, echo goes off before the prompt is written (issue 24): a key typed the moment
 * the prompt shows is never echoed.
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
const hasStrace = hasScript && existsSync('/usr/bin/strace');
const PROMPT = 'Model API key (not shown): ';

/** The terminal-setting ioctls and writes of a `strace -f -e trace=ioctl,write` log, in order. */
function echoAndPrompt(log: string): { echoOff: number; prompt: number } {
  const lines = log.split('\n');
  const echoOff = lines.findIndex((line) => {
    const flags = /ioctl\(\d+, [^,]*TCSETS\w*, \{.*c_lflag=([A-Z|]*)/.exec(line)?.[1];
    return flags !== undefined && !flags.split('|').includes('ECHO') && line.endsWith(' = 0');
  });
  const prompt = lines.findIndex((line) => /write\(\d+, "Model API key/.test(line));
  return { echoOff, prompt };
}

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
      (text) => text.includes(PROMPT),
    );
    child.stdin.write(`${KEY}\r`);
    expect(await exited).toBe(0);
    expect(output).toContain('stored the model key in');
    expect(output).not.toContain(KEY);
    expect(readFileSync(join(dataDir, 'model-key.json'), 'utf8')).toContain(KEY);
  });

  it.skipIf(!hasStrace)('turns echo off before it writes the prompt', async () => {
    await using temp = tempDir('tether-set-key-order-');
    const dataDir = join(temp.path, 'data');
    const trace = join(temp.path, 'strace.log');
    const command = `'${process.execPath}' '${bin}' model set-key --data '${dataDir}'`;
    const strace = ['-f', '-e', 'trace=ioctl,write', '-o', trace];
    const child = spawn(
      '/usr/bin/strace',
      [...strace, '/usr/bin/script', '-qec', command, '/dev/null'],
      {
        env: { PATH: process.env['PATH'] ?? '', HOME: temp.path, TETHER_KEY_STORE: 'file' },
      },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    await until(
      'the prompt',
      () => output,
      (text) => text.includes(PROMPT),
    );
    child.stdin.write(`${KEY}\r`);
    expect(await exited).toBe(0);

    const { echoOff, prompt } = echoAndPrompt(readFileSync(trace, 'utf8'));
    expect(prompt, 'the prompt is written').toBeGreaterThan(0);
    expect(echoOff, 'echo goes off').toBeGreaterThan(0);
    expect(echoOff, 'echo goes off before the prompt is written').toBeLessThan(prompt);
  });
});
