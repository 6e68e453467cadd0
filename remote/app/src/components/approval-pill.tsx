/**
 * "1 approval waiting ↓": shown above the run's dock while a pending approval card of the
 * run is out of view (below the dock's top, or scrolled past); a tap brings the card into
 * view. Follows the page's scrolling and the screen's growth.
 */
import type { RefObject } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { approvalPointer, type ApprovalPointer } from '../logic/follow-bottom.js';

const PENDING = '[data-testid="approval-card"][data-state="pending"]';

/** `screen`: the run screen; `dock`: what covers its end; `pending`: how many wait. */
export function ApprovalPill({
  screen,
  dock,
  pending,
}: {
  screen: RefObject<HTMLElement | null>;
  dock: RefObject<HTMLElement | null>;
  pending: number;
}) {
  const [pointer, setPointer] = useState<ApprovalPointer | undefined>(undefined);
  useEffect(() => {
    const element = screen.current;
    if (element === null || pending === 0) {
      setPointer(undefined);
      return;
    }
    let frame: number | undefined;
    const measure = () => {
      frame = undefined;
      const cards = [...element.querySelectorAll<HTMLElement>(PENDING)].map((card) => {
        const box = card.getBoundingClientRect();
        return { id: card.dataset['approvalId'] ?? '', top: box.top, bottom: box.bottom };
      });
      const viewBottom = dock.current?.getBoundingClientRect().top ?? window.innerHeight;
      setPointer(approvalPointer(cards, 0, viewBottom));
    };
    const later = () => {
      frame ??= requestAnimationFrame(measure);
    };
    measure();
    const observer = typeof ResizeObserver === 'undefined' ? undefined : new ResizeObserver(later);
    observer?.observe(element);
    window.addEventListener('scroll', later, { passive: true });
    window.addEventListener('resize', later);
    return () => {
      observer?.disconnect();
      window.removeEventListener('scroll', later);
      window.removeEventListener('resize', later);
      if (frame !== undefined) cancelAnimationFrame(frame);
    };
  }, [screen, dock, pending]);
  if (pointer === undefined) return null;
  const jump = () => {
    const card = screen.current?.querySelector<HTMLElement>(
      `${PENDING}[data-approval-id="${CSS.escape(pointer.id)}"]`,
    );
    card?.scrollIntoView({ block: 'center' });
  };
  return (
    <button
      type="button"
      class="approval-pill"
      data-testid="approval-pill"
      data-count={String(pointer.count)}
      onClick={jump}
    >
      {pointer.text}
    </button>
  );
}
