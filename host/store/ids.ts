import { randomFillSync } from 'node:crypto';
import { b64u } from '../../protocol/index.js';

/** A new opaque host id such as `run_3q2x…` (docs/protocol.md §0: clients never parse it). */
// One system call fills many ids: randomBytes(12) per id cost more than the rest of a commit.
const pool = new Uint8Array(12 * 256);
let used = pool.length;

function randomTwelve(): Uint8Array {
  if (used === pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  used += 12;
  return pool.slice(used - 12, used);
}

export function newId(
  prefix: 'ses' | 'run' | 'msg' | 'tc' | 'apr' | 'art' | 'ins' | 'conn' | 'sub' | 'rul' | 'sum',
): string {
  return `${prefix}_${b64u(randomTwelve())}`;
}
