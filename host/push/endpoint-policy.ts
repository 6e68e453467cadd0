/**
 * Which URLs the host POSTs pushes to: `https:` on the known push services, plus origins
 * the config lists. A paired device names the endpoint, so without this check it could make
 * the host POST to `http://127.0.0.1:…` or a LAN address (docs/push.md, "Endpoints").
 */
import { TetherError } from '../../protocol/index.js';

/** Apple (Safari, iOS 16.4+), Google FCM (Chrome), Mozilla (Firefox), Microsoft (Edge). */
const KNOWN_PUSH_ORIGINS: readonly string[] = [
  'https://*.push.apple.com',
  'https://fcm.googleapis.com',
  'https://updates.push.services.mozilla.com',
  'https://*.notify.windows.com',
];

/** Whether `url`'s origin matches `pattern` (`https://host[:port]` or `https://*.host[:port]`). */
function matches(url: URL, pattern: string): boolean {
  const wildcard = /^(https?):\/\/\*\.(.+)$/.exec(pattern);
  if (wildcard === null) return url.origin === pattern;
  const [, scheme, rest] = wildcard;
  const suffix = new URL(`${scheme}://${rest}`);
  return (
    url.protocol === suffix.protocol &&
    url.port === suffix.port &&
    url.hostname.endsWith(`.${suffix.hostname}`)
  );
}

/**
 * Refuses an endpoint the host must not POST to: not a URL, credentials in it, or an origin
 * neither a known push service nor listed in `allowed` (config `push.allowedEndpoints`).
 * Plain `http:` passes only where `allowed` lists that exact loopback origin (tests).
 *
 * @throws TetherError `invalid_request`, naming the origin.
 */
export function checkPushEndpoint(endpoint: string, allowed: readonly string[]): void {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new TetherError('invalid_request', 'the push endpoint is not a URL');
  }
  if (url.username !== '' || url.password !== '') {
    throw new TetherError('invalid_request', 'the push endpoint must not carry credentials');
  }
  const https = url.protocol === 'https:';
  const listed = allowed.some((pattern) => matches(url, pattern));
  if (listed && (https || url.protocol === 'http:')) return;
  if (https && KNOWN_PUSH_ORIGINS.some((pattern) => matches(url, pattern))) return;
  throw new TetherError(
    'invalid_request',
    `push endpoints must be https: on a known push service (Apple, Google, Mozilla, Microsoft) or an origin in the host's push.allowedEndpoints; ${url.protocol === 'https:' || url.protocol === 'http:' ? url.origin : url.protocol} is neither`,
    { details: { origin: url.origin } },
  );
}
