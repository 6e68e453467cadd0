/**
 * The JSON text of each event the store hands out, kept beside the event so a frame can
 * carry it without encoding the event again: built at append from the payload text about
 * to be stored, and at read-back from the row's own payload text (the text that was just
 * parsed and validated). The text is exactly `JSON.stringify(event)` of an event built by
 * the event log: the same keys in the same order, the payload as its stored JSON.
 */
import type { Event } from '../../protocol/index.js';

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
