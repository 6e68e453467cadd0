/**
 * The flags of `tether start`, their usage text, and the parser that groups them.
 */
import type { ConfigIssue } from './types.js';

/** One flag of `tether start`. */
export interface HostFlag {
  readonly flag: `--${string}`;
  /** Placeholder for its value in usage text; empty for a switch, which takes none. */
  readonly value: string;
  readonly repeatable: boolean;
  readonly description: string;
}

/** Every flag `tether start` accepts (docs/protocol.md §9). `--help` is the CLI's own. */
export const HOST_FLAGS = [
  {
    flag: '--data',
    value: 'DIR',
    repeatable: false,
    description:
      'data directory (default ~/Library/Application Support/Tether on macOS, ' +
      '$XDG_DATA_HOME/tether or ~/.local/share/tether elsewhere)',
  },
  {
    flag: '--port',
    value: 'N',
    repeatable: false,
    description: 'TCP port to listen on (default 8787; 0 picks a free port)',
  },
  {
    flag: '--bind',
    value: 'ADDR',
    repeatable: false,
    description: 'address to listen on (default 127.0.0.1; 0.0.0.0 for the LAN)',
  },
  {
    flag: '--workspace',
    value: 'DIR',
    repeatable: true,
    description: 'a folder runs may work in; repeat for more (default: the current folder)',
  },
  {
    flag: '--config',
    value: 'FILE',
    repeatable: false,
    description: 'config file to read instead of <data>/config.json',
  },
  {
    flag: '--https',
    value: '',
    repeatable: false,
    description:
      'serve HTTPS with a local CA kept in <data>/tls (devices trust it via /ca.mobileconfig; docs/https.md)',
  },
  {
    flag: '--tailscale',
    value: '',
    repeatable: false,
    description:
      'publish the host on your tailnet with tailscale serve --bg at https://<machine>.<tailnet>.ts.net (pairing links name it; removed at a clean stop; docs/https.md)',
  },
  {
    flag: '--demo',
    value: '',
    repeatable: false,
    description:
      'use the built-in demo model (scripted, not an AI; no API key), with <data>/demo and a sample workspace unless --data and --workspace are given; model settings are ignored',
  },
  {
    flag: '--log-format',
    value: 'FORMAT',
    repeatable: false,
    description:
      'what the terminal shows: human (default: warnings, errors and pairings as plain lines) or json (every log line, as <data>/logs/host.log has it)',
  },
] as const satisfies readonly HostFlag[];

const ENVIRONMENT: readonly (readonly [string, string])[] = [
  ['TETHER_DATA_DIR', 'data directory (as --data)'],
  ['TETHER_PORT', 'port (as --port)'],
  ['TETHER_BIND', 'address (as --bind)'],
  ['TETHER_HOST_NAME', 'name shown to devices (default: this computer’s name)'],
  ['TETHER_LOG_LEVEL', 'debug, info (default), warn or error'],
  ['TETHER_KEY_STORE', 'where a new host key is kept: keychain (macOS default) or file'],
  ['TETHER_MODEL_BASE_URL', 'OpenAI-compatible endpoint, e.g. http://localhost:11434/v1'],
  ['TETHER_MODEL', 'model name; required whenever a model is used'],
  ['TETHER_MODEL_API_KEY', 'API key for that endpoint'],
  ['DEEPSEEK_API_KEY', 'without a base URL: use https://api.deepseek.com with this key'],
  ['OPENAI_API_KEY', 'without a base URL: use https://api.openai.com/v1 with this key'],
];

function table(rows: readonly (readonly [string, string])[]): string {
  const width = Math.max(...rows.map(([left]) => left.length)) + 2;
  return rows.map(([left, right]) => `  ${left.padEnd(width)}${right}`).join('\n');
}

/** Usage text of `tether start`, for the CLI's `--help`. */
export const HOST_USAGE = `Usage: tether start [options]

Options:
${table(HOST_FLAGS.map((f) => [`${f.flag} ${f.value}`, f.description]))}

Environment:
${table(ENVIRONMENT)}

Settings are read from defaults, then the config file, then the environment, then the
flags; later ones win. Workspaces from the config file and the flags are all used.
The config file is JSON with any of: port, bind, hostName, logLevel, keyStore,
workspaces (list of folders, or {path, isolation: "worktree"} for runs on a branch of their
own by default: docs/worktrees.md), model {baseUrl, model, apiKeyEnv, apiKey, provider,
extraBody, contextTokens}, limits {maxActiveRuns, maxModelTurns, runWallTimeMs, modelIdleTimeoutMs,
toolResultMaxChars, attachmentMaxBytes, runAttachmentsMaxBytes, attachmentDiskReserveBytes}, policy {commands {allow, deny}, outsideWorkspace, protectedPaths,
tools} (docs/policy.md), push {subject, allowedEndpoints, body, retry {initialDelayMs,
maxDelayMs, maxAttempts, requestTimeoutMs}} (docs/push.md). A literal model.apiKey is refused unless the file is mode 0600;
prefer apiKeyEnv, the name of an environment variable holding the key.
`;

/**
 * Groups `argv` by flag (`--port 1` and `--port=1` alike; repeatable flags as lists).
 * Unknown flags, positional arguments, missing values and repeats of a single flag are
 * issues.
 */
export function parseFlags(
  argv: readonly string[],
  issues: ConfigIssue[],
): Record<string, unknown> {
  const source = 'command line';
  const values: Record<string, string | string[]> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('-')) {
      issues.push({ source, field: arg, message: 'unexpected argument' });
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg : arg.slice(0, eq);
    const spec = HOST_FLAGS.find((candidate) => candidate.flag === name);
    if (spec === undefined) {
      const known = HOST_FLAGS.map((candidate) => candidate.flag).join(', ');
      issues.push({ source, field: name, message: `unknown option (known: ${known})` });
      continue;
    }
    if (spec.value === '') {
      if (eq !== -1) issues.push({ source, field: name, message: 'takes no value' });
      else if (values[name] !== undefined)
        issues.push({ source, field: name, message: 'given more than once' });
      else values[name] = 'true';
      continue;
    }
    const value = eq === -1 ? argv[i + 1] : arg.slice(eq + 1);
    if (value === undefined || (eq === -1 && value.startsWith('--'))) {
      issues.push({ source, field: name, message: `expects a value: ${name} ${spec.value}` });
      continue;
    }
    if (eq === -1) i++;
    const previous = values[name];
    if (spec.repeatable) {
      values[name] = [...(Array.isArray(previous) ? previous : []), value];
    } else if (previous !== undefined) {
      issues.push({ source, field: name, message: 'given more than once' });
    } else {
      values[name] = value;
    }
  }
  return values;
}
