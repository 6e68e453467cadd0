/**
 * One POST to a push service: `web-push` builds it (VAPID JWT signed with the host's push
 * key, RFC 8291 `aes128gcm` payload encryption to the subscription's keys) and `fetch`
 * sends it, with a timeout and without following redirects (a redirect could point
 * anywhere, loopback included). The answer becomes a {@link SendOutcome}.
 */
import type webpush from 'web-push';
import type { PushKeys } from '../identity/index.js';
import type { SendOutcome } from './types.js';
import { errorMessage } from '../../protocol/index.js';

/** What one push is: its target, its encrypted body's plaintext and its headers. */
export interface PushRequest {
  endpoint: string;
  keys: { p256dh: string; auth: string };
  payloadJson: string;
  /** Seconds the push service may hold the push for an offline device. */
  ttlSeconds: number;
  urgency: 'high' | 'normal';
  /** A later push with the same topic replaces an undelivered earlier one. */
  topic: string | null;
}

export interface SendOptions {
  keys: PushKeys;
  subject: string;
  timeoutMs: number;
  /** Aborts the POST (the host stopping); the outcome is then a retry. */
  signal: AbortSignal;
  now: () => number;
}

/** `Retry-After` as seconds or an HTTP date → milliseconds from now; null when absent or bad. */
function retryAfterMs(header: string | null, now: number): number | null {
  if (header === null) return null;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** The start of a push service's answer, for an error message (they say why: "BadJwtToken"). */
async function reason(response: Response): Promise<string> {
  const text = (await response.text().catch(() => '')).replace(/\s+/g, ' ').trim();
  return text.length > 160 ? `${text.slice(0, 159)}…` : text;
}

/** Sends one push. Never throws: every failure is an outcome. */
export async function sendPush(request: PushRequest, options: SendOptions): Promise<SendOutcome> {
  let details: ReturnType<typeof webpush.generateRequestDetails>;
  try {
    // Loaded at the first push, not at start: web-push and its ASN.1 code cost ~100 ms.
    const { default: webPush } = await import('web-push');
    details = webPush.generateRequestDetails(
      { endpoint: request.endpoint, keys: request.keys },
      request.payloadJson,
      {
        vapidDetails: {
          subject: options.subject,
          publicKey: options.keys.publicKey,
          privateKey: options.keys.privateKey,
        },
        TTL: request.ttlSeconds,
        urgency: request.urgency,
        contentEncoding: 'aes128gcm',
        ...(request.topic === null ? {} : { topic: request.topic }),
      },
    );
  } catch (error) {
    // Bad subscription keys: the same push can never be built.
    return { kind: 'failed', status: null, error: `cannot build the push: ${String(error)}` };
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(details.headers)) {
    // fetch sets the length itself, from the body.
    if (name.toLowerCase() !== 'content-length') headers[name] = String(value);
  }
  let response: Response;
  try {
    response = await fetch(details.endpoint, {
      method: 'POST',
      headers,
      body: details.body === null ? null : new Uint8Array(details.body),
      redirect: 'manual',
      signal: AbortSignal.any([options.signal, AbortSignal.timeout(options.timeoutMs)]),
    });
  } catch (error) {
    const timedOut = error instanceof Error && error.name === 'TimeoutError';
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
    return {
      kind: 'retry',
      status: null,
      error: timedOut
        ? `no answer from the push service within ${options.timeoutMs} ms`
        : `cannot reach the push service: ${errorMessage(cause)}`,
      retryAfterMs: null,
    };
  }
  const status = response.status;
  if (status >= 200 && status < 300) {
    await response.body?.cancel();
    return { kind: 'delivered', status };
  }
  const why = await reason(response);
  const said = why === '' ? '' : `: ${why}`;
  if (status === 404 || status === 410) {
    return {
      kind: 'gone',
      status,
      error: `the push service says the subscription is gone (${status})${said}`,
    };
  }
  if (status === 429 || status >= 500) {
    return {
      kind: 'retry',
      status,
      error: `the push service answered ${status}${said}`,
      retryAfterMs: retryAfterMs(response.headers.get('retry-after'), options.now()),
    };
  }
  return { kind: 'failed', status, error: `the push service refused the push (${status})${said}` };
}
