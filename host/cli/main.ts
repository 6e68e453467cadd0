/**
 * The `tether` command (`tether remote …` is dispatched to the remote's CLI by bin/tether.js).
 */
import { homedir } from 'node:os';
import { setEnglishIssueMessages, errorMessage } from '../../protocol/index.js';
import { ConfigError, HOST_USAGE, resolveDataDir } from '../config/index.js';
import { StoreOpenError } from '../store/index.js';
import { VERSION } from '../version.js';
import { UsageError } from '../../common/cli/index.js';
import type { HostCommandContext } from './host-command.js';
import { startHost } from './start-host.js';

const USAGE = `Usage: tether <command>

Commands:
  start               run the host in the foreground (tether start --help for options)
  pair                pair a device: show a QR code and wait for it (tether pair --help)
  devices             list the paired devices (devices rename: give one a name)
  revoke <deviceId>   revoke a paired device
  doctor              check this machine, the data directory and the host (tether doctor --help)
  history             whether the host's database went back in time; --acknowledge once seen
  model <action>      set the model endpoint (model set) and keep its key (model set-key)
  models              list the models the model endpoint offers (its GET /models)
  voice <action>      the speech-to-text endpoint of the phone's microphone: set, show, unset
  service <action>    run the host as a login service: install, uninstall, restart, status, logs
  remote <command>    use a host from this computer as a remote (tether remote help)
  version             print the version

pair, devices, revoke and history talk to the host running on the data directory (--data DIR,
else TETHER_DATA_DIR, else the default).

${HOST_USAGE}`;

interface HostCommand {
  run(argv: readonly string[], ctx: HostCommandContext): Promise<number>;
  usage: string;
}

/**
 * The local commands that talk to a running host, with their usage. Each is imported when
 * it runs, so `tether start` loads none of them.
 */
const HOST_COMMANDS = {
  pair: async () => {
    const { pairCommand, PAIR_USAGE } = await import('./pair-command.js');
    return { run: pairCommand, usage: PAIR_USAGE };
  },
  devices: async () => {
    const { devicesCommand, DEVICES_USAGE } = await import('./devices-command.js');
    return { run: devicesCommand, usage: DEVICES_USAGE };
  },
  revoke: async () => {
    const { revokeCommand, REVOKE_USAGE } = await import('./revoke-command.js');
    return { run: revokeCommand, usage: REVOKE_USAGE };
  },
  service: async () => {
    const { serviceCommand, SERVICE_USAGE } = await import('./service-command.js');
    return { run: serviceCommand, usage: SERVICE_USAGE };
  },
  model: async () => {
    const { modelCommand, MODEL_USAGE } = await import('./model-command.js');
    return { run: modelCommand, usage: MODEL_USAGE };
  },
  voice: async () => {
    const { voiceCommand, VOICE_USAGE } = await import('./voice-command.js');
    return { run: voiceCommand, usage: VOICE_USAGE };
  },
  models: async () => {
    const { modelsCommand, MODELS_USAGE } = await import('./models-command.js');
    return { run: modelsCommand, usage: MODELS_USAGE };
  },
  history: async () => {
    const { historyCommand, HISTORY_USAGE } = await import('./history-command.js');
    return { run: historyCommand, usage: HISTORY_USAGE };
  },
  doctor: async () => {
    const { doctorCommand, DOCTOR_USAGE } = await import('./doctor-command.js');
    return { run: doctorCommand, usage: DOCTOR_USAGE };
  },
} satisfies Record<string, () => Promise<HostCommand>>;

async function start(argv: readonly string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(HOST_USAGE);
    return 0;
  }
  // The handlers go in before the host starts: a harness may send SIGTERM the moment it
  // reads the listening line, and that must still be a graceful stop.
  let signalled: NodeJS.Signals | null = null;
  let stopRequested = (): void => undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    signalled = signal;
    stopRequested();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let host: Awaited<ReturnType<typeof startHost>>;
  try {
    host = await startHost(argv, (line) => process.stdout.write(line + '\n'));
  } catch (error) {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    throw error;
  }
  await new Promise<void>((resolve) => {
    stopRequested = resolve;
    if (signalled !== null) resolve();
  });
  process.stdout.write(`${signalled ?? 'signal'}: stopping\n`);
  await host.stop();
  return 0;
}

/**
 * Runs a local command with Ctrl-C (SIGINT) and SIGTERM wired to its signal, so it can
 * undo what it started (`tether pair` revokes its offer); maps its failures to exit codes.
 */
async function runHostCommand(
  name: keyof typeof HOST_COMMANDS,
  argv: readonly string[],
): Promise<number> {
  const command: HostCommand = await HOST_COMMANDS[name]();
  const interrupt = new AbortController();
  const onInterrupt = () => interrupt.abort();
  process.once('SIGINT', onInterrupt);
  process.once('SIGTERM', onInterrupt);
  const ctx: HostCommandContext = {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    signal: interrupt.signal,
    dataDir: (flag) =>
      resolveDataDir(flag, {
        env: process.env,
        cwd: process.cwd(),
        platform: process.platform,
        homedir: homedir(),
      }),
  };
  try {
    return await command.run(argv, ctx);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`tether ${name}: ${error.message}\n\n${command.usage}`);
      return 2;
    }
    if (interrupt.signal.aborted) {
      process.stderr.write('\ntether: stopped\n');
      return 130;
    }
    throw error;
  } finally {
    process.off('SIGINT', onInterrupt);
    process.off('SIGTERM', onInterrupt);
  }
}

/** Runs `tether <argv>`; resolves with the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  setEnglishIssueMessages();
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'start':
        return await start(rest);
      case 'pair':
      case 'devices':
      case 'revoke':
      case 'service':
      case 'model':
      case 'models':
      case 'voice':
      case 'doctor':
      case 'history':
        return await runHostCommand(command, rest);
      case 'version':
      case '--version':
        process.stdout.write(`${VERSION}\n`);
        return 0;
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        process.stdout.write(USAGE);
        return command === undefined ? 1 : 0;
      default:
        process.stderr.write(`tether: unknown command ${command}\n\n${USAGE}`);
        return 2;
    }
  } catch (error) {
    if (error instanceof ConfigError || error instanceof StoreOpenError) {
      process.stderr.write(`tether: ${error.message}\n`);
      return 2;
    }
    process.stderr.write(`tether: ${errorMessage(error)}\n`);
    return 1;
  }
}
