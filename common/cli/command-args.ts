/**
 * Strict parsing of a command's flags (`node:util` parseArgs), for the host's and the
 * remote's CLIs alike: an unknown flag, a missing value or a stray argument is a
 * {@link UsageError}, which the CLI answers with the command's usage and exit code 2.
 */
import { parseArgs } from 'node:util';

/** The command line is wrong: the message says how; the CLI adds the usage. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

type Options = Record<
  string,
  { type: 'string' | 'boolean'; short?: string; /** Repeatable: a list. */ multiple?: boolean }
>;

/**
 * The parsed flags: strings for `type: 'string'` (lists when `multiple`), booleans for
 * `type: 'boolean'`.
 */
type FlagValues<O extends Options> = {
  [K in keyof O]?: O[K]['type'] extends 'boolean'
    ? boolean
    : O[K]['multiple'] extends true
      ? string[]
      : string;
};

/** Positional arguments: `required` ones by name, then up to `optional` more. */
interface Positionals {
  required?: readonly string[];
  optional?: number;
}

/** A device or host id (22 base64url characters) may start with `-`; no option looks like one. */
const DASHED_ID = /^-[A-Za-z0-9_-]{21}$/;

/**
 * `argv` with dash-led ids made unambiguous: the value of a string option becomes
 * `--option=id`, any other such id a positional argument (after `--`).
 */
function protectIds(argv: readonly string[], options: Options): string[] {
  const args: string[] = [];
  const ids: string[] = [];
  for (const arg of argv) {
    const previous = args.at(-1);
    const option = previous?.startsWith('--') === true && !previous.includes('=') ? previous : '';
    if (!DASHED_ID.test(arg) || args.includes('--')) {
      args.push(arg);
    } else if (options[option.slice(2)]?.type === 'string') {
      args[args.length - 1] = `${option}=${arg}`;
    } else {
      ids.push(arg);
    }
  }
  return ids.length === 0 ? args : [...args, '--', ...ids];
}

/**
 * Parses `argv` (the arguments after the command) against `options`, plus `--help`/`-h`.
 *
 * @throws UsageError for anything `options` and `positionals` do not allow; past the
 *   allowed positionals it names the first argument too many.
 */
export function parseCommandArgs<O extends Options>(
  argv: readonly string[],
  options: O,
  positionals: Positionals = {},
): { values: FlagValues<O>; positionals: string[]; help: boolean } {
  let parsed: {
    values: Record<string, string | boolean | (string | boolean)[] | undefined>;
    positionals: string[];
  };
  try {
    parsed = parseArgs({
      args: protectIds(argv, options),
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    const option = /'([^']+)'/.exec(message)?.[1];
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option !== undefined) {
      throw new UsageError(`unknown option ${option}`);
    }
    throw new UsageError(message.split('\n')[0] ?? 'invalid arguments');
  }
  const help = parsed.values.help === true;
  const required = positionals.required ?? [];
  const allowed = required.length + (positionals.optional ?? 0);
  const given = parsed.positionals.length;
  if (!help && given < required.length) {
    throw new UsageError(`missing ${required.slice(given).join(' ')}`);
  }
  if (!help && given > allowed) {
    throw new UsageError(`unexpected argument ${parsed.positionals[allowed]}`);
  }
  return { values: parsed.values as FlagValues<O>, positionals: parsed.positionals, help };
}
