/**
 * The review of a run's own branch in words (remote/app/src/logic/review-text.ts): the
 * stat, what an answer did (from `run.integrate`'s answer or the `run.integrated` event),
 * and who answered.
 */
import { describe, expect, it } from 'vitest';
import {
  answeredBy,
  integrationOf,
  integrationText,
  statText,
} from '../../remote/app/src/logic/review-text.js';

const COMMIT = '0123456789abcdef0123456789abcdef01234567';

describe('the review in words', () => {
  it('says the stat', () => {
    expect(statText({ files: 1, additions: 2, deletions: 0 })).toBe('1 file changed, +2 −0');
    expect(statText({ files: 3, additions: 0, deletions: 5 })).toBe('3 files changed, +0 −5');
  });

  it('says what each answer did, from the event another device’s answer recorded', () => {
    const merged = integrationOf({
      action: 'merge',
      treeDigest: COMMIT,
      by: 'dev_1',
      into: 'main',
      commit: COMMIT,
      how: 'fast_forward',
    });
    expect(integrationText(merged!, 'tether/x')).toBe(
      'Merged into main: fast-forward to 0123456789ab.',
    );
    expect(integrationText({ ...merged!, how: 'merge_commit' }, 'tether/x')).toBe(
      'Merged into main: merge commit 0123456789ab.',
    );
    expect(integrationText({ ...merged!, how: 'already_merged' }, 'tether/x')).toBe(
      'tether/x was already in main: nothing to merge.',
    );
    expect(integrationText(integrationOf({ action: 'keep' })!, 'tether/x')).toBe(
      'Kept: tether/x stays in your repository; its worktree folder is removed.',
    );
    expect(integrationText(integrationOf({ action: 'discard' })!, 'tether/x')).toBe(
      'Discarded: tether/x and its worktree are gone.',
    );
    expect(integrationOf({ action: 'squash' })).toBeUndefined();
  });

  it('names who answered', () => {
    const devices = {
      dev_1: { name: 'iPad', current: false },
      dev_2: { name: 'Phone', current: true },
    };
    expect(answeredBy('dev_1', devices)).toBe('iPad');
    expect(answeredBy('dev_2', devices)).toBe('this device');
    expect(answeredBy('dev_9', devices)).toBe('another device');
    expect(answeredBy(undefined, devices)).toBeUndefined();
    expect(answeredBy('host', devices)).toMatch(/^the host/);
  });
});
