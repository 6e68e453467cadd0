/**
 * The app's keyboard shortcuts, decided from a key press and what it was typed into:
 * ⌘+Enter (Mac) or Ctrl+Enter sends the form being typed in, `/` focuses the search box
 * when not typing in a field, Escape leaves the search box.
 */

/** The parts of a `KeyboardEvent` a shortcut depends on. */
export interface KeyPress {
  key: string;
  metaKey: boolean;
  ctrlKey: boolean;
  altKey: boolean;
  shiftKey: boolean;
  /** True while an input method composes text: Enter then picks a candidate. */
  isComposing: boolean;
}

/** What the key was pressed in. */
export type KeyTarget = 'search' | 'text-field' | 'other';

/** What a key press does; `undefined` leaves it to the page. */
export type Shortcut = 'submit-form' | 'focus-search' | 'leave-search';

export function shortcutFor(press: KeyPress, target: KeyTarget): Shortcut | undefined {
  if (press.isComposing) return undefined;
  if (press.key === 'Enter' && (press.metaKey || press.ctrlKey) && !press.altKey) {
    return target === 'other' ? undefined : 'submit-form';
  }
  const plain = !press.metaKey && !press.ctrlKey && !press.altKey;
  if (press.key === '/' && plain && target === 'other') return 'focus-search';
  if (press.key === 'Escape' && target === 'search') return 'leave-search';
  return undefined;
}
