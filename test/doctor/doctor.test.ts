/**
 * `tether doctor` as a child process: against a healthy running host (a scripted model,
 * a fake `tailscale` on PATH whose serve config proxies to the host's port), a model endpoint that refuses the
 * key (401), an unwritable data directory and a missing HTTPS certificate. Each failure
 * names its fix; the exit code says whether any check failed.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { readAdminFile } from '../../host/server/index.js';
import { runTether } from '../cli/run-cli.js';
import { startHostProcess, type HostProcess } from '../support/host-process.js';
import {
  startScriptedModelServer,
  type ScriptedModelServer,
} from '../support/scripted-model-server.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';
import { writeFakeTools } from '../service/fake-tools.js';
import { writeFakeTailscale } from '../support/fake-tailscale.js';
import { startFakeTranscriptionServer } from '../support/fake-transcription-server.js';

const Report = z.strictObject({
  ok: z.boolean(),
  checks: z.array(
    z.strictObject({
      id: z.string(),
      status: z.enum(['pass', 'warn', 'fail', 'skip']),
      detail: z.string(),
      fix: z.string().optional(),
    }),
  ),
});
type Report = z.infer<typeof Report>;

const tetherBin = new URL('../../bin/tether.js', import.meta.url).pathname;
let model: ScriptedModelServer;
let host: HostProcess;
let home: TempDir;
let fakeBin: string;
let fakeTailscaleEnv: Record<string, string>;

beforeAll(async () => {
  model = await startScriptedModelServer();
  host = await startHostProcess({ model: model.baseUrl });
  home = tempDir('tether-doctor-');
  const port = new URL(host.url).port;
  // What `tailscale serve --bg PORT` leaves behind, published by hand (not with --tailscale).
  const tailscale = writeFakeTailscale(home.path);
  tailscale.setServeConfig({
    TCP: { '443': { HTTPS: true } },
    Web: {
      'mac.tail1234.ts.net:443': { Handlers: { '/': { Proxy: `http://127.0.0.1:${port}` } } },
    },
  });
  fakeBin = tailscale.bin;
  fakeTailscaleEnv = tailscale.env;
});

afterAll(async () => {
  await host.dispose();
  await model.close();
  home.remove();
});

/** The environment doctor runs in; a variable `extra` gives as undefined is left out. */
function env(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const all = {
    PATH: `${fakeBin}:${process.env['PATH'] ?? ''}`,
    ...fakeTailscaleEnv,
    TETHER_KEY_STORE: 'file',
    TETHER_MODEL_BASE_URL: model.baseUrl,
    TETHER_MODEL: 'scripted-model',
    TETHER_MODEL_API_KEY: 'sk-test',
    ...extra,
  };
  return Object.fromEntries(
    Object.entries(all).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}

async function doctor(
  dataDir: string,
  extra: Record<string, string | undefined> = {},
): Promise<{ code: number | null; report: Report }> {
  const result = await runTether(['doctor', '--data', dataDir, '--json'], home.path, env(extra));
  expect(result.stdout.trimEnd().split('\n')).toHaveLength(1);
  return { code: result.code, report: Report.parse(JSON.parse(result.stdout)) };
}

function check(report: Report, id: string) {
  const found = report.checks.find((entry) => entry.id === id);
  if (found === undefined) throw new Error(`no check ${id} in ${JSON.stringify(report)}`);
  return found;
}

describe('tether doctor', () => {
  it('passes every check of a healthy host (the service aside, which this test does not install)', async () => {
    const { report } = await doctor(host.dataDir);
    const ids = report.checks.map((entry) => entry.id);
    expect(ids).toEqual(
      expect.arrayContaining([
        'node',
        'data',
        'database',
        'worktrees',
        'model',
        'keychain',
        'https',
        'lan',
      ]),
    );
    expect(ids).toEqual(
      expect.arrayContaining(['mdns', 'tailscale', 'push', 'host', 'service', 'disk']),
    );
    const failed = report.checks.filter(
      (entry) => entry.status === 'fail' && entry.id !== 'service',
    );
    expect(failed).toEqual([]);
    for (const id of [
      'node',
      'sandbox',
      'data',
      'database',
      'worktrees',
      'model',
      'tailscale',
      'push',
      'host',
      'disk',
    ]) {
      expect(check(report, id).status, id).toBe('pass');
    }
    expect(check(report, 'database').detail).toContain('quick_check ok');
    expect(check(report, 'model').detail).toContain('key accepted');
    expect(check(report, 'tailscale').detail).toContain(`127.0.0.1:${new URL(host.url).port}`);
    expect(check(report, 'keychain')).toMatchObject({ status: 'skip' });
    // Not installed in this test's HOME: a warning, with the install for this data directory.
    const service = check(report, 'service');
    expect(service.status).toBe('warn');
    expect(service.detail).toContain('not installed');
    expect(service.fix).toContain(`service install --data '${host.dataDir}'`);
    // One cheap request to the endpoint, with the key.
    const listed = model.requests.filter((request) => request.path.endsWith('/models'));
    expect(listed.at(-1)?.headers['authorization']).toBe('Bearer sk-test');
  });

  it('prints one line per check, failures with their fix, and exits 1 when one fails', async () => {
    // A port that was just free: nothing listens there.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const result = await runTether(
      ['doctor', '--data', host.dataDir],
      home.path,
      env({ TETHER_MODEL_BASE_URL: `http://127.0.0.1:${port}/v1` }),
    );
    expect(result.code).toBe(1);
    const lines = result.stdout.split('\n').filter((line) => /^(ok|FAIL|skip) /.test(line));
    expect(lines.length).toBeGreaterThanOrEqual(13);
    const modelLine = lines.find((line) => /^FAIL\s+model /.test(line));
    expect(modelLine).toMatch(
      new RegExp(`cannot reach http://127\\.0\\.0\\.1:${port}/v1: refused`),
    );
    expect(modelLine).toMatch(/→ fix: check TETHER_MODEL_BASE_URL/);
    // The model server is not the Tether host: starting the host cures nothing.
    expect(modelLine).toContain('check that the model server is running there');
    expect(modelLine).not.toContain('start)');
    expect(result.stdout).toMatch(/^ok\s+node\s+Node \d+/m);
  });

  it('warns, and exits 0, for push without HTTPS and no service on a fresh setup', async () => {
    // No tailscale on PATH: the host serves plain HTTP only.
    const result = await runTether(
      ['doctor', '--data', host.dataDir],
      home.path,
      env({ PATH: process.env['PATH'] ?? '' }),
    );
    expect(result.code, result.stdout).toBe(0);
    expect(result.stdout).toMatch(
      /^warn\s+push\s+no notifications: push needs the app on HTTPS.*→ fix: /m,
    );
    expect(result.stdout).toMatch(/^warn\s+service\s+not installed .*→ fix: .*service install/m);
    expect(result.stdout).not.toMatch(/^FAIL/m);
    expect(result.stdout).toMatch(/No check failed\. 2 warning\(s\)/);
    const { code, report } = await doctor(host.dataDir, { PATH: process.env['PATH'] ?? '' });
    expect(code).toBe(0);
    expect(report.ok).toBe(true);
    expect(check(report, 'push').status).toBe('warn');
  });

  it('fails the model check when the endpoint does not list the model, naming where the name came from', async () => {
    const { code, report } = await doctor(host.dataDir, { TETHER_MODEL: 'no-such-model' });
    expect(code).toBe(1);
    const modelCheck = check(report, 'model');
    expect(modelCheck).toMatchObject({
      status: 'fail',
      detail: `${model.baseUrl} does not offer no-such-model (from TETHER_MODEL); it lists scripted-model`,
    });
    expect(modelCheck.fix).toMatch(
      /models lists them; then export TETHER_MODEL=NAME, then restart the host$/,
    );
  });

  it('names the config file, not a variable, for a model server that is down', async () => {
    using dir = tempDir('tether-doctor-file-');
    const dataDir = join(dir.path, 'data');
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/v1`;
    await new Promise((resolve) => closed.close(resolve));
    const set = await runTether(
      ['model', 'set', '--base-url', base, '--model', 'm', '--data', dataDir],
      home.path,
    );
    expect(set.code, set.stderr).toBe(0);

    const result = await runTether(['doctor', '--data', dataDir, '--json'], home.path, {
      TETHER_KEY_STORE: 'file',
    });

    const modelCheck = check(Report.parse(JSON.parse(result.stdout)), 'model');
    const configFile = join(dataDir, 'config.json');
    expect(modelCheck.detail).toContain(`cannot reach ${base}: refused`);
    expect(modelCheck.detail).not.toContain('start)');
    expect(modelCheck.fix).toBe(
      `check model.baseUrl in ${configFile} (now ${base}): start the model server there, or node '${tetherBin}' model set --base-url URL --data '${dataDir}'`,
    );
    expect(modelCheck.fix).not.toContain('TETHER_MODEL_BASE_URL');
  });

  it(
    'checks the transcription endpoint, warn-only: unset, answering with its key, down (issue 28)',
    { timeout: 120_000 },
    async () => {
      using dir = tempDir('tether-doctor-voice-');
      const dataDir = join(dir.path, 'data');
      mkdirSync(dataDir, { recursive: true });
      expect(check((await doctor(dataDir)).report, 'voice')).toMatchObject({
        status: 'skip',
        detail: expect.stringContaining('no transcription endpoint') as string,
        fix: expect.stringContaining('voice set --base-url') as string,
      });

      await using speech = await startFakeTranscriptionServer();
      const set = await runTether(
        [
          'voice',
          'set',
          '--base-url',
          speech.baseUrl,
          '--model',
          'whisper-test',
          '--data',
          dataDir,
        ],
        home.path,
        { TETHER_KEY_STORE: 'file' },
      );
      expect(set.code, set.stderr).toBe(0);
      const up = await doctor(dataDir);
      expect(check(up.report, 'voice')).toMatchObject({
        status: 'pass',
        detail: `whisper-test at ${speech.baseUrl} answers`,
      });

      await speech.close();
      const down = await doctor(dataDir);
      const voice = check(down.report, 'voice');
      expect(voice.status).toBe('warn');
      expect(voice.detail).toContain(`cannot reach ${speech.baseUrl}: refused`);
      expect(voice.fix).toContain('voice set --base-url URL');
      expect(
        down.report.checks.filter((entry) => entry.status === 'fail').map((entry) => entry.id),
      ).not.toContain('voice');
    },
  );

  it('sees a demo host running beside the data directory it was asked about', async () => {
    using dir = tempDir('tether-doctor-demo-');
    const dataDir = join(dir.path, 'data');
    await using demo = await startHostProcess({ dataDir: join(dataDir, 'demo'), args: ['--demo'] });

    // A new user trying the demo has configured no model yet.
    const { report } = await doctor(dataDir, {
      TETHER_MODEL_BASE_URL: undefined,
      TETHER_MODEL: undefined,
      TETHER_MODEL_API_KEY: undefined,
    });

    const admin = readAdminFile(demo.dataDir);
    const hostCheck = check(report, 'host');
    expect(hostCheck).toMatchObject({
      status: 'warn',
      detail: `no host is running for ${dataDir}, but one is for ${demo.dataDir} (pid ${admin?.pid}) at ${admin?.url}`,
    });
    expect(hostCheck.fix).toContain(`doctor --data '${demo.dataDir}' checks that one`);
    // Trying the demo is not a failure: the model is for real work, which the demo does not need.
    expect(check(report, 'model')).toMatchObject({
      status: 'warn',
      detail: `no model configured; the demo host running for ${demo.dataDir} needs none`,
    });
    expect(check(report, 'model').fix).toMatch(/^for real work: .* model set --base-url /);
  });

  it('fails the model check when the endpoint refuses the key (401), saying which variable to set', async () => {
    const refusing = createServer((req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          error: { message: 'Invalid API key', type: 'authentication_error', code: null },
        }),
      );
    });
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    try {
      const port = (refusing.address() as AddressInfo).port;
      const { code, report } = await doctor(host.dataDir, {
        TETHER_MODEL_BASE_URL: `http://127.0.0.1:${port}/v1`,
        TETHER_MODEL_API_KEY: 'sk-wrong',
      });
      expect(code).toBe(1);
      expect(report.ok).toBe(false);
      const modelCheck = check(report, 'model');
      expect(modelCheck.status).toBe('fail');
      expect(modelCheck.detail).toContain('refused the key (HTTP 401)');
      expect(modelCheck.fix).toContain('TETHER_MODEL_API_KEY');
    } finally {
      await new Promise((resolve) => refusing.close(resolve));
    }
  });

  it('sends the key `tether model set-key` kept, as the host reads it, when no variable names one', async () => {
    const keyed = createServer((req, res) => {
      const ok = req.headers.authorization === 'Bearer sk-stored';
      res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
      res.end(JSON.stringify(ok ? { object: 'list', data: [] } : { error: { message: 'no' } }));
    });
    await new Promise<void>((resolve) => keyed.listen(0, '127.0.0.1', resolve));
    try {
      using dir = tempDir('tether-doctor-key-');
      const dataDir = join(dir.path, 'data');
      const base = `http://127.0.0.1:${(keyed.address() as AddressInfo).port}/v1`;
      const cliEnv = { PATH: process.env['PATH'] ?? '', HOME: home.path, TETHER_KEY_STORE: 'file' };
      const set = spawnSync(
        process.execPath,
        [tetherBin, 'model', 'set', '--base-url', base, '--model', 'm', '--data', dataDir],
        { env: cliEnv, encoding: 'utf8' },
      );
      expect(set.status, set.stderr).toBe(0);
      const setKey = spawnSync(
        process.execPath,
        [tetherBin, 'model', 'set-key', '--data', dataDir],
        {
          env: cliEnv,
          input: 'sk-stored',
          encoding: 'utf8',
        },
      );
      expect(setKey.status, setKey.stderr).toBe(0);
      const result = await runTether(['doctor', '--data', dataDir, '--json'], home.path, {
        TETHER_KEY_STORE: 'file',
      });
      const report = Report.parse(JSON.parse(result.stdout));
      expect(check(report, 'model')).toMatchObject({ status: 'pass' });
      expect(check(report, 'model').detail).toContain('key accepted');
    } finally {
      await new Promise((resolve) => keyed.close(resolve));
    }
  });

  it('fails the data check of an unwritable data directory with the chmod that fixes it', async () => {
    using dir = tempDir('tether-doctor-ro-');
    const dataDir = join(dir.path, 'data');
    mkdirSync(dataDir, { mode: 0o700 });
    chmodSync(dataDir, 0o500);
    try {
      const { code, report } = await doctor(dataDir);
      expect(code).toBe(1);
      expect(check(report, 'data')).toEqual({
        id: 'data',
        status: 'fail',
        detail: `${dataDir} is not writable`,
        fix: `chmod 700 '${dataDir}'`,
      });
    } finally {
      chmodSync(dataDir, 0o700);
    }
  });

  it('fails the database check of a file that is not a database, with the restore from backups/', async () => {
    using dir = tempDir('tether-doctor-db-');
    const dataDir = join(dir.path, 'data');
    mkdirSync(dataDir, { mode: 0o700 });
    writeFileSync(join(dataDir, 'tether.db'), 'not a database, just text'.repeat(200), {
      mode: 0o600,
    });
    const { code, report } = await doctor(dataDir);
    expect(code).toBe(1);
    const database = check(report, 'database');
    expect(database.status).toBe('fail');
    expect(database.detail).toContain(`${join(dataDir, 'tether.db')} cannot be opened`);
    expect(database.fix).toContain(`'${join(dataDir, 'backups')}'`);
  });

  it('fails the https check when the certificate is missing, naming the file and the start that makes it', async () => {
    using dir = tempDir('tether-doctor-tls-');
    const dataDir = join(dir.path, 'data');
    mkdirSync(join(dataDir, 'tls'), { recursive: true, mode: 0o700 });
    const { code, report } = await doctor(dataDir);
    expect(code).toBe(1);
    const https = check(report, 'https');
    expect(https.status).toBe('fail');
    expect(https.detail).toBe(`${join(dataDir, 'tls', 'ca.pem')} is missing or unreadable`);
    expect(https.fix).toContain(`start --https --data '${dataDir}'`);
    expect(check(report, 'host').status).toBe('fail');
    expect(check(report, 'host').fix).toContain(`start --data '${dataDir}'`);
  });
});

describe('tether doctor on an installed service that cannot start', () => {
  it('names the Tether host started outside the service that holds its data directory, and does not say reinstall', async () => {
    using dir = tempDir('tether-doctor-service-');
    const serviceHome = join(dir.path, 'home');
    mkdirSync(serviceHome);
    const fakes = writeFakeTools(dir.path);
    const base = env({ TETHER_SERVICE_MANAGER: 'systemd', FAKE_DIR: fakes.env['FAKE_DIR'] ?? '' });
    const serviceEnv = { ...base, PATH: `${fakes.bin}:${base['PATH'] ?? ''}` };
    const port = new URL(host.url).port;
    const install = ['service', 'install', '--data', host.dataDir, '--port', port];
    expect((await runTether(install, serviceHome, serviceEnv)).code).toBe(0);
    // What the service's own start prints while `tether start` (this test's host) runs,
    // appended to its output file as systemd does; systemd restarts it, again and again.
    fakes.setJob('crashed');
    const start = await runTether(
      ['start', '--data', host.dataDir, '--port', port],
      serviceHome,
      {},
    );
    expect(start.code).not.toBe(0);
    expect(start.stderr).toContain('another Tether host is running on the data directory');
    appendFileSync(join(host.dataDir, 'logs', 'service.log'), `${start.stdout}${start.stderr}`);

    const result = await runTether(
      ['doctor', '--data', host.dataDir, '--json'],
      serviceHome,
      serviceEnv,
    );
    const service = check(Report.parse(JSON.parse(result.stdout)), 'service');
    const pid = readAdminFile(host.dataDir)?.pid;
    expect(pid).toBeGreaterThan(0);
    expect(service.status).toBe('fail');
    expect(service.detail).toBe(
      `installed but not running (last exit 1): the data directory ${host.dataDir} is in use by a Tether host started outside the service (pid ${pid})`,
    );
    expect(service.fix).toContain(`kill ${pid}`);
    expect(service.fix).toContain('service restart');
    expect(service.fix).not.toContain('install');
  });
});
