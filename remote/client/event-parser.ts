/**
 * How a remote checks each event it receives: zod's `Event` schema, with the compiled
 * accept check (protocol/accept-check.ts, about 2.5× faster per event) in front once it
 * is loaded. It is loaded apart so it stays off the app's first load: Node remotes load it
 * when they start, the app once the first screen is painted. Until then, and for anything
 * the quick check does not accept, zod gives the answer; either way the result is the same.
 */
import { Event } from '../../protocol/index.js';

type EventParse = ReturnType<typeof Event.safeParse>;

let accepts: ((value: unknown) => boolean) | undefined;
let loading: Promise<void> | undefined;

/** `Event.safeParse(raw)`, through the quick check once loaded. */
export function parseEvent(raw: unknown): EventParse {
  if (accepts?.(raw) === true) return { success: true, data: raw as Event };
  return Event.safeParse(raw);
}

/** Loads the quick check for every client of this process; once, however often called. */
export function loadQuickEventCheck(): Promise<void> {
  loading ??= import('../../protocol/accept-check.js').then(({ acceptCheck }) => {
    accepts = acceptCheck(Event);
  });
  return loading;
}
