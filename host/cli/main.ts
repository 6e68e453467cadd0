/**
 * The `tether` command.
 */
import { ConfigError, HOST_USAGE } from '../config/index.js';
import { StoreOpenError } from '../store/index.js';
import { VERSION } from '../version.js';
import { startHost } from './start-host.js';

const USAGE = `Usage: tether <command>

Commands:
  start       run the host in the foreground (tether start --help for options)
  version     print the version

${HOST_USAGE}`;

async function start(argv: readonly string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(HOST_USAGE);
    return 0;
  }
  const host = await startHost(argv, (line) => process.stdout.write(line + '\n'));
  await new Promise<void>((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      process.stdout.write(`${signal}: stopping\n`);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      void host.stop().then(resolve);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
  return 0;
}

export async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'start':
        return await start(rest);
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
    process.stderr.write(`tether: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}
