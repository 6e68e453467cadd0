/**
 * The run screen follows the end of a run while its reader is there: streamed text and a
 * new approval card stay in view until the reader scrolls up. Approvals waiting out of
 * view are pointed at ("1 approval waiting ↓"). The decisions, DOM-free.
 */

/** How near the end counts as at the end (a finger's small drift does not stop following). */
const FOLLOW_SLACK_PX = 48;

/** Where the page is scrolled, in CSS px. */
export interface ScrollPlace {
  scrollY: number;
  viewportHeight: number;
  scrollHeight: number;
}

/** Whether the page shows its end (within {@link FOLLOW_SLACK_PX}). */
export function isAtBottom({ scrollY, viewportHeight, scrollHeight }: ScrollPlace): boolean {
  return scrollY + viewportHeight >= scrollHeight - FOLLOW_SLACK_PX;
}

/**
 * Whether the page still follows after a scroll event, given whether it followed and where
 * it was at the last one. At the end it follows; it stops only when the reader moved up. A
 * scroll event the page's own follow caused can arrive after more text grew the page, so
 * "not at the end" alone would stop following in the middle of a fast stream.
 */
export function followsAfterScroll(
  following: boolean,
  previousScrollY: number,
  place: ScrollPlace,
): boolean {
  if (isAtBottom(place)) return true;
  if (place.scrollY < previousScrollY) return false;
  return following;
}

/** A pending approval card's place: its top and bottom in viewport px. */
export interface CardPlace {
  id: string;
  top: number;
  bottom: number;
}

/** The approvals out of view, and the way to the nearest; undefined when all are in view. */
export interface ApprovalPointer {
  /** The card to jump to: the first one below the view, else the last one above it. */
  id: string;
  direction: 'down' | 'up';
  count: number;
  text: string;
}

/**
 * Which pending approval cards the reader cannot see, between `viewTop` and `viewBottom`
 * (the top of what covers the page's end: the run's dock), and where to point.
 */
export function approvalPointer(
  cards: readonly CardPlace[],
  viewTop: number,
  viewBottom: number,
): ApprovalPointer | undefined {
  const below = cards.filter((card) => card.top >= viewBottom);
  const above = cards.filter((card) => card.bottom <= viewTop);
  const count = below.length + above.length;
  if (count === 0) return undefined;
  const [target, direction] =
    below.length > 0 ? [below[0]!, 'down' as const] : [above[above.length - 1]!, 'up' as const];
  const arrow = direction === 'down' ? '↓' : '↑';
  const text = `${count} approval${count === 1 ? '' : 's'} waiting ${arrow}`;
  return { id: target.id, direction, count, text };
}
