// Inputs the compiled accept check must not take (review of protocol/accept-check.ts): each
// case is a value the check accepted while zod refused it, returned something else for it,
// or threw. The contract: accepted means zod succeeds with the value itself as its output
// (same own keys, no holes, same prototypes).
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { z } from 'zod/mini';
import { acceptCheck } from '../../protocol/accept-check.js';
import { Event, OPS } from '../../protocol/index.js';
import { opSamples, sampleEvent } from './samples.js';
import { EVENT_TYPES, OP_NAMES } from '../../protocol/testing.js';

type Schema = z.core.$ZodType;

/** Deep equality that also compares prototypes and holes at every level. */
function sameShape(a: unknown, b: unknown): boolean {
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) {
    return Object.is(a, b) || (a === b && typeof a !== 'number');
  }
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  const aKeys = Reflect.ownKeys(a);
  const bKeys = Reflect.ownKeys(b);
  if (aKeys.length !== bKeys.length) return false;
  for (const key of aKeys) {
    if (!Object.prototype.hasOwnProperty.call(b, key)) return false;
    const x = (a as Record<PropertyKey, unknown>)[key];
    const y = (b as Record<PropertyKey, unknown>)[key];
    if (!sameShape(x, y)) return false;
  }
  return true;
}

/** The contract on one value: no throw; accepted ⇒ zod's data is the value, unchanged. */
function holds(schema: Schema, value: unknown): boolean {
  const accepts = acceptCheck(schema);
  if (accepts === undefined) return true;
  let accepted: boolean;
  try {
    accepted = accepts(value);
  } catch {
    return false; // callers do not expect the check to throw
  }
  if (!accepted) return true;
  let parsed: ReturnType<typeof z.safeParse>;
  try {
    parsed = z.safeParse(schema, value);
  } catch {
    return false; // zod throws (a broken schema): the check must not answer for it
  }
  return parsed.success && sameShape(parsed.data, value);
}

describe('the accept check under attack', () => {
  it('counts a string minLength in code points, as this zod does', () => {
    // 2 UTF-16 units, 1 code point: zod 4.6 refuses it, the unit count took it.
    expect(holds(z.string().check(z.minLength(2)), '😀')).toBe(true);
    expect(holds(z.string().check(z.minLength(2)), '\ud83d\ude00')).toBe(true);
    expect(holds(z.looseObject({ id: z.string().check(z.minLength(3)) }), { id: '😀a' })).toBe(
      true,
    );
    // and still takes what zod takes
    expect(acceptCheck(z.string().check(z.minLength(2)))!('\ud800\ud800')).toBe(true);
    expect(acceptCheck(z.string().check(z.maxLength(1)))!('😀')).toBe(true);
  });

  it('skips length checks on null and undefined, as zod does, instead of throwing', () => {
    expect(holds(z.nullable(z.string()).check(z.minLength(2) as never), null)).toBe(true);
    expect(holds(z.optional(z.string()).check(z.maxLength(2) as never), undefined)).toBe(true);
    expect(
      holds(z.looseObject({ a: z.nullable(z.array(z.string())).check(z.minLength(1) as never) }), {
        a: null,
      }),
    ).toBe(true);
  });

  it('does not take any key for a record keyed by a string format', () => {
    expect(holds(z.record(z.email(), z.string()), { 'not-an-email': 'x' })).toBe(true);
    expect(holds(z.record(z.uuid(), z.number()), { x: 1 })).toBe(true);
    // z.url() rewrites the key (trims it): zod's output has another key
    expect(holds(z.record(z.url(), z.string()), { ' http://x.com': 'x' })).toBe(true);
  });

  it("runs a catch-all's checks", () => {
    const OnlyStrings = z.catchall(
      z.object({ a: z.string() }),
      z.unknown().check(z.refine((v) => typeof v === 'string')),
    );
    expect(holds(OnlyStrings, { a: 'x', b: 1 })).toBe(true);
  });

  it('does not take a union value whose first option zod fills from Object.prototype', () => {
    // JSON's `{}`: zod's first option matches, reading `constructor` through the prototype,
    // and its output has an own `constructor: Object` the value does not.
    const U = z.union([
      z.looseObject({ constructor: z.optional(z.unknown()) }),
      z.looseObject({ kind: z.optional(z.string()) }),
    ]);
    expect(holds(U, JSON.parse('{}'))).toBe(true);
    const V = z.union([z.looseObject({ toString: z.unknown() }), z.looseObject({})]);
    expect(holds(V, JSON.parse('{"a":1}'))).toBe(true);
  });

  it('refuses an explicit undefined under exactOptional', () => {
    expect(holds(z.looseObject({ a: z.exactOptional(z.string()) }), { a: undefined })).toBe(true);
    expect(acceptCheck(z.looseObject({ a: z.exactOptional(z.string()) }))!({})).toBe(true);
  });

  it('gives no check for a discriminated union zod cannot build a lookup for', () => {
    const Duplicate = z.discriminatedUnion('k', [
      z.looseObject({ k: z.literal('a'), x: z.string() }),
      z.looseObject({ k: z.literal('a'), y: z.string() }),
    ]);
    expect(holds(Duplicate, { k: 'a', y: 'q' })).toBe(true);
    // two options that both may omit the tag: zod maps `undefined` to neither
    const BothOptional = z.discriminatedUnion('k', [
      z.looseObject({ k: z.optional(z.literal('a')), x: z.string() }),
      z.looseObject({ k: z.optional(z.literal('b')), y: z.string() }),
    ]);
    expect(holds(BothOptional, { k: undefined, y: 'q' })).toBe(true);
  });

  it('refuses arrays zod would copy into something else', () => {
    // a hole, which zod fills with undefined
    // eslint-disable-next-line no-sparse-arrays
    expect(holds(z.array(z.unknown()), [, 1])).toBe(true);
    // eslint-disable-next-line no-sparse-arrays
    expect(holds(z.array(z.optional(z.string())), [, 'a'])).toBe(true);
    // an Array subclass, which zod copies into a plain array
    class Words extends Array<string> {}
    const words = new Words();
    words.push('a');
    expect(holds(z.array(z.string()), words)).toBe(true);
  });

  it('refuses prototype-less objects, which zod copies onto Object.prototype', () => {
    const bare = Object.assign(Object.create(null) as object, { a: 'x' });
    expect(holds(z.looseObject({ a: z.string() }), bare)).toBe(true);
    expect(holds(z.record(z.string(), z.string()), bare)).toBe(true);
  });

  it('does not throw on a deeply nested value under a union (a 40 kB event)', () => {
    // isClean walks everything under a union (here preview.ruleProposal, loose keys
    // included) recursively: 20,000 nested arrays overflowed the stack, while zod, which
    // never looks inside a z.unknown(), accepts the event. On a remote the throw escapes
    // the socket's message handler; on the host it makes every replay over the row throw.
    const deep = '['.repeat(20_000) + ']'.repeat(20_000);
    const text =
      '{"v":1,"seq":1,"id":"evt_1","type":"tool.approval_requested","at":1,"sessionId":null,' +
      '"runId":"run_1","toolCallId":"tc_1","payload":{"approvalId":"apr_1","name":"n",' +
      `"input":{},"workspace":"/w","inputDigest":"sha256:${'a'.repeat(64)}","reason":"r",` +
      '"expiresAt":1,"preview":{"kind":"path","path":"p","access":"read",' +
      `"ruleProposal":{"offered":false,"reason":"r","x":${deep}}}}}`;
    const value = JSON.parse(text) as unknown;
    expect(z.safeParse(Event, value).success).toBe(true);
    expect(() => acceptCheck(Event)!(value)).not.toThrow();
    expect(holds(Event, value)).toBe(true);
  });

  it('still takes every event sample (the fixes cost it nothing it took before)', () => {
    const accepts = acceptCheck(Event)!;
    for (const type of EVENT_TYPES) {
      const event = sampleEvent(type);
      const fromJson = JSON.parse(JSON.stringify(event)) as unknown;
      expect(accepts(fromJson), type).toBe(true);
      expect(isDeepStrictEqual(z.parse(Event, fromJson), fromJson)).toBe(true);
    }
  });
});

describe('the accept check against zod on random JSON', () => {
  // A small deterministic PRNG (mulberry32), so a failure replays.
  const random = (seed: number) => () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const POOL: string[] = [
    'null',
    '0',
    '-0',
    '1',
    '-1',
    '0.5',
    '1e400',
    '-1e400',
    '9007199254740991',
    '9007199254740992',
    '1e21',
    '""',
    '"x"',
    '"\\ud800"',
    '"\\ud83d\\ude00"',
    JSON.stringify('😀'.repeat(128)),
    JSON.stringify('😀'.repeat(65)),
    JSON.stringify('x'.repeat(128)),
    JSON.stringify('x'.repeat(129)),
    '"sha256:' + 'a'.repeat(64) + '"',
    '"' + 'b'.repeat(64) + '"',
    '"u8P30MGO1ZkcbU5Wq4RG3g"',
    'true',
    'false',
    '[]',
    '[1]',
    '["a"]',
    '{}',
    '{"a":1}',
    '{"__proto__":{"a":1}}',
    '{"constructor":1}',
    '{"toString":"x"}',
    '"succeeded"',
    '"command"',
    '"write"',
    '"mcp"',
    '{"offered":true,"words":["a"],"workspace":"/w","matches":"m"}',
    '{"offered":false,"reason":"r"}',
    '{"offered":false,"reason":"r","__proto__":1}',
    '{"kind":"path","path":"p","access":"a"}',
  ];
  const KEYS = ['__proto__', 'constructor', 'extra', 'kind', 'offered', 'type', 'payload'];

  function mutate(value: unknown, next: () => number): unknown {
    const text = JSON.stringify(value);
    const root = JSON.parse(text) as unknown;
    const nodes: { parent: Record<string, unknown>; key: string }[] = [];
    const walk = (node: unknown) => {
      if (typeof node !== 'object' || node === null) return;
      for (const key of Object.keys(node)) {
        nodes.push({ parent: node as Record<string, unknown>, key });
        walk((node as Record<string, unknown>)[key]);
      }
    };
    walk(root);
    const times = 1 + Math.floor(next() * 3);
    for (let i = 0; i < times && nodes.length > 0; i++) {
      const { parent, key } = nodes[Math.floor(next() * nodes.length)]!;
      const roll = next();
      const replacement = JSON.parse(POOL[Math.floor(next() * POOL.length)]!) as unknown;
      if (roll < 0.2 && !Array.isArray(parent)) delete parent[key];
      else if (roll < 0.35 && !Array.isArray(parent)) {
        Object.defineProperty(parent, KEYS[Math.floor(next() * KEYS.length)]!, {
          value: replacement,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      } else parent[key] = replacement;
    }
    // through JSON again half the time: what a remote or the store actually parses
    return next() < 0.5 ? root : JSON.parse(JSON.stringify(root));
  }

  it('never breaks the contract over 20,000 mutated events', () => {
    const next = random(20261201);
    const samples = EVENT_TYPES.map((type) => sampleEvent(type));
    const broken: string[] = [];
    let accepted = 0;
    for (let i = 0; i < 20_000; i++) {
      const candidate = mutate(samples[Math.floor(next() * samples.length)], next);
      if (acceptCheck(Event)!(candidate)) accepted++;
      if (!holds(Event, candidate)) broken.push(JSON.stringify(candidate));
    }
    expect(broken.slice(0, 3)).toEqual([]);
    expect(accepted).toBeGreaterThan(1000);
  });
  it("never breaks the contract over 20,000 mutated ops' args and results", () => {
    const next = random(7);
    const cases = OP_NAMES.flatMap((op) => [
      [OPS[op].args, opSamples[op].args] as const,
      [OPS[op].result, opSamples[op].result] as const,
    ]).filter(([schema]) => acceptCheck(schema) !== undefined);
    const broken: string[] = [];
    for (let i = 0; i < 20_000; i++) {
      const [schema, sample] = cases[Math.floor(next() * cases.length)]!;
      const candidate = mutate(sample, next);
      if (!holds(schema, candidate)) broken.push(JSON.stringify(candidate));
    }
    expect(broken.slice(0, 3)).toEqual([]);
  });
});
