import { describe, expect, it } from 'vitest';
import { approvalPointer, isAtBottom } from '../../remote/app/src/logic/follow-bottom.js';

describe('following the run’s end', () => {
  it('follows while the page shows its end, within a finger’s drift', () => {
    expect(isAtBottom({ scrollY: 1156, viewportHeight: 844, scrollHeight: 2000 })).toBe(true);
    expect(isAtBottom({ scrollY: 1120, viewportHeight: 844, scrollHeight: 2000 })).toBe(true);
    // Scrolled up to read: the page stays where the reader put it.
    expect(isAtBottom({ scrollY: 1000, viewportHeight: 844, scrollHeight: 2000 })).toBe(false);
    // A page shorter than the screen is at its end.
    expect(isAtBottom({ scrollY: 0, viewportHeight: 844, scrollHeight: 600 })).toBe(true);
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
