/**
 * Issue 24, "A store that went back in time is said so", on the real host process: a copy of
 * the database put back while the host is stopped, and a WAL cut in half after a SIGKILL
 * (as damaged storage would), are said at the next start in the log, in `host.info.history`
 * and by `tether doctor`, until `tether history --acknowledge`; a device whose cursor is
 * past every seq tells the host when its mark could not; normal restarts say nothing.
 */
import { copyFileSync, mkdirSync, readFileSync, rmSync, statSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runTether } from '../cli/run-cli.js';
import { startHostProcess, type HostProcess } from '../support/host-process.js';
import { pairDevice, RawChannel } from '../support/raw-channel.js';
import { readStoredEvents } from '../support/store-events.js';
import { tempDir } from '../support/temp-dir.js';
import { until } from '../support/wait.js';

const Rewound = z.object({
  detectedAt: z.number(),
  head: z.number(),
  knownHead: z.number(),
  by: z.enum(['host', 'device']),
  deviceId: z.string().optional(),
  count: z.number(),
});
const Info = z.looseObject({ history: z.object({ rewound: Rewound.optional() }) });
const Doctor = z.looseObject({
  checks: z.array(z.looseObject({ id: z.string(), status: z.string(), detail: z.string() })),
});

let commands = 0;

/** Submits `count` runs (the host has no model: each fails at once, with its events). */
async function submitRuns(channel: RawChannel, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    await channel.call('run.submit', {
      commandId: `cmd-rewind-${process.pid}-${commands++}`,
      input: { text: `task ${commands}` },
    });
  }
}

function head(dataDir: string): number {
  return readStoredEvents(dataDir).at(-1)?.seq ?? 0;
}

function markSeq(dataDir: string): number {
  const text = readFileSync(join(dataDir, 'history-mark.json'), 'utf8');
  return z.object({ seq: z.number() }).parse(JSON.parse(text)).seq;
}

/**
 * Until every run submitted has settled (its session idle: no more events come) and the
 * mark says the last seq (it follows within a second).
 */
async function markCaughtUp(dataDir: string): Promise<void> {
  await until('the runs to settle', () => {
    const events = readStoredEvents(dataDir);
    const idle = events.filter((event) => event.type === 'session.idle').length;
    const settled = idle === commandsOf(dataDir) && markSeq(dataDir) >= (events.at(-1)?.seq ?? 0);
    return settled ? true : undefined;
  });
}

/** How many runs this data directory was sent (every run is its own session). */
function commandsOf(dataDir: string): number {
  return readStoredEvents(dataDir).filter((event) => event.type === 'run.queued').length;
}

async function history(channel: RawChannel) {
  return Info.parse(await channel.call('host.info')).history;
}

async function doctorHistory(dataDir: string) {
  await using home = tempDir('tether-rewind-home-');
  const result = await runTether(['doctor', '--data', dataDir, '--json'], home.path);
  const check = Doctor.parse(JSON.parse(result.stdout)).checks.find((c) => c.id === 'history');
  expect(check, `doctor has no history check:\n${result.stdout}${result.stderr}`).toBeDefined();
  return check!;
}

/** Restarts the host and returns what it printed while starting. */
async function restartSaying(host: HostProcess): Promise<string> {
  const from = host.output().length;
  await host.restart();
  return host.output().slice(from);
}

describe('a store that went back in time', () => {
  it(
    'after a copy put back while stopped: log, host.info and doctor say it until acknowledged',
    { timeout: 120_000 },
    async () => {
      await using host = await startHostProcess();
      const { host: paired } = await pairDevice(await host.pairLink());
      let channel = await RawChannel.open(paired);
      await submitRuns(channel, 1);
      await host.stop();
      mkdirSync(join(host.dataDir, 'backups'), { recursive: true });
      const copy = join(host.dataDir, 'backups', 'by-hand.db');
      copyFileSync(join(host.dataDir, 'tether.db'), copy);
      const early = head(host.dataDir);

      await host.restart();
      channel = await RawChannel.open(paired);
      await submitRuns(channel, 3);
      await host.stop();
      const late = head(host.dataDir);
      expect(late).toBeGreaterThan(early);

      for (const suffix of ['-wal', '-shm'])
        rmSync(`${join(host.dataDir, 'tether.db')}${suffix}`, { force: true });
      copyFileSync(copy, join(host.dataDir, 'tether.db'));
      const before = await doctorHistory(host.dataDir);
      expect(before.status, 'doctor sees it before the host starts').toBe('fail');
      expect(before.detail).toMatch(
        /went back in time: its history ends at event \d+, before event \d+/,
      );

      const said = await restartSaying(host);
      expect(said).toContain(
        `the database went back in time: its history ends at event ${early}, before event ${late}`,
      );
      expect(said).toContain('history --acknowledge');
      channel = await RawChannel.open(paired);
      expect(await history(channel)).toEqual({
        rewound: {
          detectedAt: expect.any(Number) as number,
          head: early,
          knownHead: late,
          by: 'host',
          count: 1,
        },
      });
      const doctor = await doctorHistory(host.dataDir);
      expect(doctor).toMatchObject({
        status: 'fail',
        fix: expect.stringContaining('history --acknowledge') as string,
      });
      expect(doctor.detail).toContain(`its history ends at event ${early}, before event ${late}`);

      // The device's old cursor gets a snapshot; the same rewind is not recorded twice; new
      // events take seqs past every one a device saw.
      const subscribed = await channel.call('subscribe', { afterSeq: late });
      expect(subscribed['mode']).toBe('snapshot');
      await submitRuns(channel, 1);
      expect((await history(channel)).rewound?.count).toBe(1);
      expect(readStoredEvents(host.dataDir).filter((event) => event.seq > early)[0]!.seq).toBe(
        late + 1,
      );

      await using home = tempDir('tether-rewind-home-');
      const shown = await runTether(['history', '--data', host.dataDir], home.path);
      expect(shown.stdout).toContain(`its history ends at event ${early}, before event ${late}`);
      const acknowledged = await runTether(
        ['history', '--acknowledge', '--data', host.dataDir],
        home.path,
      );
      expect(acknowledged.code, acknowledged.stderr).toBe(0);
      expect(acknowledged.stdout).toMatch(/^Acknowledged \(1 time\(s\)\)/);
      expect(await history(channel)).toEqual({});
      expect((await doctorHistory(host.dataDir)).status).toBe('pass');
      expect(await restartSaying(host)).not.toContain('went back in time');
    },
  );

  it(
    'after a WAL cut in half behind a SIGKILL: the same; normal restarts say nothing',
    { timeout: 120_000 },
    async () => {
      await using host = await startHostProcess();
      const { host: paired } = await pairDevice(await host.pairLink());
      let channel = await RawChannel.open(paired);
      await submitRuns(channel, 1);

      // A clean stop and a crash: nothing is said.
      expect(await restartSaying(host)).not.toContain('went back in time');
      channel = await RawChannel.open(paired);
      await submitRuns(channel, 1);
      await host.kill();
      expect(await restartSaying(host)).not.toContain('went back in time');
      channel = await RawChannel.open(paired);
      expect(await history(channel)).toEqual({});
      expect((await doctorHistory(host.dataDir)).status).toBe('pass');

      // A clean stop leaves no WAL: the next one holds what follows, the four runs last. Four
      // acknowledged runs, the mark caught up, then the crash and the cut.
      await host.restart();
      channel = await RawChannel.open(paired);
      await submitRuns(channel, 4);
      await markCaughtUp(host.dataDir);
      const late = head(host.dataDir);
      await host.kill();
      const wal = `${join(host.dataDir, 'tether.db')}-wal`;
      const size = statSync(wal).size;
      expect(size, 'the runs are in the WAL').toBeGreaterThan(0);
      truncateSync(wal, Math.floor(size / 2));
      rmSync(`${join(host.dataDir, 'tether.db')}-shm`, { force: true });

      const said = await restartSaying(host);
      channel = await RawChannel.open(paired);
      const rewound = (await history(channel)).rewound;
      expect(rewound).toMatchObject({ knownHead: late, by: 'host', count: 1 });
      expect(rewound!.head, 'the cut lost events').toBeLessThan(late);
      expect(said).toContain(
        `the database went back in time: its history ends at event ${rewound!.head}, before event ${late}`,
      );
      expect((await doctorHistory(host.dataDir)).status).toBe('fail');
    },
  );

  it(
    "a device's cursor tells when the host has no mark (lost, or a host that kept none)",
    { timeout: 60_000 },
    async () => {
      await using host = await startHostProcess();
      const { host: paired, identity } = await pairDevice(await host.pairLink());
      // A clean stop checkpoints the WAL: the pairing is in the database file, not cut below.
      await host.restart();
      let channel = await RawChannel.open(paired);
      await submitRuns(channel, 4);
      const late = head(host.dataDir);
      await host.kill();
      rmSync(join(host.dataDir, 'history-mark.json'));
      const wal = `${join(host.dataDir, 'tether.db')}-wal`;
      truncateSync(wal, Math.floor(statSync(wal).size / 2));
      rmSync(`${join(host.dataDir, 'tether.db')}-shm`, { force: true });

      expect(await restartSaying(host)).not.toContain('went back in time');
      const cut = head(host.dataDir);
      expect(cut, 'the cut lost events').toBeLessThan(late);
      channel = await RawChannel.open(paired);
      expect(await history(channel)).toEqual({});
      const subscribed = await channel.call('subscribe', { afterSeq: late });
      expect(subscribed['mode']).toBe('snapshot');
      expect((await history(channel)).rewound).toMatchObject({
        head: cut,
        knownHead: late,
        by: 'device',
        deviceId: identity.id,
        count: 1,
      });
      expect(host.output()).toContain(`before event ${late} that device ${identity.id} had seen`);
    },
  );
});
