import { randomBytes } from 'node:crypto';
import { b64u } from '../../protocol/index.js';

/** A new opaque host id such as `run_3q2x…` (PROTOCOL.md section 0: clients never parse it). */
export function newId(
  prefix: 'ses' | 'run' | 'msg' | 'tc' | 'apr' | 'evt' | 'art' | 'ins' | 'conn' | 'sub',
): string {
  return `${prefix}_${b64u(randomBytes(12))}`;
}
