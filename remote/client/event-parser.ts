/**
 * How a remote checks what the host pushes most (each `events` frame and every event in
 * it): zod, with the compiled accept check (protocol/accept-check.ts, 2.5× faster for an
 * event, far more for a frame of a thousand) in front once it is loaded. It is loaded apart
 * so it stays off the app's first load. Until then, and for anything the quick check does not
 * accept, zod gives the answer; either way the result is the same.
 *
 * Node remotes load it when they start (remote/cli). The app loads it once events come in
 * numbers ({@link LOAD_AFTER_EVENTS}: a backlog, a busy run), so a first load, which paints
 * from a snapshot, never fetches it.
 */
import type { z } from 'zod/mini';
import { Event } from '../../protocol/index.js';

type Schema = z.core.$ZodType;
type AcceptCheck = (schema: Schema) => ((value: unknown) => boolean) | undefined;

let acceptCheck: AcceptCheck | undefined;
let loading: Promise<void> | undefined;
/** Events checked before the quick check was asked for. */
let checkedByZod = 0;
const LOAD_AFTER_EVENTS = 500;

/** `schema.safeParse(raw)`, through the quick check once loaded. */
export function quickParse<S extends z.ZodMiniType>(
  schema: S,
  raw: unknown,
): ReturnType<S['safeParse']> {
  if (acceptCheck?.(schema)?.(raw) === true) {
    return { success: true, data: raw } as ReturnType<S['safeParse']>;
  }
  return schema.safeParse(raw) as ReturnType<S['safeParse']>;
}

/**
 * `Event.safeParse(raw)`, through the quick check once loaded; the {@link LOAD_AFTER_EVENTS}th
 * event checked without it loads it.
 */
export function parseEvent(raw: unknown): ReturnType<typeof Event.safeParse> {
  if (loading === undefined && ++checkedByZod >= LOAD_AFTER_EVENTS) void loadQuickEventCheck();
  return quickParse(Event, raw);
}

/**
 * Loads the quick check for every client of this process; once, however often called. A
 * load that fails (the app offline before its worker cached the chunk) changes nothing:
 * zod goes on checking, and another {@link LOAD_AFTER_EVENTS} events try again.
 */
export function loadQuickEventCheck(): Promise<void> {
  loading ??= import('../../protocol/accept-check.js').then(
    (module) => {
      acceptCheck = module.acceptCheck;
    },
    () => {
      loading = undefined;
      checkedByZod = 0;
    },
  );
  return loading;
}
