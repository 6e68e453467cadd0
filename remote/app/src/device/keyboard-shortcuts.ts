/**
 * Binds the app's keyboard shortcuts (logic/shortcut.ts) on the document: ⌘/Ctrl+Enter
 * sends the form being typed in, through its own submit button and only while that button
 * is enabled (a busy follow-up stays unsent, as a tap would leave it); `/` focuses the
 * element marked `data-search-input`, when the screen has one; Escape leaves it.
 */
import { shortcutFor, type KeyTarget } from '../logic/shortcut.js';

const SEARCH = '[data-search-input]';

export function bindKeyboardShortcuts(): void {
  document.addEventListener('keydown', handleShortcutKey);
}

/**
 * What a key press does, also for one pressed before this chunk arrived (main.tsx keeps
 * those): its `preventDefault` then comes too late, which is why main.tsx already
 * prevented ⌘/Ctrl+Enter's own submission.
 */
export function handleShortcutKey(event: KeyboardEvent): void {
  const element = event.target instanceof HTMLElement ? event.target : null;
  const shortcut = shortcutFor(event, targetOf(element));
  if (shortcut === undefined) return;
  switch (shortcut) {
    case 'submit-form': {
      const form = isField(element) ? element.form : null;
      if (form === null) return;
      event.preventDefault();
      const button = form.querySelector<HTMLButtonElement>('button[type="submit"]');
      if (button !== null && !button.disabled) form.requestSubmit(button);
      return;
    }
    case 'focus-search': {
      const search = document.querySelector<HTMLElement>(SEARCH);
      if (search === null) return;
      event.preventDefault();
      search.focus();
      return;
    }
    case 'leave-search':
      element?.blur();
      return;
  }
}

/** Where typing goes: text inputs, text areas and selects; not buttons or checkboxes. */
function isField(
  element: HTMLElement | null,
): element is HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement {
  if (element instanceof HTMLTextAreaElement || element instanceof HTMLSelectElement) return true;
  return (
    element instanceof HTMLInputElement &&
    !['checkbox', 'radio', 'button', 'submit', 'reset'].includes(element.type)
  );
}

function targetOf(element: HTMLElement | null): KeyTarget {
  if (element === null) return 'other';
  if (element.matches(SEARCH)) return 'search';
  return isField(element) || element.isContentEditable ? 'text-field' : 'other';
}
