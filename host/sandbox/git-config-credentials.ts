/**
 * A git config file as a sandboxed command sees it: without the credentials a remote URL
 * or a setting may hold, so git works inside and the token stays out.
 */

/** `scheme://user:token@host` (or `user@host`) in a URL value. */
const URL_USERINFO = /([a-z][a-z0-9+.-]*:\/\/)[^/@\s]+@/gi;
/**
 * Names of settings whose value is a credential whatever it looks like: an extra header,
 * a password (`smtpPass`), a token, a secret, a credential helper, a cookie file.
 */
const CREDENTIAL_KEY = /(extraheader|pass|password|token|secret|helper|cookiefile)$/i;
/** An optional `[section]` header, then `key = value` (git allows both on one line). */
const SETTING = /^(\s*\[[^\]]*\])?\s*([A-Za-z][A-Za-z0-9-]*)\s*(=|$)/;

/**
 * `text` without credentials: user info removed from URLs, and settings that hold a
 * credential dropped (a header on the same line is kept, continued lines go with their
 * setting). Null when it holds none, so the file can be shown as it is.
 */
export function withoutCredentials(text: string): string | null {
  let changed = false;
  let dropping = false;
  const lines = text.split('\n').flatMap((line) => {
    if (dropping) {
      dropping = line.endsWith('\\');
      return [];
    }
    const setting = SETTING.exec(line);
    if (setting !== null && CREDENTIAL_KEY.test(setting[2] ?? '')) {
      changed = true;
      dropping = line.endsWith('\\');
      return setting[1] === undefined ? [] : [setting[1]];
    }
    const cleaned = line.replace(URL_USERINFO, '$1');
    if (cleaned !== line) changed = true;
    return [cleaned];
  });
  return changed ? lines.join('\n') : null;
}
