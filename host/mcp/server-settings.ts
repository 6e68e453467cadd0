/**
 * From the `mcp` config section to what the host starts: each server's secrets read from
 * the Keychain or their 0600 files, and the environment a stdio server gets.
 */
import { realpathSync } from 'node:fs';
import { isSecretFieldName } from '../log/index.js';
import type { McpConfig, McpServerSettings, SecretValue } from './mcp-config.js';
import type { McpServerSandbox, McpServerSpec } from './types.js';
import { errorMessage } from '../../protocol/index.js';

/**
 * Variables a stdio server gets from the host's environment; everything else (the model's
 * key, cloud credentials, TETHER_*) stays with the host. The config's `env` adds to these.
 */
export const INHERITED_ENV = [
  'HOME',
  'LOGNAME',
  'USER',
  'PATH',
  'SHELL',
  'TERM',
  'LANG',
  'LC_ALL',
  'TMPDIR',
];

/** One problem with a server's settings, named as the config file names it. */
export interface McpSettingIssue {
  field: string;
  message: string;
}

/** Thrown by {@link resolveMcpServers} with every problem found. */
export class McpSettingsError extends Error {
  constructor(readonly issues: readonly McpSettingIssue[]) {
    super(issues.map((issue) => `${issue.field}: ${issue.message}`).join('; '));
    this.name = 'McpSettingsError';
  }
}

export interface ResolveOptions {
  env: Readonly<Record<string, string | undefined>>;
  /**
   * Reads a secret file: null when there is none; throws (with what to do) for a link, a
   * loose mode or another owner (host/identity's `readPrivateFile`).
   */
  readFile(path: string): string | null;
  /** Reads a Keychain item; null where there is no Keychain (off macOS). */
  readKeychain: ((service: string, account: string) => Promise<string | null>) | null;
}

/**
 * Every configured server with its secrets read. Secrets come back in `secrets` too, for
 * the Redactor and the logger: they must never reach a log line, an event or SQLite.
 *
 * @throws McpSettingsError naming each setting whose secret cannot be read.
 */
export async function resolveMcpServers(
  config: McpConfig,
  options: ResolveOptions,
): Promise<{ servers: McpServerSpec[]; secrets: string[] }> {
  const issues: McpSettingIssue[] = [];
  const secrets: string[] = [];
  const read = async (
    value: SecretValue,
    field: string,
    name: string,
  ): Promise<string | undefined> => {
    if (typeof value === 'string') {
      // A secret written in plain text (`"GITHUB_TOKEN": "ghp_…"`, `"authorization": …`)
      // is masked like one read from the Keychain: a server's stderr or error may echo it.
      secrets.push(...plainSecrets(name, value));
      return value;
    }
    const secret = await readSecret(value, field, options, issues);
    if (secret !== undefined) secrets.push(secret);
    return secret;
  };
  const servers: McpServerSpec[] = [];
  for (const [name, settings] of Object.entries(config.servers ?? {})) {
    const field = `mcp.servers.${name}`;
    const values = async (
      entries: Record<string, SecretValue> | undefined,
      key: string,
    ): Promise<Record<string, string>> => {
      const out: Record<string, string> = {};
      for (const [entry, value] of Object.entries(entries ?? {})) {
        const text = await read(value, `${field}.${key}.${entry}`, entry);
        if (text !== undefined) out[entry] = text;
      }
      return out;
    };
    const common = commonOf(name, settings);
    if (settings.command !== undefined) {
      const inherited = Object.fromEntries(
        INHERITED_ENV.flatMap((key) => {
          const value = options.env[key];
          return value === undefined ? [] : [[key, value]];
        }),
      );
      servers.push({
        ...common,
        transport: 'stdio',
        command: settings.command,
        args: settings.args ?? [],
        env: { ...inherited, ...(await values(settings.env, 'env')) },
        ...(settings.sandbox === false
          ? { ...(settings.cwd === undefined ? {} : { cwd: settings.cwd }), sandbox: null }
          : serverSandbox(settings, field, issues)),
      });
    } else if (settings.url !== undefined) {
      secrets.push(...urlSecrets(settings.url));
      servers.push({
        ...common,
        transport: 'http',
        url: settings.url,
        headers: await values(settings.headers, 'headers'),
      });
    }
  }
  if (issues.length > 0) throw new McpSettingsError(issues);
  return { servers, secrets };
}

/**
 * Words of an env or header name that say its value is a secret, beyond the logger's own
 * (isSecretFieldName): `GH_PAT`, `OPENAI_KEY`, `X-Auth`, `Cookie`, `PGPASSWORD`,
 * `PASSPHRASE`, `CREDENTIALS`, `SENTRY_DSN`, `PRIVATE_KEY`, `ACCESSTOKEN`.
 */
const MCP_SECRET_WORDS = new Set([
  'pat',
  'key',
  'keys',
  'auth',
  'cookie',
  'pass',
  'passwd',
  'pgpassword',
  'passphrase',
  'credential',
  'credentials',
  'dsn',
  'private',
  'tokens',
  'apitoken',
  'accesstoken',
  'authtoken',
  'session',
]);

function namesSecret(name: string): boolean {
  if (isSecretFieldName(name)) return true;
  return name
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .some((word) => MCP_SECRET_WORDS.has(word));
}

/**
 * What of a plain env or header value to mask: all of it when its name says it is a
 * secret, else the password and secret-named query values of a URL in it
 * (`DATABASE_URL=postgres://app:pw@db/app`).
 */
export function plainSecrets(name: string, value: string): string[] {
  return namesSecret(name) ? [value] : urlSecrets(value);
}

function urlSecrets(value: string): string[] {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return [];
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return [];
  }
  const found: string[] = [];
  if (url.password !== '') found.push(url.password, decodeURIComponent(url.password));
  for (const [key, item] of url.searchParams) {
    if (item !== '' && namesSecret(key)) found.push(item);
  }
  return [...new Set(found)];
}

function commonOf(name: string, settings: McpServerSettings) {
  return {
    name,
    policy: settings.policy ?? 'ask',
    tools: settings.tools ?? {},
    trustHints: settings.trustHints ?? false,
    callTimeoutMs: settings.callTimeoutMs ?? 60_000,
  } as const;
}

/**
 * What a stdio server's sandbox holds: its paths as real paths, its `cwd` too (readable;
 * a link to it would not exist inside the sandbox).
 */
function serverSandbox(
  settings: McpServerSettings,
  field: string,
  issues: McpSettingIssue[],
): { cwd?: string; sandbox: McpServerSandbox } {
  const writable = existingRealPaths(settings.writable, `${field}.writable`, issues);
  const readable = existingRealPaths(settings.readable, `${field}.readable`, issues);
  const cwd = existingRealPaths(
    settings.cwd === undefined ? undefined : [settings.cwd],
    `${field}.cwd`,
    issues,
    true,
  );
  return {
    ...(cwd[0] === undefined ? {} : { cwd: cwd[0] }),
    sandbox: {
      writable,
      readable: [...readable, ...cwd],
      ...(settings.network === undefined ? {} : { network: settings.network }),
    },
  };
}

/**
 * `paths` (a list in the config at `field`) as real paths; each that does not exist is
 * an issue named `field[<index>]`, as the config loader names list items (`field` alone for
 * a single path).
 */
export function existingRealPaths(
  paths: readonly string[] | undefined,
  field: string,
  issues: McpSettingIssue[],
  single = false,
): string[] {
  return (paths ?? []).flatMap((path, index) => {
    try {
      return [realpathSync(path)];
    } catch {
      issues.push({
        field: single ? field : `${field}[${index}]`,
        message: `${path} does not exist: create it, or leave it out`,
      });
      return [];
    }
  });
}

export async function readSecret(
  value: Exclude<SecretValue, string>,
  field: string,
  options: ResolveOptions,
  issues: McpSettingIssue[],
): Promise<string | undefined> {
  if ('file' in value) {
    try {
      const text = options.readFile(value.file);
      if (text === null) {
        issues.push({ field, message: `the secret file ${value.file} does not exist` });
        return undefined;
      }
      const secret = text.replace(/\r?\n$/, '');
      if (secret === '') issues.push({ field, message: `the secret file ${value.file} is empty` });
      return secret === '' ? undefined : secret;
    } catch (error) {
      issues.push({ field, message: errorMessage(error) });
      return undefined;
    }
  }
  const slash = value.keychain.indexOf('/');
  const service = value.keychain.slice(0, slash);
  const account = value.keychain.slice(slash + 1);
  const { readKeychain } = options;
  if (readKeychain === null) {
    issues.push({
      field,
      message: 'the Keychain exists on macOS only: use {"file": "/absolute/path"} (a 0600 file)',
    });
    return undefined;
  }
  try {
    const secret = await readKeychain(service, account);
    if (secret === null) {
      issues.push({
        field,
        message: `no Keychain item with service ${service} and account ${account}: add it with security add-generic-password -s ${service} -a ${account} -w`,
      });
      return undefined;
    }
    return secret;
  } catch (error) {
    issues.push({
      field,
      message: `cannot read the Keychain: ${errorMessage(error)}`,
    });
    return undefined;
  }
}
