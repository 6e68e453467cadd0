/**
 * Zod schemas of every configuration source: the config file, the environment and the
 * command line. Each source is an object keyed by its own names for the settings, so an
 * issue's path is the name the user typed.
 */
import { isIP } from 'node:net';
import { z } from 'zod';
import { LOG_LEVELS } from '../log/index.js';
import { PROVIDER_KINDS } from '../model/index.js';
import { AgentsConfig } from '../agents/index.js';
import { McpConfig } from '../mcp/index.js';
import { PolicyConfig } from '../policy/index.js';
import type { ConfigIssue, RunLimits } from './types.js';

function integer(min: number, max: number, message: string) {
  return z
    .number({ error: message })
    .int({ error: message })
    .min(min, { error: message })
    .max(max, { error: message });
}

const PORT_MESSAGE = 'expected an integer from 0 to 65535';
const Port = integer(0, 65535, PORT_MESSAGE);
const PortText = z
  .string()
  .regex(/^\d{1,5}$/, { error: PORT_MESSAGE })
  .transform(Number)
  .pipe(Port);
const PositiveInteger = integer(1, Number.MAX_SAFE_INTEGER, 'expected a positive integer');
/** An attachment bound: the protocol takes no attachment past 1 GiB. */
const AttachmentBytes = integer(
  1,
  1024 * 1024 * 1024,
  'expected a number of bytes from 1 to 1073741824 (1 GiB)',
);

const ReserveBytes = integer(
  0,
  Number.MAX_SAFE_INTEGER,
  'expected a number of bytes from 0 to 9007199254740991',
);

const Bind = z
  .string({ error: 'expected an IP address' })
  .refine((text) => text === 'localhost' || isIP(text) !== 0, {
    error: 'expected an IP address such as 127.0.0.1 or 0.0.0.0',
  });
const HostName = z
  .string({ error: 'expected a name' })
  .trim()
  .min(1, { error: 'expected a name' })
  .max(128, { error: 'expected at most 128 characters' });
const LogLevel = z.enum(LOG_LEVELS, { error: `expected one of ${LOG_LEVELS.join(', ')}` });
const KeyStore = z.enum(['keychain', 'file'], { error: 'expected keychain or file' });
const BaseUrl = z.url({ protocol: /^https?$/, error: 'expected an http or https URL' });
const ModelName = z
  .string({ error: 'expected a model name' })
  .min(1, { error: 'expected a model name' })
  .max(200, { error: 'expected at most 200 characters' });
/** The language spoken, as transcription endpoints take it: ISO 639-1 (`en`, `de`). */
const Language = z
  .string({ error: 'expected a language code such as en or de (ISO 639-1)' })
  .regex(/^[a-z]{2,3}$/, { error: 'expected a language code such as en or de (ISO 639-1)' });
const Path = z.string({ error: 'expected a path' }).min(1, { error: 'expected a path' });

/**
 * The VAPID subject (docs/push.md): Apple's push service refuses anything but a `mailto:`
 * address or an `https:` URL, and a localhost one, so both are checked here, at start.
 */
const PushSubject = z.string({ error: 'expected a mailto: or https: URL' }).refine(
  (text) => {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return false;
    }
    if (url.protocol === 'mailto:') return /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(url.pathname);
    return url.protocol === 'https:' && url.hostname !== 'localhost' && isIP(url.hostname) === 0;
  },
  {
    error: 'expected a mailto: address (mailto:you@example.org) or an https: URL with a host name',
  },
);

/**
 * An origin the host may POST pushes to besides the known push services: `https://host`,
 * `https://*.host` (any subdomain) with an optional port, or, for tests only, a loopback
 * `http://127.0.0.1:PORT` (also `[::1]`, `localhost`), which is allowed only when listed.
 */
const PushOrigin = z
  .string({ error: 'expected an origin such as https://push.example.org' })
  .regex(
    /^(https:\/\/(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*(:\d{1,5})?|http:\/\/(127\.0\.0\.1|\[::1\]|localhost):\d{1,5})$/,
    {
      error:
        'expected https://host or https://*.host (with an optional :port), lowercase, no path; http:// only for 127.0.0.1, [::1] or localhost with a port (tests)',
    },
  );

const PRICE_MESSAGE = 'expected US dollars per million tokens: a number from 0 to 10000';
const Price = z
  .number({ error: PRICE_MESSAGE })
  .min(0, { error: PRICE_MESSAGE })
  .max(10_000, { error: PRICE_MESSAGE });

/**
 * `prices.<model>`: what the model's tokens cost, for the estimate `run.usage` gives; a
 * model without an entry gets no cost (never a guessed one).
 */
const ModelPrice = z.strictObject(
  {
    inputPerMTok: Price,
    cachedInputPerMTok: Price.optional(),
    outputPerMTok: Price,
  },
  { error: 'expected {"inputPerMTok": n, "cachedInputPerMTok"?: n, "outputPerMTok": n}' },
);

/**
 * A workspace in the config file: its folder, or the folder with a new task's default
 * isolation (`"worktree"`: a branch of its own, docs/worktrees.md).
 */
const WorkspaceSetting = z.preprocess(
  (value) => (typeof value === 'string' ? { path: value } : value),
  z.strictObject(
    {
      path: Path,
      isolation: z
        .enum(['none', 'worktree'], { error: 'expected "none" or "worktree"' })
        .optional(),
    },
    { error: 'expected a folder path or {"path", "isolation": "worktree"}' },
  ),
);

/** `<dataDir>/config.json` or `--config FILE`. Every key is optional; unknown keys are errors. */
export const ConfigFile = z.strictObject(
  {
    port: Port.optional(),
    bind: Bind.optional(),
    hostName: HostName.optional(),
    logLevel: LogLevel.optional(),
    keyStore: KeyStore.optional(),
    /** Relative paths are relative to the config file's folder. */
    workspaces: z
      .array(WorkspaceSetting, {
        error: 'expected a list of folder paths or {"path", "isolation": "worktree"}',
      })
      .optional(),
    model: z
      .strictObject(
        {
          baseUrl: BaseUrl.optional(),
          model: ModelName.optional(),
          /** A literal key; refused unless the file is readable by its owner alone. */
          apiKey: z.string({ error: 'expected a string' }).min(1).optional(),
          /** The name of an environment variable holding the key. */
          apiKeyEnv: z
            .string({ error: 'expected a string' })
            .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, {
              error: 'expected the name of an environment variable',
            })
            .optional(),
          provider: z
            .enum(PROVIDER_KINDS, {
              error: `expected one of ${PROVIDER_KINDS.join(', ')} (docs/model-providers.md); leave it out to detect the provider from the base URL`,
            })
            .optional(),
          extraBody: z.record(z.string(), z.unknown(), { error: 'expected an object' }).optional(),
          /** Tokens the model's context holds (docs/sessions.md); default 128000. */
          contextTokens: integer(
            1024,
            100_000_000,
            'expected the number of tokens the model takes, an integer of at least 1024',
          ).optional(),
        },
        { error: 'expected an object' },
      )
      .optional(),
    /** The speech-to-text endpoint of `voice.transcribe` (docs/voice.md); its key is kept apart. */
    voice: z
      .strictObject(
        {
          baseUrl: BaseUrl,
          model: ModelName,
          language: Language.optional(),
        },
        {
          error:
            'expected {"baseUrl": "https://…", "model": "NAME", "language"?: "en"} (tether voice set writes it)',
        },
      )
      .optional(),
    limits: z
      .strictObject(
        {
          maxActiveRuns: PositiveInteger.optional(),
          maxModelTurns: PositiveInteger.optional(),
          runWallTimeMs: PositiveInteger.optional(),
          modelIdleTimeoutMs: PositiveInteger.optional(),
          toolResultMaxChars: PositiveInteger.optional(),
          attachmentMaxBytes: AttachmentBytes.optional(),
          runAttachmentsMaxBytes: AttachmentBytes.optional(),
          attachmentDiskReserveBytes: ReserveBytes.optional(),
        },
        { error: 'expected an object' },
      )
      .optional() satisfies z.ZodType<Partial<RunLimits> | undefined>,
    /** Allow / ask / deny rules for tool calls (docs/policy.md); defaults fill the rest. */
    policy: PolicyConfig.optional(),
    /** MCP tool servers (docs/operations.md, "MCP servers"). */
    mcp: McpConfig.optional(),
    /** ACP agents runs may be given to (docs/agents.md). */
    agents: AgentsConfig.optional(),
    /** Sleep while runs work (docs/operations.md, "Awake while it works"). */
    power: z
      .strictObject(
        {
          keepAwake: z
            .union([z.enum(['runs', 'never']), z.number().positive().max(8760)], {
              error: 'expected "runs", "never" or a number of hours (up to 8760)',
            })
            .optional(),
        },
        { error: 'expected an object' },
      )
      .optional(),
    /** Prices by model name (docs/operations.md, "Usage and cost"). */
    prices: z
      .record(ModelName, ModelPrice, { error: 'expected an object of model names' })
      .refine((prices) => Object.keys(prices).length <= 200, {
        error: 'expected at most 200 models',
      })
      .optional(),
    /** Web Push (docs/push.md). */
    push: z
      .strictObject(
        {
          subject: PushSubject.optional(),
          allowedEndpoints: z
            .array(PushOrigin, { error: 'expected a list of origins' })
            .max(32, { error: 'expected at most 32 origins' })
            .optional(),
          body: z
            .enum(['names', 'none', 'full'], { error: 'expected names, none or full' })
            .optional(),
          retry: z
            .strictObject(
              {
                initialDelayMs: PositiveInteger.optional(),
                maxDelayMs: PositiveInteger.optional(),
                maxAttempts: integer(1, 100, 'expected an integer from 1 to 100').optional(),
                requestTimeoutMs: PositiveInteger.optional(),
              },
              { error: 'expected an object' },
            )
            .optional(),
        },
        { error: 'expected an object' },
      )
      .optional(),
  },
  { error: 'expected a JSON object' },
);
export type ConfigFile = z.output<typeof ConfigFile>;
export type FileModelSettings = NonNullable<ConfigFile['model']>;

/** The variables Tether reads (others are ignored). Empty values count as unset. */
export const EnvSettings = z.object({
  TETHER_DATA_DIR: Path.optional(),
  TETHER_PORT: PortText.optional(),
  TETHER_BIND: Bind.optional(),
  TETHER_HOST_NAME: HostName.optional(),
  TETHER_LOG_LEVEL: LogLevel.optional(),
  TETHER_KEY_STORE: KeyStore.optional(),
  TETHER_MODEL_BASE_URL: BaseUrl.optional(),
  TETHER_MODEL: ModelName.optional(),
  TETHER_MODEL_API_KEY: z.string().optional(),
  DEEPSEEK_API_KEY: z.string().optional(),
  OPENAI_API_KEY: z.string().optional(),
});
export type EnvSettings = z.output<typeof EnvSettings>;

/** The flags of `tether start` after the flag parser has grouped them. */
export const FlagSettings = z.strictObject({
  '--data': Path.optional(),
  '--port': PortText.optional(),
  '--bind': Bind.optional(),
  '--workspace': z.array(Path).optional(),
  '--config': Path.optional(),
  '--https': z.literal('true').optional(),
  '--tailscale': z.literal('true').optional(),
  '--demo': z.literal('true').optional(),
});
export type FlagSettings = z.output<typeof FlagSettings>;

function fieldName(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    out += typeof key === 'number' ? `[${key}]` : `${out === '' ? '' : '.'}${String(key)}`;
  }
  return out === '' ? '(root)' : out;
}

/**
 * Parses one source, adding an issue per problem (one per unknown key). On failure it
 * still returns what the valid top-level settings say, so later checks (workspaces,
 * model) can report their problems in the same error.
 */
export function parseSource<S extends z.ZodType>(
  schema: S,
  value: unknown,
  source: string,
  issues: ConfigIssue[],
): z.output<S> | undefined {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const bad = new Set<string>();
  for (const issue of parsed.error.issues) {
    const keys = issue.code === 'unrecognized_keys' ? issue.keys : [''];
    for (const key of keys) {
      const path = key === '' ? issue.path : [...issue.path, key];
      const message = key === '' ? issue.message : 'unknown setting';
      issues.push({ source, field: fieldName(path), message });
      bad.add(String(path[0] ?? ''));
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const valid = Object.fromEntries(Object.entries(value).filter(([key]) => !bad.has(key)));
  const retried = schema.safeParse(valid);
  return retried.success ? retried.data : undefined;
}
