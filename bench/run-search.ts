/**
 * `runs.list` with a `query` on the real store: a page of 51 runs (what the host asks for a
 * page of 50) without a query as the baseline, then a query many runs match (the page fills
 * fast), one that matches only the oldest run, and one that matches nothing (a scan of every
 * run, its session's title and its messages). Also the same scan with SQLite's own LIKE,
 * which folds ASCII only, to show what the host's every-script fold costs. Medians of rounds
 * at 1,000 and 10,000 runs with two assistant messages each; prints figures, asserts nothing.
 *
 *   npx tsc -p tsconfig.build.json && node dist/bench/run-search.js
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Store } from '../host/store/index.js';

const ROUNDS = 9;
const SIZES = [1_000, 10_000];
const WORDS = ['build', 'tests', 'readme', 'refactor', 'parser', 'server', 'cache', 'docs'];

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function text(i: number, length: number): string {
  let out = `step ${i}:`;
  while (out.length < length) out += ` ${WORDS[(out.length * 7 + i) % WORDS.length]}`;
  return out;
}

function timeMs(run: () => unknown): number {
  const start = process.hrtime.bigint();
  run();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

async function measure(runs: number): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tether-bench-search-'));
  const store = await Store.open({ dataDir });
  try {
    store.write(() => {
      for (let i = 0; i < runs; i++) {
        const sessionId = `ses_${i}`;
        const title = i === 0 ? 'the oldest needle-in-a-haystack task' : text(i, 60);
        store.runs.insertSession({
          id: sessionId,
          title,
          workspace: '/w',
          createdAt: i,
          activeRunId: null,
        });
        store.runs.insertRun({
          id: `run_${i}`,
          sessionId,
          state: 'succeeded',
          input: { text: title },
          model: 'm',
          createdAt: i,
          startedAt: i,
          finishedAt: i,
          continuesRunId: null,
          error: null,
          commandId: null,
          createdBy: 'bench',
          idleAt: i,
        });
        for (const n of [0, 1]) {
          store.runs.insertMessage({
            id: `msg_${i}_${n}`,
            runId: `run_${i}`,
            text: text(i * 2 + n, 400),
            reasoning: null,
            finishReason: 'stop',
            usage: null,
            createdAt: i,
            provider: 'generic',
            native: {},
            toolCalls: [],
          });
        }
      }
    });
    const like = store.db.prepare(
      `SELECT * FROM runs WHERE (json_extract(input_json, '$.text') LIKE ?
         OR EXISTS (SELECT 1 FROM sessions s WHERE s.id = runs.session_id AND s.title LIKE ?)
         OR EXISTS (SELECT 1 FROM messages m WHERE m.run_id = runs.id AND m.text LIKE ?))
       ORDER BY created_at DESC, rowid DESC LIMIT 51`,
    );
    const cases: [string, () => unknown][] = [
      ['no query (baseline)', () => store.runs.listRuns({ limit: 51 })],
      [
        'query "readme" (most runs match)',
        () => store.runs.listRuns({ limit: 51, query: 'readme' }),
      ],
      [
        'query matching the oldest run only',
        () => store.runs.listRuns({ limit: 51, query: 'needle' }),
      ],
      ['query matching nothing', () => store.runs.listRuns({ limit: 51, query: 'zebra' })],
      [
        'matching nothing, SQLite LIKE (ASCII fold)',
        () => like.all('%zebra%', '%zebra%', '%zebra%'),
      ],
    ];
    const measured = () =>
      cases.map(([label, run]) => {
        run();
        return { label, ms: median(Array.from({ length: ROUNDS }, () => timeMs(run))) };
      });
    // The store has runs_by_created (migration 8); the same cases without it, as before.
    const withIndex = measured();
    store.db.exec('DROP INDEX runs_by_created');
    const without = measured();
    const base = without[0]!.ms;
    console.log(
      `\n${runs.toLocaleString()} runs, ${(runs * 2).toLocaleString()} messages of 400 characters` +
        ' (ms, median; ratio to the baseline without the index):',
    );
    console.log(
      `  ${''.padEnd(44)} ${'without the index'.padStart(16)} ${'runs_by_created'.padStart(24)}`,
    );
    without.forEach(({ label, ms }, i) => {
      const indexed = withIndex[i]!.ms;
      console.log(
        `  ${label.padEnd(44)} ${ms.toFixed(2).padStart(8)} (${(ms / base).toFixed(1)}×)` +
          ` ${indexed.toFixed(2).padStart(14)} (${(indexed / base).toFixed(1)}×)`,
      );
    });
  } finally {
    store.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

for (const size of SIZES) await measure(size);
