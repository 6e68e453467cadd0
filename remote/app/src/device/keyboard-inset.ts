/**
 * Keeps `--keyboard-inset` on the root element equal to the height an on-screen keyboard
 * covers (logic/keyboard-inset.ts), and `data-keyboard="open"` on it while there is one:
 * the stylesheet lifts the run screen's dock (the composer and the run's buttons) above
 * the keyboard and hides the tab bar meanwhile. Where the browser has no VisualViewport
 * the inset stays 0px.
 */
import { keyboardInset } from '../logic/keyboard-inset.js';

export function followKeyboardInset(): void {
  const visual = window.visualViewport;
  if (visual === null || visual === undefined) return;
  const root = document.documentElement;
  let shown = -1;
  const update = () => {
    const inset = keyboardInset(window.innerHeight, visual);
    if (inset === shown) return;
    shown = inset;
    root.style.setProperty('--keyboard-inset', `${inset}px`);
    if (inset > 0) root.dataset['keyboard'] = 'open';
    else delete root.dataset['keyboard'];
  };
  visual.addEventListener('resize', update);
  visual.addEventListener('scroll', update);
  update();
}
