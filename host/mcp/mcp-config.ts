/**
 * The `mcp` section of the host's config file (docs/operations.md, "MCP servers"): which
 * servers to start or reach, where their secrets are, and how their tools are decided.
 */
import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { NetworkHost } from '../sandbox/index.js';

/** Server names: no underscore, so `mcp__<server>__<tool>` splits one way only. */
const SERVER_NAME = /^[A-Za-z0-9-]{1,32}$/;

const Decision = z.enum(['allow', 'ask', 'deny'], { error: 'expected allow, ask or deny' });

export const AbsolutePath = z
  .string({ error: 'expected an absolute path' })
  .refine((path) => isAbsolute(path), { error: 'expected an absolute path' });

/**
 * A value of `env` or `headers`: a plain string (for what is not secret), or where the
 * secret is kept: `{"keychain": "service/account"}` (macOS) or `{"file": "/abs/path"}` (a
 * 0600 file of this user, not a link). Secrets are read at start and never stored.
 */
export const SecretValue = z.union(
  [
    z.string(),
    z.strictObject({
      keychain: z.string().regex(/^[^/]+\/.+$/, { error: 'expected "service/account"' }),
    }),
    z.strictObject({ file: AbsolutePath }),
  ],
  {
    error:
      'expected a string, {"keychain": "service/account"} or {"file": "/absolute/path"} (a 0600 file)',
  },
);
export type SecretValue = z.output<typeof SecretValue>;

export const EnvName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, {
  error: 'expected the name of an environment variable',
});
const HeaderName = z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,128}$/, {
  error: 'expected an HTTP header name',
});

/**
 * What a program the host starts in the OS sandbox (an MCP server, an ACP agent) may touch
 * besides its own folder, as its config names it.
 */
export const SANDBOX_SETTINGS = {
  /**
   * Folders or files it may change in the sandbox (its own settings and caches: `~/.npm`,
   * `~/.claude`), absolute; they must exist at start.
   */
  writable: z.array(AbsolutePath, { error: 'expected a list of absolute paths' }).optional(),
  /**
   * Folders outside the system's and the home folder's toolchains it reads (its program's
   * folder when installed elsewhere), absolute; they must exist. Their secrets stay hidden.
   */
  readable: z.array(AbsolutePath, { error: 'expected a list of absolute paths' }).optional(),
  /**
   * The only hosts it may reach, through the host's proxy (`api.anthropic.com`,
   * `*.example.com`, `host:port`); `[]` for none. Absent: all of the network, as the card
   * and the Tools screen warn.
   */
  network: z
    .array(NetworkHost, { error: 'expected a list of host names' })
    .max(64, { error: 'expected at most 64 hosts' })
    .optional(),
};

const McpServerSettings = z
  .strictObject(
    {
      /** stdio: the program (looked up on the minimal environment's PATH) and its arguments. */
      command: z.string({ error: 'expected a program' }).min(1).optional(),
      args: z.array(z.string(), { error: 'expected a list of arguments' }).optional(),
      env: z.record(EnvName, SecretValue, { error: 'expected an object' }).optional(),
      cwd: AbsolutePath.optional(),
      /**
       * stdio: run inside the OS sandbox (default true). `false` runs the server with the
       * host's own rights, as the Tools screen warns.
       */
      sandbox: z.boolean({ error: 'expected true or false' }).optional(),
      ...SANDBOX_SETTINGS,
      /** Streamable HTTP: the endpoint and its request headers. */
      url: z.url({ protocol: /^https?$/, error: 'expected an http or https URL' }).optional(),
      headers: z.record(HeaderName, SecretValue, { error: 'expected an object' }).optional(),
      /** Every tool of this server, unless `tools` names it (default `ask`). */
      policy: Decision.optional(),
      /** Per tool, by its name on the server. */
      tools: z.record(z.string(), Decision, { error: 'expected an object' }).optional(),
      /** Let the server's `readOnlyHint` allow a tool (default false: hints allow nothing). */
      trustHints: z.boolean({ error: 'expected true or false' }).optional(),
      /** One tool call waits this long, then its outcome is unknown (default 60 s). */
      callTimeoutMs: z
        .number({ error: 'expected a number of milliseconds' })
        .int()
        .min(100)
        .max(24 * 60 * 60 * 1000)
        .optional(),
    },
    { error: 'expected an object' },
  )
  .superRefine((server, ctx) => {
    const stdio = server.command !== undefined;
    const http = server.url !== undefined;
    if (stdio === http) {
      ctx.addIssue({
        code: 'custom',
        path: [stdio ? 'url' : 'command'],
        message: stdio
          ? 'give either command (stdio) or url (streamable HTTP), not both'
          : 'expected command (a stdio server) or url (a streamable HTTP server)',
      });
      return;
    }
    const misplaced = stdio
      ? (['headers'] as const)
      : (['args', 'env', 'cwd', 'sandbox', 'writable', 'readable', 'network'] as const);
    for (const key of misplaced) {
      if (server[key] === undefined) continue;
      ctx.addIssue({
        code: 'custom',
        path: [key],
        message: stdio ? 'only for a url server' : 'only for a command (stdio) server',
      });
    }
    if (server.sandbox === false) {
      for (const key of ['writable', 'readable', 'network'] as const) {
        if (server[key] === undefined) continue;
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: 'only for a server in the sandbox: remove it, or sandbox: false',
        });
      }
    }
  });
export type McpServerSettings = z.output<typeof McpServerSettings>;

/** `mcp` in the config file: `{"servers": {"<name>": {…}}}`. */
export const McpConfig = z.strictObject(
  {
    servers: z
      .record(
        z.string().regex(SERVER_NAME, {
          error: 'expected a server name of letters, digits and - (at most 32)',
        }),
        McpServerSettings,
        {
          error: (issue) =>
            issue.code === 'invalid_key'
              ? 'expected a server name of letters, digits and - (at most 32)'
              : issue.code === 'invalid_type'
                ? 'expected an object of servers by name'
                : undefined,
        },
      )
      .refine((servers) => Object.keys(servers).length <= 32, {
        error: 'expected at most 32 servers',
      })
      .optional(),
  },
  { error: 'expected an object' },
);
export type McpConfig = z.output<typeof McpConfig>;
