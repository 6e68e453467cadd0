/**
 * The checks of `tether doctor` that look at this machine and the data directory: Node,
 * the data directory and its file modes, the database, the Keychain, the HTTPS
 * certificates, push, free disk space and the command sandbox. Each returns a pass, a
 * failure or a warning with the command that fixes it, or a skip that says why.
 */
import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { accessSync, constants, existsSync, readFileSync, statfsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { HostConfig } from '../config/index.js';
import type { SandboxStatus } from '../sandbox/index.js';
import { serverNames } from '../tls/index.js';
import { tetherCommand } from '../../common/cli/index.js';
import { errorMessage } from '../../protocol/index.js';

/**
 * One check's outcome: `fix` is the command (or step) that cures a failure or a warning.
 * A warning is something to know that does not stop the host working (exit 0).
 */
export interface CheckResult {
  id: string;
  status: 'pass' | 'warn' | 'fail' | 'skip';
  detail: string;
  fix?: string;
}

export const pass = (id: string, detail: string): CheckResult => ({ id, status: 'pass', detail });
const skip = (id: string, detail: string): CheckResult => ({ id, status: 'skip', detail });
export const fail = (id: string, detail: string, fix: string): CheckResult => ({
  id,
  status: 'fail',
  detail,
  fix,
});
const warn = (id: string, detail: string, fix: string): CheckResult => ({
  id,
  status: 'warn',
  detail,
  fix,
});

const MIN_NODE = [20, 19] as const;
/** Below this much free space, SQLite commits and tool outputs start to fail. */
const MIN_FREE_BYTES = 512 * 1024 * 1024;
const DAY_MS = 24 * 60 * 60 * 1000;
/** Secrets and the database: readable by the owner alone. */
const PRIVATE_FILES = [
  'host-key.json',
  'push-key.json',
  'model-key.json',
  'voice-key.json',
  'admin.json',
  'config.json',
  'tether.db',
];

export function checkNode(version = process.versions.node): CheckResult {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  const ok = major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1]);
  return ok
    ? pass('node', `Node ${version}`)
    : fail(
        'node',
        `Node ${version} is too old (Tether needs ${MIN_NODE.join('.')} or newer)`,
        'brew install node (or install the current LTS from https://nodejs.org)',
      );
}

/**
 * Whether commands can run in the OS sandbox: without it nothing runs unattended and every
 * approved command has full access.
 */
export function checkSandbox(status: SandboxStatus): CheckResult {
  if (status.available) {
    return pass(
      'sandbox',
      `commands run in ${status.kind === 'bwrap' ? 'bubblewrap' : 'sandbox-exec'} (${status.program})`,
    );
  }
  return fail(
    'sandbox',
    `no sandbox: ${status.reason}; every command asks for approval and runs with full access`,
    status.fix,
  );
}

export function checkDataDir(dataDir: string): CheckResult {
  if (!existsSync(dataDir)) {
    return fail(
      'data',
      `${dataDir} does not exist`,
      `${tetherCommand()} start --data '${dataDir}'`,
    );
  }
  const stat = statSync(dataDir);
  // The owner's write bit, not access(2): root may write anywhere, the host's user may not.
  let writable = (stat.mode & 0o200) !== 0;
  try {
    accessSync(dataDir, constants.W_OK);
  } catch {
    writable = false;
  }
  if (!writable) {
    return fail('data', `${dataDir} is not writable`, `chmod 700 '${dataDir}'`);
  }
  if ((stat.mode & 0o077) !== 0) {
    return fail(
      'data',
      `${dataDir} is open to other users (mode ${(stat.mode & 0o777).toString(8)})`,
      `chmod 700 '${dataDir}'`,
    );
  }
  const open = PRIVATE_FILES.map((name) => join(dataDir, name)).filter(
    (path) => existsSync(path) && (statSync(path).mode & 0o077) !== 0,
  );
  if (open.length > 0) {
    return fail(
      'data',
      `readable by other users: ${open.join(', ')}`,
      `chmod 600 ${open.map((path) => `'${path}'`).join(' ')}`,
    );
  }
  return pass('data', `${dataDir} (mode 700, private files 600)`);
}

/** A damaged database: the copy taken before the last migration, or a fresh start. */
const restoreFix = (dataDir: string) =>
  `stop the host, then copy the newest file of '${join(dataDir, 'backups')}' over '${join(dataDir, 'tether.db')}' (or move tether.db aside to start empty)`;

export function checkDatabase(dataDir: string): CheckResult {
  const path = join(dataDir, 'tether.db');
  if (!existsSync(path)) return skip('database', `no ${path} yet (the first start makes it)`);
  try {
    const db = new Database(path, { readonly: true, fileMustExist: true });
    try {
      const rows = db.pragma('quick_check') as { quick_check: string }[];
      const problems = rows.map((row) => row.quick_check).filter((text) => text !== 'ok');
      if (problems.length === 0) return pass('database', `${path}: quick_check ok`);
      return fail(
        'database',
        `${path}: quick_check found ${problems.length} problem(s): ${problems.slice(0, 3).join('; ')}`,
        restoreFix(dataDir),
      );
    } finally {
      db.close();
    }
  } catch (error) {
    return fail(
      'database',
      `${path} cannot be opened: ${errorMessage(error)}`,
      restoreFix(dataDir),
    );
  }
}

/** Reads the host key item's presence through `security` (macOS only). */
export function checkKeychain(
  config: HostConfig,
  platform = process.platform,
): Promise<CheckResult> {
  if (platform !== 'darwin') {
    return Promise.resolve(skip('keychain', `not macOS: keys are 0600 files in ${config.dataDir}`));
  }
  if (config.keyStore === 'file') {
    return Promise.resolve(skip('keychain', 'keys are kept in files (keyStore "file")'));
  }
  return new Promise((resolve) => {
    execFile(
      '/usr/bin/security',
      ['show-keychain-info'],
      { timeout: 5_000 },
      (error, _o, stderr) => {
        resolve(
          error === null
            ? pass('keychain', 'the login Keychain is unlocked and readable')
            : fail(
                'keychain',
                `the login Keychain cannot be read: ${stderr.trim() || error.message}`,
                'security unlock-keychain ~/Library/Keychains/login.keychain-db',
              ),
        );
      },
    );
  });
}

/** The local CA and server certificate of `--https`: present, valid, covering this Mac's names. */
export function checkHttps(config: HostConfig, now = Date.now()): CheckResult {
  const dir = join(config.dataDir, 'tls');
  if (!config.https && !existsSync(dir)) {
    return skip('https', 'HTTPS not used (tether start --https, or --tailscale: docs/https.md)');
  }
  const fix = `${tetherCommand()} start --https --data '${config.dataDir}' (it makes what is missing)`;
  const read = (name: string): X509Certificate | string => {
    try {
      return new X509Certificate(readFileSync(join(dir, name)));
    } catch {
      return `${join(dir, name)} is missing or unreadable`;
    }
  };
  const ca = read('ca.pem');
  if (typeof ca === 'string') return fail('https', ca, fix);
  const server = read('server.pem');
  if (typeof server === 'string') return fail('https', server, fix);
  if (!existsSync(join(dir, 'server.key.pem'))) {
    return fail('https', `${join(dir, 'server.key.pem')} is missing`, fix);
  }
  if (!ca.ca || !server.verify(ca.publicKey)) {
    return fail('https', 'the server certificate is not issued by the local CA', fix);
  }
  const left = Date.parse(server.validTo) - now;
  if (left <= 0) return fail('https', `the server certificate expired on ${server.validTo}`, fix);
  const names = serverNames();
  const wanted = [...names.dns, ...names.ips];
  // Node prints IPv6 addresses in full (0:0:0:0:0:0:0:1): compare them as a URL writes them.
  const normal = (name: string) =>
    name.includes(':') ? new URL(`http://[${name}]`).hostname : name.toLowerCase();
  const covered = (server.subjectAltName ?? '')
    .split(', ')
    .map((entry) => normal(entry.replace(/^(DNS|IP Address):/, '')));
  const missing = wanted.filter((name) => !covered.includes(normal(name)));
  if (missing.length > 0) {
    return fail('https', `the server certificate does not cover ${missing.join(', ')}`, fix);
  }
  return pass(
    'https',
    `certificate for ${names.dns.join(', ')} and ${names.ips.length} address(es), ${Math.floor(left / DAY_MS)} days left; CA in ${join(dir, 'ca.pem')}`,
  );
}

/**
 * Push: keys made, and a secure origin a phone can subscribe from. Without them the host
 * works and the app shows what waits when it is open: a warning, not a failure.
 */
export function checkPush(config: HostConfig, httpsOrigin: boolean): CheckResult {
  const fileKeys = existsSync(join(config.dataDir, 'push-key.json'));
  if (config.keyStore === 'file' && !fileKeys) {
    return warn(
      'push',
      'no push keys yet (the first start makes them)',
      `${tetherCommand()} start --data '${config.dataDir}'`,
    );
  }
  if (!httpsOrigin) {
    return warn(
      'push',
      'no notifications: push needs the app on HTTPS, and the host serves plain HTTP',
      `${tetherCommand()} start --https, or ${tetherCommand()} start --tailscale (docs/https.md)`,
    );
  }
  return pass('push', `keys ready, subject ${config.push.subject}, text: ${config.push.body}`);
}

export function checkDisk(dataDir: string): CheckResult {
  let free: number;
  try {
    const stat = statfsSync(existsSync(dataDir) ? dataDir : join(dataDir, '..'));
    free = stat.bavail * stat.bsize;
  } catch (error) {
    return skip('disk', `cannot tell: ${errorMessage(error)}`);
  }
  const text = `${(free / 1024 ** 3).toFixed(1)} GiB free`;
  return free >= MIN_FREE_BYTES
    ? pass('disk', text)
    : fail('disk', `${text} on the data directory's disk`, 'free some disk space');
}
