// The JSON text the store keeps beside each event (what frames carry) against
// `JSON.stringify` of the event itself: at append, on read-back, and for rows whose stored
// text is not what this version writes.
import { describe, expect, it } from 'vitest';
import type { NewEvent } from '../../protocol/index.js';
import { EVENT_TYPES } from '../../protocol/testing.js';
import { Redactor } from '../../host/log/index.js';
import { eventJson } from '../../protocol/index.js';
import { Store } from '../../host/store/index.js';
import { tempDir } from '../support/temp-dir.js';
import { eventSamples } from '../protocol/samples.js';

const SECRET = 'sk-test-0123456789abcdef';

describe('the JSON kept for each event', () => {
  it('is JSON.stringify of the event, as appended and as read back', async () => {
    await using dir = tempDir('tether-event-json-');
    const secrets = new Redactor();
    secrets.register(SECRET);
    const store = await Store.open({ dataDir: dir.path, secrets });
    try {
      const written = store.write((tx) => [
        ...EVENT_TYPES.map((type) =>
          tx.append({ type, sessionId: 'ses_1', payload: eventSamples[type] } as NewEvent),
        ),
        tx.append({
          type: 'run.queued',
          runId: 'run_"quoted"',
          toolCallId: 'tc_\u2028',
          payload: {
            input: { text: `héllo ${SECRET} \u0000 "x" \ud83d\ude00` },
            model: null,
            commandId: 'cmd_0123456789abcdef',
            by: 'dev',
          },
        }),
      ]);
      const read = store.events.after(0);
      expect(read).toEqual(written);
      for (const event of [...written, ...read]) {
        expect(eventJson(event)).toBe(JSON.stringify(event));
      }
      expect(eventJson(read.at(-1)!)).not.toContain(SECRET);
    } finally {
      store.close();
    }
  });

  it('is the stored text when it parses to the event, and the event itself otherwise', async () => {
    await using dir = tempDir('tether-event-json-');
    const store = await Store.open({ dataDir: dir.path });
    try {
      store.write((tx) => {
        tx.append({ type: 'run.started', payload: {} });
        tx.append({ type: 'run.started', payload: {} });
      });
      // Rows as an older version or a hand edit may have left them: spaced out, and one
      // with a `__proto__` key, which zod drops (so its text is not the event's).
      const rewrite = store.db.prepare('UPDATE events SET payload_json = ? WHERE seq = ?');
      rewrite.run('{ "note" : "spaced" }', 1);
      rewrite.run('{"__proto__":{"polluted":true},"ok":1}', 2);
      const [spaced, odd] = store.events.after(0);
      expect(eventJson(spaced!)).toContain('{ "note" : "spaced" }');
      expect(JSON.parse(eventJson(spaced!))).toStrictEqual(JSON.parse(JSON.stringify(spaced)));
      expect(odd!.payload).toEqual({ ok: 1 });
      expect(eventJson(odd!)).toBe(JSON.stringify(odd));
      expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    } finally {
      store.close();
    }
  });
});
