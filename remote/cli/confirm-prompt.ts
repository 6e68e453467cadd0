/**
 * A yes-or-no question on the terminal: only `y` or `yes` (any case) is yes; any other
 * answer, an empty line or the end of input is no.
 */
import { createInterface } from 'node:readline';
import { TetherError } from '../../protocol/index.js';

/**
 * Writes `question` with `out` and reads one line from `input`; resolves with whether it
 * was `y` or `yes`.
 *
 * @throws the signal's reason, as a TetherError, when `signal` aborts first (Ctrl-C).
 */
export function confirm(
  question: string,
  input: NodeJS.ReadableStream,
  out: (text: string) => void,
  signal: AbortSignal,
): Promise<boolean> {
  signal.throwIfAborted();
  out(question);
  const lines = createInterface({ input, terminal: false });
  return new Promise<boolean>((resolve, reject) => {
    const settle = (end: () => void) => {
      signal.removeEventListener('abort', onAbort);
      lines.removeAllListeners();
      lines.close();
      end();
    };
    const onAbort = () => settle(() => reject(TetherError.from(signal.reason)));
    signal.addEventListener('abort', onAbort, { once: true });
    lines.once('line', (answer) => settle(() => resolve(/^\s*y(es)?\s*$/i.test(answer))));
    lines.once('close', () => settle(() => resolve(false)));
  });
}
