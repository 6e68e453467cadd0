/**
 * Reading a secret typed by a person without echoing it, or piped on stdin.
 */
import { z } from 'zod';

/**
 * An endpoint's API key as typed or piped: printable, without spaces, as providers' keys
 * are and as `security -i` takes them.
 */
export const EndpointKey = z
  .string()
  .trim()
  .min(1, { error: 'no key was given' })
  .max(2000, { error: 'the key is longer than 2000 characters' })
  .regex(/^[\x21-\x7e]+$/, {
    error: 'the key has spaces or characters an API key does not have',
  });

/**
 * The first line of stdin. On a terminal, echo goes off (raw mode), then `prompt` goes to
 * stderr, and the typed characters are not shown (backspace works, Ctrl-C or Ctrl-D gives
 * up).
 * Resolves with null when nothing was given.
 */
export function readSecretInput(prompt: string, signal: AbortSignal): Promise<string | null> {
  const stdin = process.stdin;
  if (!stdin.isTTY) {
    return new Promise((resolve, reject) => {
      let text = '';
      stdin.setEncoding('utf8');
      stdin.on('data', (chunk: string) => (text += chunk));
      stdin.on('end', () => resolve(text.split(/\r?\n/)[0] ?? null));
      stdin.on('error', reject);
    });
  }
  // Echo off before the prompt shows: a key typed as soon as the prompt appears is never shown.
  stdin.setRawMode(true);
  process.stderr.write(prompt);
  stdin.setEncoding('utf8');
  return new Promise((resolve) => {
    let typed = '';
    const finish = (value: string | null) => {
      stdin.setRawMode(false);
      stdin.off('data', onData);
      signal.removeEventListener('abort', onAbort);
      stdin.pause();
      process.stderr.write('\n');
      resolve(value);
    };
    const onAbort = () => finish(null);
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n') return finish(typed);
        if (char === '\u0003' || char === '\u0004') return finish(null);
        if (char === '\u007f' || char === '\b') typed = typed.slice(0, -1);
        else typed += char;
      }
    };
    signal.addEventListener('abort', onAbort);
    stdin.on('data', onData);
    stdin.resume();
  });
}
