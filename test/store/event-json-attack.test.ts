// Stored payload texts the read-back keeps verbatim for frames (host/store/event-log.ts
// toEvent -> keepEventJson) although they are not what JSON.stringify of the validated
// event would send. Both are rows this version never writes (maskedJson stores
// JSON.stringify output): an older version's, a hand edit, a corrupted file. Marked
// `it.fails`: they record what the fast path lets through, not fixed on this branch.
import { describe, expect, it } from 'vitest';
import { eventJson } from '../../protocol/index.js';
import { Store } from '../../host/store/index.js';
import { tempDir } from '../support/temp-dir.js';

const digest = 'sha256:' + 'a'.repeat(64);

async function readBack(payloadJson: string) {
  const dir = tempDir('tether-event-json-attack-');
  const store = await Store.open({ dataDir: dir.path });
  try {
    store.write((tx) => {
      tx.append({
        type: 'tool.proposed',
        runId: 'run_1',
        toolCallId: 'tc_1',
        payload: { name: 'run_command', input: {}, inputDigest: digest },
      });
    });
    store.db.prepare('UPDATE events SET payload_json = ? WHERE seq = 1').run(payloadJson);
    const [event] = store.events.after(0);
    return event!;
  } finally {
    store.close();
    await dir[Symbol.asyncDispose]();
  }
}

describe('stored payload text sent as is', () => {
  it.fails(
    'sends what JSON.stringify of the event would: 1e400 reaches remotes as Infinity, not null',
    async () => {
      const event = await readBack(
        `{"name":"run_command","input":{"n":1e400,"z":-0},"inputDigest":"${digest}"}`,
      );
      expect(JSON.parse(eventJson(event))).toStrictEqual(JSON.parse(JSON.stringify(event)));
    },
  );

  it.fails(
    'sends nothing the host did not validate (a duplicate key, first value shadowed)',
    async () => {
      // JSON.parse keeps the last `name`; the frame still carries the first, which a parser
      // that keeps the first key (or refuses duplicates) would act on instead.
      const event = await readBack(
        `{"name":"rm -rf / (never validated)","name":"run_command","input":{},"inputDigest":"${digest}"}`,
      );
      expect(event.payload).toMatchObject({ name: 'run_command' });
      expect(eventJson(event)).not.toContain('never validated');
    },
  );
});
