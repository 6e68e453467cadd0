import { describe, expect, it } from 'vitest';
import {
  approvalPointer,
  followsAfterScroll,
  isAtBottom,
} from '../../remote/app/src/logic/follow-bottom.js';

describe('following the run’s end', () => {
  it('follows while the page shows its end, within a finger’s drift', () => {
    expect(isAtBottom({ scrollY: 1156, viewportHeight: 844, scrollHeight: 2000 })).toBe(true);
    expect(isAtBottom({ scrollY: 1120, viewportHeight: 844, scrollHeight: 2000 })).toBe(true);
    // Scrolled up to read: the page stays where the reader put it.
    expect(isAtBottom({ scrollY: 1000, viewportHeight: 844, scrollHeight: 2000 })).toBe(false);
    // A page shorter than the screen is at its end.
    expect(isAtBottom({ scrollY: 0, viewportHeight: 844, scrollHeight: 600 })).toBe(true);
  });

  it('stops following only when the reader moved up, not when the page grew under a follow', () => {
    // The page scrolled itself to 1156; before its scroll event, 500 px more text arrived.
    expect(
      followsAfterScroll(true, 1000, { scrollY: 1156, viewportHeight: 844, scrollHeight: 2500 }),
    ).toBe(true);
    // The reader pulled the page up: following stops.
    expect(
      followsAfterScroll(true, 1156, { scrollY: 900, viewportHeight: 844, scrollHeight: 2000 }),
    ).toBe(false);
    // Scrolling down but short of the end does not follow again; reaching the end does.
    expect(
      followsAfterScroll(false, 900, { scrollY: 1000, viewportHeight: 844, scrollHeight: 2000 }),
    ).toBe(false);
    expect(
      followsAfterScroll(false, 1000, { scrollY: 1150, viewportHeight: 844, scrollHeight: 2000 }),
    ).toBe(true);
  });
});

describe('the approval pill', () => {
  const card = (id: string, top: number) => ({ id, top, bottom: top + 300 });

  it('points down at the first card below the view, counting every card out of view', () => {
    expect(approvalPointer([card('a', 2100)], 0, 700)).toEqual({
      id: 'a',
      direction: 'down',
      count: 1,
      text: '1 approval waiting ↓',
    });
    expect(approvalPointer([card('up', -900), card('b', 900), card('c', 1500)], 0, 700)).toEqual({
      id: 'b',
      direction: 'down',
      count: 3,
      text: '3 approvals waiting ↓',
    });
  });

  it('points up at the nearest card scrolled past, and is gone while one is in view', () => {
    expect(approvalPointer([card('a', -1200), card('b', -700)], 0, 700)).toMatchObject({
      id: 'b',
      direction: 'up',
      text: '2 approvals waiting ↑',
    });
    expect(approvalPointer([card('a', 200)], 0, 700)).toBeUndefined();
    // Partly under the dock still shows its top: in view.
    expect(approvalPointer([card('a', 650)], 0, 700)).toBeUndefined();
    expect(approvalPointer([], 0, 700)).toBeUndefined();
  });
});
