/**
 * `visibleText` and friends (remote/client): every control, bidi and invisible character
 * becomes a visible escape, newline and tab stay, nothing else changes, and a cut says so.
 */
import { describe, expect, it } from 'vitest';
import { cutText, hiddenCount, visibleParts, visibleText } from '../../remote/client/index.js';

describe('visibleText', () => {
  it('shows the carriage return and ANSI erase that hid `; echo pwned #` behind git status', () => {
    const command = 'git status --short\r\x1b[2K; echo pwned #';
    expect(visibleText(command)).toBe('git status --short\\r\\x1b[2K; echo pwned #');
    expect(hiddenCount(command)).toBe(2);
  });

  it('escapes every bidi control, zero-width and invisible character by its code point', () => {
    const cases: Record<string, string> = {
      '\u202A': '\\u{202A}',
      '\u202B': '\\u{202B}',
      '\u202C': '\\u{202C}',
      '\u202D': '\\u{202D}',
      '\u202E': '\\u{202E}',
      '\u2066': '\\u{2066}',
      '\u2067': '\\u{2067}',
      '\u2068': '\\u{2068}',
      '\u2069': '\\u{2069}',
      '\u200E': '\\u{200E}',
      '\u200F': '\\u{200F}',
      '\u061C': '\\u{61C}',
      '\u200B': '\\u{200B}',
      '\u200C': '\\u{200C}',
      '\u200D': '\\u{200D}',
      '\uFEFF': '\\u{FEFF}',
      '\u2028': '\\u{2028}',
      '\u2029': '\\u{2029}',
      '\u2060': '\\u{2060}',
      '\u00AD': '\\xad',
      '\u{E0041}': '\\u{E0041}',
      '\uD800': '\\u{D800}',
    };
    for (const [char, escape] of Object.entries(cases)) {
      expect(visibleText(`a${char}b`), escape).toBe(`a${escape}b`);
    }
  });

  it('escapes all C0 controls but newline and tab, DEL and the C1 controls', () => {
    for (let code = 0; code < 0xa0; code += 1) {
      const char = String.fromCharCode(code);
      const hidden = code < 0x20 || code >= 0x7f;
      const kept = char === '\n' || char === '\t' || !hidden;
      expect(visibleText(char), `U+${code.toString(16)}`).toBe(
        kept ? char : char === '\r' ? '\\r' : `\\x${code.toString(16).padStart(2, '0')}`,
      );
    }
  });

  it('leaves ordinary text alone: letters, emoji, accents, backslashes, newlines, tabs', () => {
    const text = 'grep -n "a\\|b" café/😀.txt\n\tindented';
    expect(visibleText(text)).toBe(text);
    expect(hiddenCount(text)).toBe(0);
    expect(visibleText(visibleText('x\x1by'))).toBe('x\\x1by');
  });

  it('splits into plain text at even indexes and escapes at odd ones, joining to visibleText', () => {
    const text = '\u202Eab\x1b[0m\r';
    expect(visibleParts(text)).toEqual(['', '\\u{202E}', 'ab', '\\x1b', '[0m', '\\r', '']);
    expect(visibleParts(text).join('')).toBe(visibleText(text));
    expect(visibleParts('plain')).toEqual(['plain']);
  });
});

describe('cutText', () => {
  it('keeps text up to the limit and says how much it cut beyond it', () => {
    expect(cutText('abcdef', 6)).toBe('abcdef');
    expect(cutText('abcdef', 4)).toBe('abcd… [cut: 2 more characters]');
    expect(cutText('x'.repeat(10_000), 80)).toBe(`${'x'.repeat(80)}… [cut: 9920 more characters]`);
  });

  it('does not split a surrogate pair', () => {
    expect(cutText('ab😀cd', 3)).toBe('ab… [cut: 4 more characters]');
  });
});
