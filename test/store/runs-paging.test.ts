// runs.list pages through runs created in the same millisecond: each run once, in the
// order the list shows them (newest first; same time, the later insert first).
import { describe, expect, it } from 'vitest';
import { newId, Store } from '../../host/store/index.js';
import { tempDir } from '../support/temp-dir.js';

describe('runs.list pages', () => {
  it('hold every run once when runs share a created_at', async () => {
    await using dir = tempDir('tether-runs-paging-');
    const store = await Store.open({ dataDir: dir.path });
    try {
      const sessionId = newId('ses');
      const inserted: string[] = [];
      store.write(() => {
        store.runs.insertSession({
          id: sessionId,
          title: 'same ms',
          workspace: '/w',
          createdAt: 1000,
          activeRunId: null,
        });
        for (let i = 0; i < 40; i++) {
          const id = newId('run');
          inserted.push(id);
          store.runs.insertRun({
            id,
            sessionId,
            state: 'succeeded',
            input: { text: `run ${i}` },
            model: 'm',
            // Four runs in each millisecond, ids random: their order is the insert order.
            createdAt: 1000 + Math.floor(i / 4),
            startedAt: null,
            finishedAt: null,
            continuesRunId: null,
            error: null,
            commandId: null,
            createdBy: 'test',
            idleAt: null,
          });
        }
      });
      const seen: string[] = [];
      let before: { createdAt: number; id: string } | undefined;
      for (let page = 0; page < 40; page++) {
        const runs = store.runs.listRuns({ limit: 3, ...(before === undefined ? {} : { before }) });
        if (runs.length === 0) break;
        seen.push(...runs.map((run) => run.id));
        const last = runs.at(-1)!;
        before = { createdAt: last.createdAt, id: last.id };
      }
      expect(seen).toEqual([...inserted].reverse());
      const plan = store.db
        .prepare(
          'EXPLAIN QUERY PLAN SELECT * FROM runs ORDER BY created_at DESC, rowid DESC LIMIT 51',
        )
        .all() as { detail: string }[];
      expect(plan.map((step) => step.detail).join('; ')).not.toContain('TEMP B-TREE');
    } finally {
      store.close();
    }
  });
});
