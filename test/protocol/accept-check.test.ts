// The compiled accept check against zod itself: whatever it accepts, zod accepts with the
// value itself as its output, over every sample and thousands of mutations of them.
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { z } from 'zod/mini';
import { acceptCheck } from '../../protocol/accept-check.js';
import { Event, HostMessage, OPS } from '../../protocol/index.js';
import { EVENT_TYPES, OP_NAMES } from '../../protocol/testing.js';
import { opSamples, sampleEvent } from './samples.js';

type Schema = z.core.$ZodType;

const REPLACEMENTS: unknown[] = [
  null,
  undefined,
  0,
  -1,
  1.5,
  2 ** 53,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  '',
  'x'.repeat(129),
  'sha256:' + 'a'.repeat(64),
  true,
  [],
  [1],
  {},
  { a: 1 },
];

const clone = <T>(value: T): T => structuredClone(value);

/** Sets an own, enumerable key, `__proto__` included (as JSON.parse does). */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

/** `value` with the node at `path` changed by `change` (which gets that node's parent). */
function changedAt(
  value: unknown,
  path: readonly (string | number)[],
  change: (parent: Record<string, unknown>, key: string | number) => void,
): unknown {
  const copy = clone(value);
  let parent = copy as Record<string, unknown>;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string, unknown>;
  change(parent, path.at(-1)!);
  return copy;
}

/** Every mutation of `value`: each node dropped, replaced, and each object widened. */
function mutations(value: unknown): unknown[] {
  const out: unknown[] = [...REPLACEMENTS];
  const visit = (node: unknown, path: (string | number)[]) => {
    if (path.length > 0) {
      out.push(changedAt(value, path, (parent, key) => void delete parent[key]));
      for (const replacement of REPLACEMENTS) {
        out.push(changedAt(value, path, (parent, key) => setOwn(parent, String(key), replacement)));
      }
    }
    if (typeof node !== 'object' || node === null) return;
    const widen = (extra: (target: Record<string, unknown> & unknown[]) => void) => {
      const copy = clone(value);
      let target = copy as Record<string, unknown> & unknown[];
      for (const key of path) target = target[key as number] as Record<string, unknown> & unknown[];
      extra(target);
      out.push(copy);
    };
    if (Array.isArray(node)) {
      widen((target) => target.push(1));
      widen((target) => void (target.length += 1)); // a hole, which JSON never makes
      node.forEach((item, index) => visit(item, [...path, index]));
      return;
    }
    widen((target) => setOwn(target, 'extra', 1));
    widen((target) => setOwn(target, '__proto__', { seq: 1 }));
    widen((target) => setOwn(target, 'constructor', 'x'));
    for (const [key, item] of Object.entries(node)) visit(item, [...path, key]);
  };
  visit(value, []);
  return out;
}

/** Runs `schema` over `samples` and their mutations; returns how many each side accepted. */
function compare(schema: Schema, samples: readonly unknown[]) {
  const accepts = acceptCheck(schema);
  expect(accepts).toBeTypeOf('function');
  let checkAccepted = 0;
  let zodAccepted = 0;
  let total = 0;
  const missed: unknown[] = [];
  for (const sample of samples) {
    expect(accepts!(sample)).toBe(true);
    for (const candidate of [sample, ...mutations(sample)]) {
      total++;
      const parsed = z.safeParse(schema, candidate);
      if (parsed.success) zodAccepted++;
      if (!accepts!(candidate)) {
        // What zod returns changed (it drops a `__proto__` key, fills an array's hole) the
        // check must refuse; anything zod returns as it is, the check should take.
        if (parsed.success && isDeepStrictEqual(parsed.data, candidate)) missed.push(candidate);
        continue;
      }
      checkAccepted++;
      expect(parsed.success, JSON.stringify(candidate)).toBe(true);
      expect(parsed.data).toStrictEqual(candidate);
    }
  }
  return { total, checkAccepted, zodAccepted, missed };
}

describe('the compiled accept check', () => {
  it('never accepts an event zod refuses, and accepts every one zod returns unchanged', () => {
    const samples = EVENT_TYPES.map((type) => sampleEvent(type));
    const { total, checkAccepted, zodAccepted, missed } = compare(Event, samples);
    expect(total).toBeGreaterThan(5000);
    expect(checkAccepted).toBeGreaterThan(total / 10);
    expect(total - zodAccepted).toBeGreaterThan(total / 2);
    expect(missed).toEqual([]);
  });

  it("agrees with zod on every op's args and result and the messages that carry them", () => {
    for (const op of OP_NAMES) {
      for (const [schema, sample] of [
        [OPS[op].args, opSamples[op].args],
        [OPS[op].result, opSamples[op].result],
      ] as const) {
        if (acceptCheck(schema) === undefined) continue;
        // A union refuses values with a hole or a `__proto__` key anywhere: zod would
        // pass them through unchanged under a catch-all option, or drop them under another.
        const { zodAccepted, missed } = compare(schema, [sample]);
        expect(missed.length).toBeLessThanOrEqual(zodAccepted / 50);
      }
    }
    const responses = OP_NAMES.map((op) => ({
      t: 'res',
      id: '7',
      ok: true,
      result: opSamples[op].result,
    }));
    const events = { t: 'events', sub: 's1', events: [sampleEvent('run.started', {})] };
    compare(HostMessage, [...responses, events]);
  });

  it('gives no check for a schema whose output is not its input', () => {
    expect(acceptCheck(z.object({ a: z.string() }))).toBeUndefined();
    expect(acceptCheck(z.looseObject({ a: z.string().check(z.trim()) }))).toBeUndefined();
    expect(acceptCheck(z.looseObject({ a: z._default(z.string(), 'x') }))).toBeUndefined();
    expect(
      acceptCheck(
        z.pipe(
          z.string(),
          z.transform((s) => s.length),
        ),
      ),
    ).toBeUndefined();
  });

  it('runs refinements as zod does', () => {
    const Even = z.looseObject({ n: z.int().check(z.refine((n) => n % 2 === 0)) });
    const accepts = acceptCheck(Even)!;
    expect([accepts({ n: 2 }), accepts({ n: 3 }), accepts({ n: '2' })]).toEqual([
      true,
      false,
      false,
    ]);
  });
});
