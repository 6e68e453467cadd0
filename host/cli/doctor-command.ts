/**
 * `tether doctor`: one line per check of this machine, its data directory and the running
 * host, each failure or warning with the command that fixes it; `--json` for scripts.
 * Exits 1 when any check fails; warnings (no push without HTTPS, no service) do not.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadHostConfig, type HostConfig } from '../config/index.js';
import { withStoredKeys } from '../identity/index.js';
import { detectSandbox } from '../sandbox/index.js';
import { parseCommandArgs, tetherCommand } from '../../common/cli/index.js';
import {
  checkDatabase,
  checkDataDir,
  checkDisk,
  checkHttps,
  checkKeychain,
  checkNode,
  checkSandbox,
  checkPush,
  type CheckResult,
} from './doctor-checks.js';
import { checkModel } from './doctor-model.js';
import { checkVoice } from './doctor-voice.js';
import { checkHost, checkLan, checkService, runningHost } from './doctor-network.js';
import { checkTailscale } from './doctor-tailscale.js';
import { hostNearby } from './admin-client.js';
import { checkHistory } from './doctor-history.js';
import { checkWorktrees } from './doctor-worktrees.js';
import type { HostCommandContext } from './host-command.js';
import { errorMessage } from '../../protocol/index.js';

/** The usage text of `doctor`, for `--help` and command-line errors. */
export const DOCTOR_USAGE = `Usage: tether doctor [--data DIR] [--config FILE] [--json]

Checks Node, the data directory, the database and whether its history went back in
time, runs' worktrees left behind or unanswered, the model endpoint and key, the
transcription endpoint of the phone's microphone (warn only), the Keychain,
the HTTPS certificates, LAN and .local name, tailscale serve, push, the service and free
disk space. One line per check (ok, warn, FAIL or skip); each failure or warning says the
command that fixes it. Exits 1 when a check failed; warnings leave it 0.

Options:
  --data DIR      data directory of the host (as for tether start)
  --config FILE   the config file the host uses (default: <data>/config.json)
  --json          print {"ok", "checks": [{"id","status","detail","fix"?}]} as one line
                  (status: pass, warn, fail or skip)
`;

const FLAGS = {
  data: { type: 'string' },
  config: { type: 'string' },
  json: { type: 'boolean' },
} as const;

const MARK = { pass: 'ok  ', warn: 'warn', fail: 'FAIL', skip: 'skip' } as const;

async function configChecks(loaded: HostConfig, signal: AbortSignal): Promise<CheckResult[]> {
  // The key `tether model set-key` kept (Keychain or model-key.json), as the host reads it.
  let config = loaded;
  let keyProblem: CheckResult | undefined;
  try {
    config = await withStoredKeys(loaded, process.platform);
  } catch (error) {
    keyProblem = {
      id: 'model',
      status: 'fail',
      detail: `the stored model key cannot be read: ${errorMessage(error)}`,
      fix: `${tetherCommand()} model set-key`,
    };
  }
  const host = runningHost(config.dataDir);
  // `tether start --demo` runs on <data>/demo: doctor asked of <data> sees it there.
  const demoDir = join(config.dataDir, 'demo');
  const demoBeside = host === null && hostNearby(config.dataDir) === demoDir ? demoDir : undefined;
  const port = host?.port ?? config.port;
  const tailscale = await checkTailscale({
    port,
    bind: config.bind,
    published: host?.tailnetOrigin,
  });
  const https = host?.url.startsWith('https:') ?? config.https;
  const [model, voice, keychain, lan, service] = await Promise.all([
    keyProblem ?? checkModel(config, signal, process.env, demoBeside),
    checkVoice(config, signal),
    checkKeychain(config),
    checkLan(port),
    checkService(config.dataDir),
  ]);
  return [
    model,
    voice,
    keychain,
    checkHttps(config),
    ...lan,
    tailscale,
    checkPush(config, https || tailscale.status === 'pass'),
    checkHost(config.dataDir, host),
    service,
  ];
}

/** Runs `tether doctor`; resolves with the exit code. */
export async function doctorCommand(
  argv: readonly string[],
  ctx: HostCommandContext,
): Promise<number> {
  const { values, help } = parseCommandArgs(argv, FLAGS);
  if (help) {
    ctx.out(DOCTOR_USAGE);
    return 0;
  }
  const dataDir = ctx.dataDir(values.data);
  const checks: CheckResult[] = [
    checkNode(),
    checkSandbox(
      detectSandbox({ platform: process.platform, searchPath: process.env['PATH'] ?? '' }),
    ),
    checkDataDir(dataDir),
    checkDatabase(dataDir),
    checkHistory(dataDir),
    checkWorktrees(dataDir),
  ];
  try {
    const config = loadHostConfig({
      argv: [
        '--data',
        dataDir,
        ...(values.config === undefined ? [] : ['--config', values.config]),
      ],
      env: process.env,
      cwd: process.cwd(),
      platform: process.platform,
      homedir: homedir(),
    });
    checks.push(...(await configChecks(config, ctx.signal)));
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    checks.push({
      id: 'config',
      status: 'fail',
      detail: error.message.split('\n').join('; '),
      fix: `correct the settings it names (${tetherCommand()} start --help lists them all)`,
    });
  }
  checks.push(checkDisk(dataDir));
  const ok = checks.every((check) => check.status !== 'fail');
  if (values.json === true) {
    ctx.out(JSON.stringify({ ok, checks }) + '\n');
    return ok ? 0 : 1;
  }
  const width = Math.max(...checks.map((check) => check.id.length));
  for (const check of checks) {
    const fix = check.fix === undefined ? '' : ` → fix: ${check.fix}`;
    ctx.out(`${MARK[check.status]}  ${check.id.padEnd(width)}  ${check.detail}${fix}\n`);
  }
  const failed = checks.filter((check) => check.status === 'fail').length;
  const warned = checks.filter((check) => check.status === 'warn').length;
  const warnings = warned === 0 ? '' : ` ${warned} warning(s): worth a look, not needed.`;
  ctx.out(ok ? `\nNo check failed.${warnings}\n` : `\n${failed} check(s) failed.${warnings}\n`);
  return ok ? 0 : 1;
}
