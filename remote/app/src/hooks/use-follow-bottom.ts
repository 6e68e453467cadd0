/**
 * Keeps the page at its end while the reader is there (logic/follow-bottom.ts): when the
 * run screen grows (streamed text, a new card), the page scrolls with it, unless the reader
 * scrolled up; scrolling back to the end follows again.
 */
import type { RefObject } from 'preact';
import { useEffect } from 'preact/hooks';
import { followsAfterScroll, isAtBottom } from '../logic/follow-bottom.js';

/** The page's place now. */
function scrollPlace() {
  return {
    scrollY: window.scrollY,
    viewportHeight: window.innerHeight,
    scrollHeight: document.documentElement.scrollHeight,
  };
}

/**
 * `runId`: the run shown; a run opened, or another run shown in its place, starts again.
 * `live`: whether that run may still grow when it opens; a live run opens at its end (its
 * newest text and an approval it waits for), however much of it came before the screen.
 */
export function useFollowBottom(
  screen: RefObject<HTMLElement | null>,
  runId: string,
  live: boolean,
): void {
  useEffect(() => {
    const element = screen.current;
    if (element === null || typeof ResizeObserver === 'undefined') return;
    // Where the reader was before the screen grew: a growth fires no scroll event.
    let following = live || isAtBottom(scrollPlace());
    let lastScrollY = window.scrollY;
    const onScroll = () => {
      const place = scrollPlace();
      following = followsAfterScroll(following, lastScrollY, place);
      lastScrollY = place.scrollY;
    };
    const observer = new ResizeObserver(() => {
      if (following) window.scrollTo(0, document.documentElement.scrollHeight);
    });
    observer.observe(element);
    window.addEventListener('scroll', onScroll, { passive: true });
    return () => {
      observer.disconnect();
      window.removeEventListener('scroll', onScroll);
    };
    // Read once, as the run opens: a run that ends while shown keeps the reader's place.
  }, [screen, runId]);
}
