/**
 * Ids the server makes for itself, in the store's format (`conn_` or `sub_` and 16
 * base64url characters): opaque to clients (docs/protocol.md section 0).
 */
import { randomBytes } from 'node:crypto';
import { b64u } from '../../protocol/index.js';

/** A new id for a connection (`conn` of the welcome) or one of its subscriptions. */
export function newServerId(prefix: 'conn' | 'sub'): string {
  return `${prefix}_${b64u(randomBytes(12))}`;
}
