/**
 * The macOS login Keychain through `/usr/bin/security`, without secrets on command lines.
 */
import { spawn } from 'node:child_process';
import type { HostKeyKeychain } from './types.js';

const ACCOUNT = 'tether-host';
/** `errSecItemNotFound`: `security` exits with 44 when there is no such item. */
const ITEM_NOT_FOUND = 44;
/** Long enough to answer a Keychain dialog the first write may raise. */
const TIMEOUT_MS = 30_000;
/** `security -i` reads lines into a 4096-byte buffer (MAX_LINE_LEN in its source). */
const MAX_LINE_BYTES = 4000;

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * A {@link HostKeyKeychain} over the `security` command. Items are generic passwords of
 * account `tether-host`, created with the default access list: `security` itself may read
 * them back without a dialog, so any process of this user can too (as with a 0600 file);
 * what the Keychain adds is encryption at rest, off backups and off the disk.
 *
 * Reading passes only names on the command line (`find-generic-password … -w` prints the
 * secret to stdout). Writing cannot use `-w SECRET`, which any process sees in `ps`, nor
 * a trailing bare `-w`, which prompts on the controlling terminal the host may not have.
 * It runs `security -i` instead, whose documented interactive mode reads whole commands
 * from stdin, so the secret travels through a pipe; that parser takes double-quoted
 * arguments with backslash escapes.
 */
export function securityKeychain(command = '/usr/bin/security'): HostKeyKeychain {
  const read = async (service: string, signal?: AbortSignal): Promise<string | null> => {
    const args = ['find-generic-password', '-a', ACCOUNT, '-s', service, '-w'];
    const outcome = await run(command, args, '', signal);
    if (outcome.code === ITEM_NOT_FOUND) return null;
    if (outcome.code !== 0) throw failure('find-generic-password', outcome);
    return outcome.stdout.replace(/\r?\n$/, '');
  };
  const write = async (service: string, secret: string, signal?: AbortSignal): Promise<void> => {
    const words = ['add-generic-password', '-U', '-a', ACCOUNT, '-s', service, '-w', secret];
    const line = `${words.map(quote).join(' ')}\n`;
    if (Buffer.byteLength(line) > MAX_LINE_BYTES) {
      throw new Error('the Keychain service name is too long for security -i');
    }
    const outcome = await run(command, ['-i'], line, signal);
    if (outcome.code !== 0) throw failure('add-generic-password', outcome);
    // Interactive mode's exit status is its last command's; read back rather than trust it.
    if ((await read(service, signal)) !== secret) {
      throw new Error('the Keychain item did not read back as written');
    }
  };
  const remove = async (service: string, signal?: AbortSignal): Promise<boolean> => {
    const args = ['delete-generic-password', '-a', ACCOUNT, '-s', service];
    const outcome = await run(command, args, '', signal);
    if (outcome.code === ITEM_NOT_FOUND) return false;
    if (outcome.code !== 0) throw failure('delete-generic-password', outcome);
    return true;
  };
  return { read, write, remove };
}

/**
 * The generic password of `service` and `account` in the login Keychain (an item the user
 * made, e.g. an MCP server's token), or null when there is none. Only names go on the
 * command line; the secret comes back on stdout.
 */
export async function readKeychainItem(
  service: string,
  account: string,
  command = '/usr/bin/security',
): Promise<string | null> {
  const args = ['find-generic-password', '-a', account, '-s', service, '-w'];
  const outcome = await run(command, args, '');
  if (outcome.code === ITEM_NOT_FOUND) return null;
  if (outcome.code !== 0) throw failure('find-generic-password', outcome);
  return outcome.stdout.replace(/\r?\n$/, '');
}

function quote(word: string): string {
  if (/[\r\n\0]/.test(word)) throw new Error('a Keychain name cannot contain a line break');
  return `"${word.replace(/["\\]/g, '\\$&')}"`;
}

function failure(operation: string, outcome: Outcome): Error {
  const detail = outcome.stderr.trim().split('\n').slice(-1)[0] ?? '';
  return new Error(`security ${operation} exited with ${outcome.code}: ${detail}`);
}

function run(
  command: string,
  args: readonly string[],
  input: string,
  signal?: AbortSignal,
): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: 'pipe', timeout: TIMEOUT_MS, signal });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code, killedBy) => {
      if (code === null) reject(new Error(`security was stopped by ${killedBy ?? 'a signal'}`));
      else resolve({ code, stdout, stderr });
    });
    child.stdin.on('error', () => {
      // EPIPE when `security` exits before reading; its exit status says what happened.
    });
    child.stdin.end(input);
  });
}
