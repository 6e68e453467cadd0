/**
 * Keeps the page at its end while the reader is there (logic/follow-bottom.ts): when the
 * run screen grows (streamed text, a new card), the page scrolls with it, unless the reader
 * scrolled up; scrolling back to the end follows again.
 */
import type { RefObject } from 'preact';
import { useEffect } from 'preact/hooks';
import { isAtBottom } from '../logic/follow-bottom.js';

/** The page's place now. */
function scrollPlace() {
  return {
    scrollY: window.scrollY,
    viewportHeight: window.innerHeight,
    scrollHeight: document.documentElement.scrollHeight,
  };
}

export function useFollowBottom(screen: RefObject<HTMLElement | null>): void {
  useEffect(() => {
    const element = screen.current;
    if (element === null || typeof ResizeObserver === 'undefined') return;
    // Where the reader was before the screen grew: a growth fires no scroll event.
    let following = isAtBottom(scrollPlace());
    const onScroll = () => {
      following = isAtBottom(scrollPlace());
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
  }, [screen]);
}
