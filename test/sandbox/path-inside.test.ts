import { describe, expect, it } from 'vitest';
import { isInside } from '../../host/sandbox/index.js';

describe('isInside', () => {
  it('holds a folder and what lies in it, and nothing beside or above it', () => {
    expect(isInside('/w', '/w')).toBe(true);
    expect(isInside('/w/a/b', '/w')).toBe(true);
    // A name that begins with two dots is a name, not a way up.
    expect(isInside('/w/..cache/x', '/w')).toBe(true);
    expect(isInside('/w/../x', '/w')).toBe(false);
    expect(isInside('/', '/w')).toBe(false);
    // A sibling whose name begins like the folder's is not inside it.
    expect(isInside('/workspace-2/x', '/workspace')).toBe(false);
    expect(isInside('/anything', '/')).toBe(true);
  });
});
