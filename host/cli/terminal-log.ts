/**
 * What `tether start` shows of its log on the terminal: by default the warnings and
 * errors as plain lines (the full JSON log is in `<dataDir>/logs/host.log`); with
 * `--log-format json`, every JSON line as the file has it.
 */
import { z } from 'zod';

const LogEntry = z.looseObject({ at: z.string(), level: z.string(), msg: z.string() });

/** Where the logger writes besides the log file. */
interface LineSink {
  write(line: string): unknown;
}

/** The values `--log-format` takes. */
const FORMATS = ['human', 'json'] as const;
type LogFormat = (typeof FORMATS)[number];

/**
 * `argv` without `--log-format FORMAT` (or `--log-format=FORMAT`), and the format.
 *
 * @throws Error naming the valid values for any other value.
 */
export function takeLogFormat(argv: readonly string[]): { argv: string[]; format: LogFormat } {
  const rest: string[] = [];
  let format: string = 'human';
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--log-format') {
      format = argv[++i] ?? '';
    } else if (arg.startsWith('--log-format=')) {
      format = arg.slice('--log-format='.length);
    } else {
      rest.push(arg);
    }
  }
  if (!(FORMATS as readonly string[]).includes(format)) {
    throw new Error(`--log-format must be human or json, not "${format}"`);
  }
  return { argv: rest, format: format as LogFormat };
}

/** Info entries the person at the host's terminal should see, as the line to print. */
const SHOWN_INFO: Readonly<Record<string, (fields: Record<string, unknown>) => string>> = {
  // The host's side of the pairing check: the device shows the same six digits.
  'device paired': (fields) =>
    `device paired: ${String(fields['name'])} (${String(fields['deviceId'])}), SAS ${String(fields['sas'])}: it must match the device's screen; if not, revoke it`,
};

/**
 * A sink printing `warning: …` / `error: …` lines for the log's warn and error entries,
 * and a plain line for the few info entries a person at the terminal acts on.
 */
export function terminalLogSink(format: LogFormat, out: LineSink = process.stderr): LineSink {
  if (format === 'json') return out;
  return {
    write(line: string) {
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        return out.write(line);
      }
      const entry = LogEntry.safeParse(value);
      if (!entry.success) return out.write(line);
      const { at: _at, level, msg, ...fields } = entry.data;
      const shown = level === 'info' ? SHOWN_INFO[msg] : undefined;
      if (shown !== undefined) return out.write(`${shown(fields)}\n`);
      if (level !== 'warn' && level !== 'error') return true;
      const extra = Object.keys(fields).length === 0 ? '' : ` ${JSON.stringify(fields)}`;
      return out.write(`${level === 'warn' ? 'warning' : 'error'}: ${msg}${extra}\n`);
    },
  };
}
