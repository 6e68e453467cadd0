/**
 * A unified diff with added lines green and removed lines red, hidden characters escaped.
 */
import { useMemo } from 'preact/hooks';
import { diffLines } from '../logic/diff-lines.js';
import { shownText } from './shown-text.js';

export function DiffView({ diff, testId }: { diff: string; testId?: string }) {
  const lines = useMemo(
    () =>
      diffLines(diff).map((line, i) => (
        <span key={i} class={`diff-line diff-${line.kind}`}>
          {shownText(line.text + '\n')}
        </span>
      )),
    [diff],
  );
  return (
    <pre class="diff" data-testid={testId}>
      {lines}
    </pre>
  );
}
