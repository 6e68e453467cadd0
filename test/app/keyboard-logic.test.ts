import { describe, expect, it } from 'vitest';
import { keyboardInset } from '../../remote/app/src/logic/keyboard-inset.js';
import { shortcutFor, type KeyPress } from '../../remote/app/src/logic/shortcut.js';

const press = (key: string, modifiers: Partial<KeyPress> = {}): KeyPress => ({
  key,
  metaKey: false,
  ctrlKey: false,
  altKey: false,
  shiftKey: false,
  isComposing: false,
  ...modifiers,
});

describe('keyboardInset', () => {
  it('is the height below the visual viewport, as an iPhone keyboard leaves it', () => {
    // iPhone 14 portrait: 844 tall less Safari's bars, the keyboard takes 336 of it.
    expect(keyboardInset(750, { height: 414, offsetTop: 0, scale: 1 })).toBe(336);
    // Safari scrolled the visual viewport down to show the focused field.
    expect(keyboardInset(750, { height: 414, offsetTop: 120, scale: 1 })).toBe(216);
    expect(keyboardInset(750, { height: 414.4, offsetTop: 0, scale: 1 })).toBe(336);
  });

  it('is 0 without a keyboard, for a toolbar that grows, and while pinch-zoomed', () => {
    expect(keyboardInset(750, { height: 750, offsetTop: 0, scale: 1 })).toBe(0);
    expect(keyboardInset(750, { height: 700, offsetTop: 0, scale: 1 })).toBe(0);
    expect(keyboardInset(750, { height: 375, offsetTop: 100, scale: 2 })).toBe(0);
    expect(keyboardInset(750, { height: 760, offsetTop: 0, scale: 1 })).toBe(0);
  });
});

describe('shortcutFor', () => {
  it('sends a form with ⌘+Enter or Ctrl+Enter typed in a field, not elsewhere', () => {
    expect(shortcutFor(press('Enter', { metaKey: true }), 'text-field')).toBe('submit-form');
    expect(shortcutFor(press('Enter', { ctrlKey: true }), 'text-field')).toBe('submit-form');
    expect(shortcutFor(press('Enter', { ctrlKey: true }), 'search')).toBe('submit-form');
    expect(shortcutFor(press('Enter', { ctrlKey: true }), 'other')).toBeUndefined();
    expect(shortcutFor(press('Enter'), 'text-field')).toBeUndefined();
    expect(shortcutFor(press('Enter', { shiftKey: true }), 'text-field')).toBeUndefined();
    expect(shortcutFor(press('Enter', { ctrlKey: true, altKey: true }), 'text-field')).toBe(
      undefined,
    );
  });

  it('leaves Enter to an input method that is composing', () => {
    expect(
      shortcutFor(press('Enter', { metaKey: true, isComposing: true }), 'text-field'),
    ).toBeUndefined();
  });

  it('focuses the search with a plain / outside fields, and Escape leaves it', () => {
    expect(shortcutFor(press('/'), 'other')).toBe('focus-search');
    expect(shortcutFor(press('/'), 'text-field')).toBeUndefined();
    expect(shortcutFor(press('/'), 'search')).toBeUndefined();
    expect(shortcutFor(press('/', { metaKey: true }), 'other')).toBeUndefined();
    expect(shortcutFor(press('Escape'), 'search')).toBe('leave-search');
    expect(shortcutFor(press('Escape'), 'text-field')).toBeUndefined();
  });
});
