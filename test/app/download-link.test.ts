import { describe, expect, it } from 'vitest';
import { downloadHref } from '../../remote/app/src/logic/download-link.js';

const origin = 'https://mac.local:8443';

describe('downloadHref', () => {
  it('keeps http(s) links, resolved against the host origin', () => {
    expect(downloadHref('https://mac.local:8443/download/abc', origin)).toBe(
      'https://mac.local:8443/download/abc',
    );
    expect(downloadHref('/download/abc', origin)).toBe('https://mac.local:8443/download/abc');
    expect(downloadHref('http://127.0.0.1:7410/download/x', origin)).toBe(
      'http://127.0.0.1:7410/download/x',
    );
  });

  it('refuses script, data and other schemes', () => {
    expect(downloadHref('javascript:alert(1)', origin)).toBeUndefined();
    expect(downloadHref('JavaScript:alert(1)', origin)).toBeUndefined();
    expect(downloadHref('data:text/html,<script>alert(1)</script>', origin)).toBeUndefined();
    expect(downloadHref('file:///etc/passwd', origin)).toBeUndefined();
    expect(downloadHref('http://[bad', 'not an origin')).toBeUndefined();
  });
});
