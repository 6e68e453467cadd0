/**
 * A repository's `.git/config` as a sandboxed command sees it: without the credentials a
 * remote URL or an extra header may hold, so git works inside and the token stays out.
 */

/** `scheme://user:token@host` (or `user@host`) in a URL value. */
const URL_USERINFO = /([a-z][a-z0-9+.-]*:\/\/)[^/@\s]+@/gi;
/** Settings whose value is a credential whatever it looks like. */
const CREDENTIAL_KEY = /^\s*(extraheader|password|token|oauthtoken|helper)\s*=/i;

/**
 * `text` without credentials: user info removed from URLs, and lines setting an extra
 * header, a password, a token or a credential helper dropped. Null when it holds none,
 * so the file can be shown as it is.
 */
export function withoutCredentials(text: string): string | null {
  let changed = false;
  const lines = text.split('\n').flatMap((line) => {
    if (CREDENTIAL_KEY.test(line)) {
      changed = true;
      return [];
    }
    const cleaned = line.replace(URL_USERINFO, '$1');
    if (cleaned !== line) changed = true;
    return [cleaned];
  });
  return changed ? lines.join('\n') : null;
}
