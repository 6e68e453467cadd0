/**
 * How much of the page's bottom an on-screen keyboard covers, from the layout viewport's
 * height and the visual viewport (the part of the page actually shown). WebKit ignores
 * the `interactive-widget` viewport key: on an iPhone the keyboard overlays the page
 * instead of resizing it, so fixed and sticky parts stay behind it unless moved up by
 * this much.
 */

/** The visual viewport's size and position, as `window.visualViewport` reports them. */
export interface VisualViewportBox {
  height: number;
  offsetTop: number;
  scale: number;
}

/**
 * Keyboards are taller than this; a smaller gap is the browser's own toolbar
 * growing or shrinking, or rounding, and is left alone.
 */
const MIN_KEYBOARD_PX = 80;

/**
 * The covered height in CSS pixels, rounded; 0 with no keyboard, and 0 while the page is
 * pinch-zoomed (then the visual viewport is smaller for another reason).
 */
export function keyboardInset(layoutHeight: number, visual: VisualViewportBox): number {
  if (Math.abs(visual.scale - 1) > 0.01) return 0;
  const covered = layoutHeight - (visual.height + visual.offsetTop);
  return covered >= MIN_KEYBOARD_PX ? Math.round(covered) : 0;
}
