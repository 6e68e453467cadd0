/**
 * The review of a run's own branch in words (docs/worktrees.md): what it changed, what an
 * answer did (from `run.integrate`'s answer or the `run.integrated` event another device's
 * answer recorded), and why an answer was refused.
 */
import type { RunReview } from '#protocol';
import { INTEGRATED_STATES } from '#client';

/** What an answer did: `run.integrate`'s result, or a `run.integrated` event's payload. */
export interface Integration {
  state: 'merged' | 'kept' | 'discarded';
  into?: string | undefined;
  commit?: string | undefined;
  how?: string | undefined;
}

/** "2 files changed, +3 −1". */
export function statText(stat: RunReview['stat']): string {
  const files = `${stat.files} file${stat.files === 1 ? '' : 's'} changed`;
  return `${files}, +${stat.additions} −${stat.deletions}`;
}

/** One file's line: `modified notes.txt`, `renamed a → b`, with its counts or "binary". */
export function fileCounts(file: RunReview['files'][number]): string {
  return file.binary ? 'binary' : `+${file.additions} −${file.deletions}`;
}

/** What the answer did to `branch`, as a sentence. */
export function integrationText(done: Integration, branch: string): string {
  const commit = done.commit === undefined ? '' : ` ${done.commit.slice(0, 12)}`;
  const into = done.into ?? 'your branch';
  switch (done.state) {
    case 'merged':
      if (done.how === 'fast_forward') return `Merged into ${into}: fast-forward to${commit}.`;
      if (done.how === 'already_merged')
        return `${branch} was already in ${into}: nothing to merge.`;
      return `Merged into ${into}: merge commit${commit}.`;
    case 'kept':
      return `Kept: ${branch} stays in your repository; its worktree folder is removed.`;
    case 'discarded':
      return `Discarded: ${branch} and its worktree are gone.`;
  }
}

/** The `run.integrated` payload as an {@link Integration}, or undefined if it is not one. */
export function integrationOf(payload: Record<string, unknown>): Integration | undefined {
  const action = payload['action'];
  const state = typeof action === 'string' ? INTEGRATED_STATES[action] : undefined;
  if (state === undefined || state === 'active') return undefined;
  const text = (key: string) => {
    const value = payload[key];
    return typeof value === 'string' ? value : undefined;
  };
  return { state, into: text('into'), commit: text('commit'), how: text('how') };
}

/** Who answered: this device, another one by name, or the host. */
export function answeredBy(
  by: string | undefined,
  devices: Readonly<Record<string, { name: string; current: boolean }>>,
): string | undefined {
  if (by === undefined) return undefined;
  if (by === 'host') return 'the host (the worktree and its branch were deleted by hand)';
  const device = devices[by];
  if (device === undefined) return 'another device';
  return device.current ? 'this device' : device.name;
}
