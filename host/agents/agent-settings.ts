/**
 * From the `agents` config section to what the host starts: each agent's secrets read
 * from the Keychain or their 0600 files (as MCP servers' are), the minimal environment it
 * inherits, and its writable folders as real paths.
 */
import {
  existingRealPaths,
  INHERITED_ENV,
  plainSecrets,
  readSecret,
  type McpSettingIssue,
  type ResolveOptions,
} from '../mcp/index.js';
import type { AgentsConfig } from './agent-config.js';
import type { AgentSpec } from './types.js';

/** The settings of `agents` that cannot be used, each named (`agents.<name>.…`). */
export class AgentSettingsError extends Error {
  constructor(readonly issues: readonly McpSettingIssue[]) {
    super(issues.map((issue) => `${issue.field}: ${issue.message}`).join('; '));
    this.name = 'AgentSettingsError';
  }
}

/**
 * Every configured agent with its secrets read. Secrets come back in `secrets` too, for
 * the Redactor and the logger: an agent's stderr or error may echo them.
 *
 * @throws AgentSettingsError naming each setting (`agents.<name>.…`) that cannot be used.
 */
export async function resolveAgents(
  config: AgentsConfig,
  options: ResolveOptions,
): Promise<{ agents: AgentSpec[]; secrets: string[] }> {
  const issues: McpSettingIssue[] = [];
  const secrets: string[] = [];
  const agents: AgentSpec[] = [];
  const inherited = Object.fromEntries(
    INHERITED_ENV.flatMap((key) => {
      const value = options.env[key];
      return value === undefined ? [] : [[key, value]];
    }),
  );
  for (const [name, settings] of Object.entries(config)) {
    const field = `agents.${name}`;
    const env: Record<string, string> = {};
    for (const [entry, value] of Object.entries(settings.env ?? {})) {
      if (typeof value === 'string') {
        secrets.push(...plainSecrets(entry, value));
        env[entry] = value;
        continue;
      }
      const secret = await readSecret(value, `${field}.env.${entry}`, options, issues);
      if (secret === undefined) continue;
      secrets.push(secret);
      env[entry] = secret;
    }
    const writable = existingRealPaths(settings.writable, `${field}.writable`, issues);
    const readable = existingRealPaths(settings.readable, `${field}.readable`, issues);
    agents.push({
      name,
      command: settings.command,
      args: settings.args ?? [],
      env: { ...inherited, ...env },
      ...(settings.cwd === undefined ? {} : { cwd: settings.cwd }),
      writable,
      readable,
      ...(settings.network === undefined ? {} : { network: settings.network }),
    });
  }
  if (issues.length > 0) throw new AgentSettingsError(issues);
  return { agents, secrets };
}
