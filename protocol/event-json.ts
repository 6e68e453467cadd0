/**
 * The JSON text of each event the store hands out, kept beside the event so a frame can
 * carry it without encoding the event again: built at append from the payload text about
 * to be stored, and at read-back from the row's own payload text (the text that was just
 * parsed and validated). For every row this host writes the text is exactly
 * `JSON.stringify(event)`: the same keys in the same order, the payload as the JSON it
 * stored. A row it did not write (a hand edit, a damaged file) goes out as its stored text,
 * which parses to the event the host validated (JSON.parse keeps a duplicate key's last
 * value, as the host's did) but may spell it differently: spaces, a duplicate key, a
 * number such as 1e400 or -0 that JSON.stringify would write as null or 0
 * (test/store/event-json-attack.test.ts).
 */
import type { Event } from './events.js';

const texts = new WeakMap<Event, string>();

/** `JSON.stringify(event)`, from the text the store kept for it when it has one. */
export function eventJson(event: Event): string {
  let json = texts.get(event);
  if (json === undefined) {
    json = JSON.stringify(event);
    texts.set(event, json);
  }
  return json;
}

/** Keeps `event`'s JSON, made from `payloadJson`: the stored text of `event.payload`. */
export function keepEventJson(event: Event, payloadJson: string): Event {
  const text =
    `{"v":1,"seq":${event.seq},"id":${JSON.stringify(event.id)},` +
    `"type":${JSON.stringify(event.type)},"at":${event.at},` +
    `"sessionId":${JSON.stringify(event.sessionId)},"runId":${JSON.stringify(event.runId)},` +
    `"toolCallId":${JSON.stringify(event.toolCallId)},"payload":${payloadJson}}`;
  texts.set(event, text);
  return event;
}
