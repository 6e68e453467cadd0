/**
 * The `download.link` URL a host answered, as an `href` the app may put on a link: only
 * http(s), resolved against the host's origin. Anything else (`javascript:`, `data:`, a
 * URL that does not parse) is no link at all.
 */

/** `url` resolved against `origin` when it is http(s); undefined otherwise. */
export function downloadHref(url: string, origin: string): string | undefined {
  try {
    const resolved = new URL(url, origin);
    return resolved.protocol === 'https:' || resolved.protocol === 'http:'
      ? resolved.href
      : undefined;
  } catch {
    return undefined;
  }
}
