/**
 * The JSON of an `events` frame (docs/protocol.md 6.3), built from each event's text as the
 * store kept it. A commit is delivered to every connection in one go, so each connection
 * subscribed to the same events gets the same list: it is joined at the first of them and
 * reused by the rest, until the commit's task ends. Keeping lists any longer (a WeakMap
 * keyed by event, or even the last list) keeps their events alive through V8's minor
 * collections: the flow-control test's RSS went from ~20 to 30-90 MB.
 */
import type { Event } from '../../protocol/index.js';
import { eventJson } from '../../protocol/index.js';

let lastJoined: { events: readonly Event[]; json: string } | undefined;

function sameEvents(a: readonly Event[], b: readonly Event[]): boolean {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) if (a[index] !== b[index]) return false;
  return true;
}

/** `events.map(JSON.stringify).join(',')`, joined once for every connection. */
function joinedJson(events: readonly Event[]): string {
  if (lastJoined !== undefined && sameEvents(lastJoined.events, events)) return lastJoined.json;
  const json = events.map(eventJson).join(',');
  if (lastJoined === undefined) queueMicrotask(() => (lastJoined = undefined));
  lastJoined = { events, json };
  return json;
}

/** `JSON.stringify({ t: 'events', sub, events })`; `events` is not empty. */
export function eventsFrameJson(sub: string, events: readonly Event[]): string {
  return `{"t":"events","sub":${JSON.stringify(sub)},"events":[${joinedJson(events)}]}`;
}
