/**
 * The real systemd reading a unit file: `systemd-analyze verify --user` for what refuses to
 * load, and the user manager's `--test` dump for what each setting was read as (verify
 * says nothing of a path that loads but names another folder). Both come from Debian's
 * `systemd` package; `.ci/run` installs it.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { tempDir } from '../support/temp-dir.js';

const onPath = (name: string) => spawnSync('sh', ['-c', `command -v ${name}`]).status === 0;

/** Why the systemd tests cannot run here, or null when they can. */
export const systemdMissing: string | null = onPath('systemd-analyze')
  ? null
  : 'systemd-analyze is not installed (Debian: apt-get install systemd)';

const MANAGER = ['/lib/systemd/systemd', '/usr/lib/systemd/systemd'].find((path) =>
  existsSync(path),
);

/** Why the manager's dump cannot be read here, or null when it can. */
export const managerMissing: string | null =
  MANAGER === undefined
    ? 'the systemd manager binary is not installed (Debian: apt-get install systemd)'
    : process.getuid?.() === 0 && !onPath('runuser')
      ? 'running as root without runuser, and systemd --test refuses root'
      : null;

/** `systemd-analyze verify --user` of a unit: its exit code and everything it printed. */
export function verifyUnit(path: string): { code: number | null; output: string } {
  using runtime = tempDir('tether-systemd-runtime-');
  const verified = spawnSync('systemd-analyze', ['verify', '--user', path], {
    encoding: 'utf8',
    env: { ...process.env, XDG_RUNTIME_DIR: runtime.path, SYSTEMD_LOG_COLOR: '0' },
  });
  return { code: verified.status, output: `${verified.stdout}${verified.stderr}`.trim() };
}

/** The settings of a service as the user manager read them from its file. */
export interface LoadedUnit {
  description: string;
  workingDirectory: string;
  /** `StandardOutput=append:` and `StandardError=append:`. */
  outputs: string[];
  environment: string[];
  /** ExecStart's words as stored: `$$` still doubled (it becomes `$` when the command runs). */
  execStart: string[];
}

/** The words of a `Command Line:` of the dump, which quotes the way a shell reads. */
function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const char = line[i] ?? '';
    if (!quoted && char === ' ') {
      if (word !== null) words.push(word);
      word = null;
    } else if (char === '"') {
      quoted = !quoted;
      word ??= '';
    } else if (char === '\\') {
      word = (word ?? '') + (line[++i] ?? '');
    } else {
      word = (word ?? '') + char;
    }
  }
  if (word !== null) words.push(word);
  return words;
}

/**
 * Loads `path` into a user manager started with `--test` (as nobody when this is root,
 * which it refuses) and reads its dump of the unit.
 */
export function loadUnit(path: string): LoadedUnit {
  if (MANAGER === undefined) throw new Error(managerMissing ?? 'no systemd');
  using dir = tempDir('tether-systemd-load-');
  const units = join(dir.path, 'units');
  const runtime = join(dir.path, 'runtime');
  mkdirSync(units);
  mkdirSync(runtime, { mode: 0o700 });
  const name = basename(path);
  copyFileSync(path, join(units, name));
  chmodSync(dir.path, 0o755);
  chmodSync(units, 0o755);
  chmodSync(join(units, name), 0o644);
  const root = process.getuid?.() === 0;
  if (root) {
    const nobody = spawnSync('id', ['-u', 'nobody'], { encoding: 'utf8' }).stdout.trim();
    chownSync(runtime, Number(nobody), 0);
  }
  const env = [`XDG_RUNTIME_DIR=${runtime}`, `SYSTEMD_UNIT_PATH=${units}:`, 'SYSTEMD_LOG_COLOR=0'];
  const command = [MANAGER, '--test', '--user', `--unit=${name}`, '--log-target=console'];
  const dumped = root
    ? spawnSync('runuser', ['-u', 'nobody', '--', 'env', ...env, ...command], { encoding: 'utf8' })
    : spawnSync('env', [...env, ...command], { encoding: 'utf8' });
  const lines = dumped.stdout.split('\n');
  const from = lines.indexOf(`\t-> Unit ${name}:`);
  if (from < 0) {
    throw new Error(`systemd --test did not dump ${name} (${dumped.status}): ${dumped.stderr}`);
  }
  const end = lines.findIndex((line, i) => i > from && /^\t?-> (Unit |By jobs)/.test(line));
  const section = lines.slice(from + 1, end < 0 ? undefined : end);
  const values = (key: string) =>
    section
      .filter((line) => line.startsWith(`\t\t${key}: `))
      .map((line) => line.slice(key.length + 4));
  const commandLine = section.find((line) => line.startsWith('\t\t\tCommand Line: '));
  return {
    description: values('Description')[0] ?? '',
    workingDirectory: values('WorkingDirectory')[0] ?? '',
    outputs: [...values('StandardOutputFileToAppend'), ...values('StandardErrorFileToAppend')],
    environment: values('Environment'),
    execStart: shellWords(commandLine?.slice('\t\t\tCommand Line: '.length) ?? ''),
  };
}
