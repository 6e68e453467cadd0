/**
 * A fast "certainly valid" check compiled from a zod/mini schema, in front of zod for the
 * hot paths (every event a remote receives, every stored event the host reads back): zod
 * builds a result object, an issues array and a context for every node it visits, about
 * 1.5 µs for a small event; the compiled check visits the same nodes as plain closures.
 *
 * The contract is one-sided: when the check accepts a value, zod accepts it too and its
 * output equals the value (so the value itself is the parsed result); when it does not,
 * the caller asks zod, which gives the real answer and its issues. So the check never
 * needs to know why something is wrong, and anything unusual (an inherited key, a key
 * named `__proto__`, a symbol key, a non-plain object) is simply not accepted. A schema
 * with any part it cannot reproduce exactly (a strip object, which drops unknown keys; a
 * transform, default or overwrite; lazy, pipe and the rest) gets no check: `undefined`.
 * Refinements and the less common checks run through zod's own check functions.
 */
import { z } from 'zod/mini';

type Accept = (value: unknown) => boolean;
type Schema = z.core.$ZodType;
type Check = z.core.$ZodCheck;

/** Thrown while compiling a part the check cannot reproduce; the schema gets no check. */
class Unsupported extends Error {}

/** An object as JSON.parse makes it: zod copies any other (prototype-less ones too) onto {}. */
const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;

/** An array as JSON.parse makes it: zod copies a subclass's into a plain array. */
const isPlainArray = (value: unknown): value is unknown[] =>
  Array.isArray(value) && Object.getPrototypeOf(value) === Array.prototype;

/** zod's default `when` of its length checks (run on non-nullish values with a length). */
const lengthWhen = z.minLength(0)._zod.def.when;

/**
 * A string's length as zod's length checks count it: a surrogate pair is one, a lone
 * surrogate one too (zod's `util.codePointLength`; reached through `z.core.util`, the
 * whole util namespace would be kept in the app's first load).
 */
function codePointLength(text: string): number {
  let count = text.length;
  for (let index = 0; index < text.length - 1; index++) {
    const pair =
      (text.charCodeAt(index) & 0xfc00) === 0xd800 &&
      (text.charCodeAt(index + 1) & 0xfc00) === 0xdc00;
    if (pair) {
      count--;
      index++;
    }
  }
  return count;
}

const hasOwn = (value: object, key: string) => Object.prototype.hasOwnProperty.call(value, key);

/**
 * Deeper than this, {@link isClean} says no (zod gives the answer): its data is a
 * remote's frame or a stored row, and 10,000 nested arrays (20 kB of JSON) overflowed the
 * stack while zod, which never looks inside a z.unknown(), took the value.
 */
const CLEAN_DEPTH = 256;

/** No `__proto__` key and no array hole anywhere in `value` (at most CLEAN_DEPTH deep). */
function isClean(value: unknown, depth = 0): boolean {
  if (typeof value !== 'object' || value === null) return true;
  if (depth >= CLEAN_DEPTH) return false;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      if (!(index in value) || !isClean(value[index], depth + 1)) return false;
    }
    return true;
  }
  if (hasOwn(value, '__proto__')) return false;
  for (const key in value) {
    if (!isClean((value as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
}

/** One check of a schema (a min length, a regex, a refinement) as a closure. */
function compileCheck(check: Check): Accept {
  const def = check._zod.def as z.core.$ZodCheckDef & Record<string, unknown>;
  switch (def.check) {
    case 'overwrite':
      throw new Unsupported('overwrite');
    // zod measures a string in code points (a pair of surrogates is one), an array in items,
    // and skips anything else its `when` refuses (null, undefined): those go to zod's check.
    case 'min_length': {
      if (def.when !== lengthWhen) break;
      const minimum = def['minimum'] as number;
      const other = runCheck(check);
      return (value) => {
        if (typeof value === 'string') {
          const units = value.length;
          return units >= minimum && (units >= minimum * 2 || codePointLength(value) >= minimum);
        }
        return Array.isArray(value) ? value.length >= minimum : other(value);
      };
    }
    case 'max_length': {
      if (def.when !== lengthWhen) break;
      const maximum = def['maximum'] as number;
      const other = runCheck(check);
      return (value) => {
        if (typeof value === 'string') {
          return value.length <= maximum || codePointLength(value) <= maximum;
        }
        return Array.isArray(value) ? value.length <= maximum : other(value);
      };
    }
    case 'greater_than': {
      const bound = def['value'];
      if (typeof bound !== 'number') break;
      return def['inclusive'] === true
        ? (value) => (value as number) >= bound
        : (value) => (value as number) > bound;
    }
    case 'less_than': {
      const bound = def['value'];
      if (typeof bound !== 'number') break;
      return def['inclusive'] === true
        ? (value) => (value as number) <= bound
        : (value) => (value as number) < bound;
    }
    case 'number_format':
      if (def['format'] === 'safeint') return (value) => Number.isSafeInteger(value);
      break;
    case 'string_format': {
      const pattern = def['pattern'];
      if (def['format'] !== 'regex' || !(pattern instanceof RegExp)) break;
      return (value) => {
        pattern.lastIndex = 0;
        return pattern.test(value as string);
      };
    }
  }
  return runCheck(check);
}

/** A check run as zod runs it, on a payload of its own (refinements among them). */
function runCheck(check: Check): Accept {
  const when = check._zod.def.when;
  return (value) => {
    const payload = { value: value as never, issues: [] } as z.core.ParsePayload<never>;
    try {
      if (when !== undefined && !when(payload)) return true;
      const result = check._zod.check(payload) as unknown;
      return !(result instanceof Promise) && payload.issues.length === 0 && payload.value === value;
    } catch {
      return false;
    }
  };
}

/** The type's own test followed by its checks (a number format is itself a check). */
function withChecks(schema: Schema, accepts: Accept): Accept {
  const checks = [...(schema._zod.def.checks ?? [])];
  if (schema._zod.traits.has('$ZodCheck')) checks.unshift(schema as unknown as Check);
  if (checks.length === 0) return accepts;
  const compiled = checks.map(compileCheck);
  return (value) => {
    if (!accepts(value)) return false;
    for (const check of compiled) if (!check(value)) return false;
    return true;
  };
}

/** An object's fields; `strict` refuses keys the shape does not name. */
function compileObject(shape: Record<string, Schema>, strict: boolean): Accept {
  const keys = Object.keys(shape);
  if (keys.includes('__proto__') || Object.getOwnPropertySymbols(shape).length > 0) {
    throw new Unsupported('object key');
  }
  // zod reads a field through the prototype (`key in input`) and copies what it finds
  // (`constructor`, `toString`): alone the check refuses such a value, but under a union a
  // later option would accept it while zod's output is the first option's, with the key.
  if (keys.some((key) => key in Object.prototype)) throw new Unsupported('inherited key');
  const fields = keys.map((key) => {
    const field = shape[key]!;
    const optional = field._zod.optin === 'optional' && field._zod.optout === 'optional';
    return { key, optional, accepts: compile(field) };
  });
  const known = new Set(keys);
  return (value) => {
    if (!isPlainObject(value)) return false;
    for (const { key, optional, accepts } of fields) {
      if (hasOwn(value, key)) {
        if (!accepts(value[key])) return false;
      } else if (!optional || key in value) {
        return false;
      }
    }
    if (hasOwn(value, '__proto__')) return false;
    if (strict) for (const key in value) if (!known.has(key)) return false;
    return true;
  };
}

/** The check of one schema node and everything under it; throws {@link Unsupported}. */
function compile(schema: Schema): Accept {
  const def = schema._zod.def as z.core.$ZodTypeDef & Record<string, unknown>;
  if (def['coerce'] === true) throw new Unsupported('coerce');
  switch (def.type) {
    case 'string':
      return withChecks(schema, (value) => typeof value === 'string');
    case 'number':
      return withChecks(schema, (value) => typeof value === 'number' && Number.isFinite(value));
    case 'boolean':
      return withChecks(schema, (value) => typeof value === 'boolean');
    case 'unknown':
      return withChecks(schema, () => true);
    case 'literal':
    case 'enum': {
      const values = schema._zod.values;
      if (values === undefined) throw new Unsupported(def.type);
      return withChecks(schema, (value) => values.has(value as z.core.util.Primitive));
    }
    case 'nullable': {
      const inner = compile(def['innerType'] as Schema);
      return withChecks(schema, (value) => value === null || inner(value));
    }
    case 'optional': {
      const innerType = def['innerType'] as Schema;
      if (innerType._zod.optin === 'defaulted') throw new Unsupported('default');
      const inner = compile(innerType);
      // exactOptional lets the key be absent but not hold undefined.
      if (schema._zod.traits.has('$ZodExactOptional')) return withChecks(schema, inner);
      return withChecks(schema, (value) => value === undefined || inner(value));
    }
    case 'array': {
      const element = compile(def['element'] as Schema);
      return withChecks(schema, (value) => {
        if (!isPlainArray(value)) return false;
        for (let index = 0; index < value.length; index++) {
          const item = value[index];
          // a hole, which zod's copy fills with undefined
          if (item === undefined && !(index in value)) return false;
          if (!element(item)) return false;
        }
        return true;
      });
    }
    case 'object': {
      const catchallDef = (def['catchall'] as Schema | undefined)?._zod.def;
      const catchall = catchallDef?.type;
      if (catchall !== 'unknown' && catchall !== 'never') throw new Unsupported('strip object');
      // the keys a catch-all takes are not visited, so it must be a bare z.unknown()
      if ((catchallDef?.checks?.length ?? 0) > 0) throw new Unsupported('catchall checks');
      const shape = def['shape'] as Record<string, Schema>;
      return withChecks(schema, compileObject(shape, catchall === 'never'));
    }
    case 'record': {
      const keyType = def['keyType'] as Schema;
      // A bare z.string(): a string format (z.email(), z.url()) is itself a check on the key.
      if (
        keyType._zod.def.type !== 'string' ||
        (keyType._zod.def.checks?.length ?? 0) > 0 ||
        keyType._zod.traits.has('$ZodCheck')
      ) {
        throw new Unsupported('record key');
      }
      const element = compile(def['valueType'] as Schema);
      return withChecks(schema, (value) => {
        if (!isPlainObject(value) || hasOwn(value, '__proto__')) return false;
        if (Object.getOwnPropertySymbols(value).length > 0) return false;
        for (const key of Object.getOwnPropertyNames(value)) {
          if (!element(value[key])) return false;
        }
        return true;
      });
    }
    case 'union': {
      const options = (def['options'] as Schema[]).map(compile);
      const discriminator = def['discriminator'];
      if (typeof discriminator !== 'string') {
        // An exclusive union wants exactly one option to match, which `some` does not tell.
        if (def['inclusive'] === false) throw new Unsupported('exclusive union');
        // zod's output is its first matching option's: the value itself when nothing in it
        // is one an option would drop (a `__proto__` key) or fill in (an array's hole).
        return withChecks(
          schema,
          (value) => isClean(value) && options.some((option) => option(value)),
        );
      }
      const byValue = new Map<unknown, Accept>();
      (def['options'] as Schema[]).forEach((option, index) => {
        const values = option._zod.propValues?.[discriminator];
        if (values === undefined) throw new Unsupported('discriminator');
        for (const value of values) {
          // zod throws on a duplicate, and maps an undefined two options claim to neither
          if (byValue.has(value)) throw new Unsupported('ambiguous discriminator');
          byValue.set(value, options[index]!);
        }
      });
      return withChecks(schema, (value) => {
        if (!isPlainObject(value) || !hasOwn(value, discriminator)) return false;
        const option = byValue.get(value[discriminator]);
        return option !== undefined && option(value);
      });
    }
    default:
      throw new Unsupported(def.type);
  }
}

const compiled = new WeakMap<Schema, Accept | null>();

/**
 * The compiled check of `schema`, or `undefined` when it has a part the check cannot
 * reproduce exactly. Compiled once per schema.
 */
export function acceptCheck(schema: Schema): Accept | undefined {
  let accepts = compiled.get(schema);
  if (accepts === undefined) {
    try {
      accepts = compile(schema);
    } catch (error) {
      if (!(error instanceof Unsupported)) throw error;
      accepts = null;
    }
    compiled.set(schema, accepts);
  }
  return accepts ?? undefined;
}

/**
 * `z.safeParse(schema, value)`, through the compiled check first: a value it accepts is
 * returned as the data itself; anything else is zod's answer.
 */
export function quickSafeParse<S extends Schema>(
  schema: S,
  value: unknown,
): z.core.util.SafeParseResult<z.output<S>> {
  const accepts = acceptCheck(schema);
  if (accepts?.(value) === true) return { success: true, data: value as z.output<S> };
  return z.safeParse(schema, value);
}
