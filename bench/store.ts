/**
 * Durable commits of the real store: events per second with 1, 10 and 100 events per
 * IMMEDIATE transaction (WAL, synchronous=FULL), next to raw write + fsync loops on a file
 * in the same folder, the disk's own limit. Modes take turns within each round, so a
 * slow patch of the disk hits them all; prints the median of the rounds. The store masks a
 * host's secrets in every payload, as the host's does.
 *
 *   npx tsc -p tsconfig.build.json && node dist/bench/store.js
 */
import { execFileSync } from 'node:child_process';
import {
  closeSync,
  fdatasyncSync,
  fsyncSync,
  mkdtempSync,
  openSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redactor } from '../host/log/index.js';
import { Store } from '../host/store/index.js';
import { b64u } from '../protocol/index.js';

const ROUNDS = 7;
const ROUND_MS = 400;
const WARMUP_MS = 150;
const CPU_ROUNDS = 5;
const RECORD = Buffer.alloc(100, 'x');

interface Mode {
  label: string;
  /** Events each commit makes durable; 0 for the raw file loops. */
  events: number;
  commit: () => void;
}

/** The filesystem type and device under `path`, from the mount table. */
function filesystemOf(path: string): string {
  try {
    if (process.platform === 'linux') {
      // Lines are `device mountpoint type options dump pass`; the longest mountpoint wins.
      const mounts = readFileSync('/proc/self/mounts', 'utf8')
        .split('\n')
        .map((line) => line.split(' '))
        .filter(([, point]) => point !== undefined && isUnder(path, point));
      mounts.sort((a, b) => b[1]!.length - a[1]!.length);
      const [device, point, type] = mounts[0] ?? [];
      return `${type} (${device} on ${point})`;
    }
    if (process.platform === 'darwin') {
      // Lines are `device on mountpoint (type, options)`.
      const mounts = execFileSync('mount', { encoding: 'utf8' })
        .split('\n')
        .flatMap((line) => {
          const match = /^(.+) on (.+) \(([^,)]+)/.exec(line);
          return match && isUnder(path, match[2]!) ? [match] : [];
        });
      mounts.sort((a, b) => b[2]!.length - a[2]!.length);
      const match = mounts[0];
      if (match) return `${match[3]} (${match[1]} on ${match[2]})`;
    }
  } catch {
    // The figures stand without it.
  }
  return 'unknown';
}

function isUnder(path: string, mountPoint: string): boolean {
  return mountPoint === '/' || path === mountPoint || path.startsWith(`${mountPoint}/`);
}

/** Commits per second of `commit` over one timed round of `ms`. */
function rateOf(commit: () => void, ms: number): number {
  let count = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < ms) {
    commit();
    count++;
    elapsed = performance.now() - start;
  }
  return (count * 1000) / elapsed;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** One median per mode; the modes take turns within each round. */
function measure(modes: readonly Mode[], rounds: number): number[] {
  for (const mode of modes) rateOf(mode.commit, WARMUP_MS);
  const rates = modes.map((): number[] => []);
  for (let round = 0; round < rounds; round++) {
    modes.forEach((mode, index) => rates[index]!.push(rateOf(mode.commit, ROUND_MS)));
  }
  return rates.map(median);
}

const format = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

const root = realpathSync(mkdtempSync(join(tmpdir(), 'tether-bench-store-')));
// The secrets a host masks in every payload: an API key, the host key's seed, the admin token.
const secrets = new Redactor();
secrets.register(`sk-proj-${b64u(randomBytes(36))}`);
secrets.register(new Uint8Array(randomBytes(32)));
secrets.register(b64u(randomBytes(32)));
const store = await Store.open({ dataDir: join(root, 'data'), secrets });
const appendFd = openSync(join(root, 'fsync-append.bin'), 'w');
const overwriteFd = openSync(join(root, 'fsync-overwrite.bin'), 'w');
writeSync(overwriteFd, RECORD, 0, RECORD.length, 0);
fsyncSync(overwriteFd);

const appendEvents = (count: number) => () =>
  store.write((tx) => {
    for (let i = 0; i < count; i++) {
      tx.append({ type: 'run.started', sessionId: null, runId: null, payload: {} });
    }
  });

try {
  const journal = String(store.db.pragma('journal_mode', { simple: true }));
  const synchronous = Number(store.db.pragma('synchronous', { simple: true }));
  console.log(`store commits vs raw fsync, median of ${ROUNDS} rounds of ${ROUND_MS} ms`);
  console.log(`folder ${root}: ${filesystemOf(root)}`);
  console.log(`journal_mode=${journal} synchronous=${synchronous} (2 = FULL), 100-byte raw writes`);
  const modes: Mode[] = [
    { label: 'store, 1 event/commit', events: 1, commit: appendEvents(1) },
    { label: 'store, 10 events/commit', events: 10, commit: appendEvents(10) },
    { label: 'store, 100 events/commit', events: 100, commit: appendEvents(100) },
    {
      label: 'raw write + fsync, append',
      events: 0,
      commit: () => {
        writeSync(appendFd, RECORD);
        fsyncSync(appendFd);
      },
    },
    {
      label: 'raw write + fdatasync, append',
      events: 0,
      commit: () => {
        writeSync(appendFd, RECORD);
        fdatasyncSync(appendFd);
      },
    },
    {
      label: 'raw write + fdatasync, overwrite',
      events: 0,
      commit: () => {
        writeSync(overwriteFd, RECORD, 0, RECORD.length, 0);
        fdatasyncSync(overwriteFd);
      },
    },
  ];
  const rates = measure(modes, ROUNDS);
  const rawFsync = rates[3]!;
  console.log(
    'mode                               commits/s     events/s   µs/commit   vs raw fsync',
  );
  modes.forEach((mode, index) => {
    const rate = rates[index]!;
    console.log(
      [
        mode.label.padEnd(32),
        format(rate).padStart(11),
        (mode.events === 0 ? '-' : format(rate * mode.events)).padStart(12),
        format(1e6 / rate, 1).padStart(11),
        `${format(rate / rawFsync, 2)}x`.padStart(14),
      ].join(' '),
    );
  });

  // The same commits with no fsync at all: what the store costs in CPU alone.
  store.db.pragma('synchronous = OFF');
  const cpuModes = [modes[0]!, modes[2]!];
  const cpuRates = measure(cpuModes, CPU_ROUNDS);
  console.log(`without fsync (synchronous=OFF, same store), median of ${CPU_ROUNDS}`);
  cpuModes.forEach((mode, index) => {
    const rate = cpuRates[index]!;
    console.log(
      [
        mode.label.padEnd(32),
        format(rate).padStart(11),
        format(rate * mode.events).padStart(12),
        format(1e6 / rate, 1).padStart(11),
      ].join(' '),
    );
  });
  // Each event also goes into the unique index on its random id, so the log's size matters.
  console.log(`events in the log at the end: ${format(store.events.head())}`);
} finally {
  closeSync(appendFd);
  closeSync(overwriteFd);
  store.close();
  rmSync(root, { recursive: true, force: true });
}
