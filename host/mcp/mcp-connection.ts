/**
 * One configured MCP server, kept connected: a stdio server started as its own process
 * group (restarted with backoff and jitter after it exits) or a streamable HTTP endpoint
 * (reconnected the same way); its tools listed, capped, and listed again on
 * `notifications/tools/list_changed`; calls sent with a timeout and an outcome for each.
 * The SDK itself is loaded on the first connect (./mcp-sdk.ts).
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerInfo } from '../../protocol/index.js';
import type { Logger } from '../log/index.js';
import type { Sandbox } from '../sandbox/index.js';
import type { ToolContext, ToolResult } from '../tools/index.js';
import { boundedFetch } from './bounded-fetch.js';
import type * as McpSdk from './mcp-sdk.js';
import type { McpTool } from './mcp-tool.js';
import { serverSandboxScope, serverStart } from './server-start.js';
import type { McpServerSpec, McpServerState, ServerGroupRecord } from './types.js';
import { errorMessage } from '../../protocol/index.js';

type Sdk = typeof McpSdk;

/** Bounds of one connection; tests pass short ones. */
export interface ConnectionLimits {
  connectTimeoutMs: number;
  /** First restart delay; each failed try doubles it up to `restartMaxMs` (±25 % jitter). */
  restartInitialMs: number;
  restartMaxMs: number;
  /** Failed tries in a row before the host gives up on the server. */
  restartMaxTries: number;
  /** Connected this long, the next crash starts the backoff from the beginning again. */
  stablePeriodMs: number;
  /** SIGTERM to SIGKILL when a stdio server is stopped. */
  stopGraceMs: number;
  /** Tools kept from one server; the rest are left out (and logged). */
  maxTools: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  connectTimeoutMs: 30_000,
  restartInitialMs: 500,
  restartMaxMs: 60_000,
  restartMaxTries: 10,
  stablePeriodMs: 60_000,
  stopGraceMs: 2_000,
  maxTools: 128,
};

const LIST_PAGES_MAX = 20;

export interface ConnectionDeps {
  log: Logger;
  /** The machine's OS sandbox, which a stdio server runs in unless its config says not. */
  sandbox: Sandbox;
  groups: ServerGroupRecord;
  limits: ConnectionLimits;
  version: string;
  /** Masks the host's secrets in `lastError`, which remotes see (host.info). */
  mask?: (text: string) => string;
  /** Told whenever the state or the tool list changes. */
  onChange(): void;
}

export class McpConnection {
  private state: McpServerState = 'stopped';
  private lastError: string | undefined;
  private tools = new Map<string, McpTool>();
  private client: Client | null = null;
  /** Set by the first connect; a connected client implies it. */
  private sdk: Sdk | null = null;
  private transport: Transport | null = null;
  private tries = 0;
  private connectedAt = 0;
  private restartTimer: NodeJS.Timeout | null = null;
  private stopped = false;
  /** The server's last line of stderr (masked), said when it closes the connection. */
  private lastStderr: string | undefined;
  private readonly log: Logger;

  constructor(
    readonly spec: McpServerSpec,
    private readonly deps: ConnectionDeps,
  ) {
    this.log = deps.log.child({ mcpServer: spec.name });
  }

  info(): McpServerInfo {
    return {
      name: this.spec.name,
      transport: this.spec.transport,
      state: this.state,
      tools: [...this.tools.values()].map((tool) => tool.definition.name),
      ...(this.lastError === undefined ? {} : { lastError: this.lastError }),
      ...(this.spec.transport === 'stdio'
        ? { sandbox: serverSandboxScope(this.spec, this.deps.sandbox) }
        : {}),
    };
  }

  get connected(): boolean {
    return this.state === 'connected';
  }

  /** Every tool listed last, also while the server reconnects (a call then fails unsent). */
  listedTools(): Iterable<McpTool> {
    return this.tools.values();
  }

  start(): void {
    this.stopped = false;
    void this.connect();
  }

  /** Closes the connection and stops a stdio server's group; no restart follows. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.restartTimer !== null) clearTimeout(this.restartTimer);
    this.restartTimer = null;
    const client = this.client;
    this.client = null;
    this.setState('stopped');
    await client?.close().catch(() => undefined);
    await this.transport?.close().catch(() => undefined);
  }

  private setState(state: McpServerState, error?: string): void {
    this.state = state;
    if (error !== undefined) this.lastError = this.deps.mask?.(error) ?? error;
    this.deps.onChange();
  }

  private async connect(): Promise<void> {
    this.setState(this.tries === 0 ? 'connecting' : 'restarting');
    let sdk: Sdk;
    try {
      sdk = await import('./mcp-sdk.js');
    } catch (error) {
      this.lost(`cannot load the MCP SDK: ${errorMessage(error)}`);
      return;
    }
    if (this.stopped) return;
    this.sdk = sdk;
    let transport: Transport;
    try {
      transport = await this.makeTransport(sdk);
    } catch (error) {
      this.lost(`cannot start: ${errorMessage(error)}`);
      return;
    }
    // Stopped while its sandbox was prepared: nothing started, the sandbox goes.
    if (this.stopped) {
      await transport.close().catch(() => undefined);
      return;
    }
    this.transport = transport;
    const client = new sdk.Client(
      { name: 'tether', version: this.deps.version },
      { capabilities: {} },
    );
    client.onerror = (error) => this.log.debug('mcp connection error', { error: error.message });
    client.setNotificationHandler(sdk.ToolListChangedNotificationSchema, () => {
      if (this.client === client) void this.refreshTools(client, sdk);
    });
    // Set after connect() installs its own: ours runs once the transport has closed.
    const closed = () => {
      if (this.client !== client) return;
      this.client = null;
      this.lost(this.closedWhy('the server closed the connection'));
    };
    try {
      await client.connect(transport, { timeout: this.deps.limits.connectTimeoutMs });
      const sdkClose = transport.onclose;
      transport.onclose = () => {
        sdkClose?.();
        closed();
      };
      if (this.stopped) {
        await client.close().catch(() => undefined);
        return;
      }
      this.client = client;
      await this.refreshTools(client, sdk);
      this.connectedAt = Date.now();
      this.setState('connected');
      this.log.info('mcp server connected', { tools: this.tools.size });
    } catch (error) {
      await client.close().catch(() => undefined);
      await transport.close().catch(() => undefined);
      if (this.stopped) return;
      this.client = null;
      this.lost(this.closedWhy(`cannot connect: ${errorMessage(error)}`));
    }
  }

  /** `why`, with the server's last line of stderr when it wrote one. */
  private closedWhy(why: string): string {
    const line = this.lastStderr;
    this.lastStderr = undefined;
    return line === undefined ? why : `${why} (its last line on stderr: ${line})`;
  }

  private async makeTransport(sdk: Sdk): Promise<Transport> {
    const { spec } = this;
    if (spec.transport === 'http') {
      return new sdk.StreamableHTTPClientTransport(new URL(spec.url), {
        requestInit: { headers: { ...spec.headers } },
        fetch: boundedFetch(),
      });
    }
    const { groups } = this.deps;
    const stderrLine = (line: string) => {
      this.lastStderr = this.deps.mask?.(line) ?? line;
      this.log.info('mcp server stderr', { line });
    };
    const start = await serverStart(spec, this.deps.sandbox, {
      onRefusedHost: (target) =>
        stderrLine(
          `tether: refused a connection to ${target}, not in mcp.servers.${spec.name}.network`,
        ),
      onChangedProtected: (paths) => this.log.warn('mcp server changed protected paths', { paths }),
      onCleanupFailed: (error) =>
        this.log.warn('mcp server sandbox cleanup failed', { error: errorMessage(error) }),
    });
    return new sdk.GroupStdioTransport({
      ...start,
      graceMs: this.deps.limits.stopGraceMs,
      onGroup: (pgid) => groups.add({ pgid, server: spec.name, startedAt: Date.now() }),
      onGroupGone: (pgid) => groups.remove(pgid),
      onStderrLine: stderrLine,
    });
  }

  /** The connection ended without a stop: restart after a backoff, or give up. */
  private lost(why: string): void {
    if (this.stopped) return;
    if (this.connectedAt > 0 && Date.now() - this.connectedAt >= this.deps.limits.stablePeriodMs) {
      this.tries = 0;
    }
    this.connectedAt = 0;
    this.tries += 1;
    const { limits } = this.deps;
    if (this.tries > limits.restartMaxTries) {
      this.log.error('mcp server given up', { error: why, tries: this.tries - 1 });
      this.setState('failed', `gave up after ${limits.restartMaxTries} tries: ${why}`);
      return;
    }
    const base = Math.min(limits.restartInitialMs * 2 ** (this.tries - 1), limits.restartMaxMs);
    const delay = Math.round(base * (0.75 + Math.random() * 0.5));
    this.log.warn('mcp server lost: restarting', { error: why, delayMs: delay, try: this.tries });
    this.setState('restarting', why);
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      void this.connect();
    }, delay);
    this.restartTimer.unref();
  }

  private async refreshTools(client: Client, sdk: Sdk): Promise<void> {
    const listed: Tool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < LIST_PAGES_MAX; page++) {
      const answer = await client.listTools(cursor === undefined ? {} : { cursor });
      listed.push(...answer.tools);
      cursor = answer.nextCursor;
      if (cursor === undefined || listed.length >= this.deps.limits.maxTools) break;
    }
    const tools = new Map<string, McpTool>();
    const skipped: string[] = [];
    for (const entry of listed) {
      if (tools.size >= this.deps.limits.maxTools) {
        skipped.push(
          `${listed.length - tools.size - skipped.length} more tools (at most ${this.deps.limits.maxTools} are kept)`,
        );
        break;
      }
      const made = sdk.mcpToolOf(this.spec.name, entry, (tool, input, ctx) =>
        this.call(tool, input, ctx),
      );
      if (made.ok && !tools.has(made.tool.definition.name)) {
        tools.set(made.tool.definition.name, made.tool);
      } else {
        skipped.push(made.ok ? `${entry.name}: listed twice` : made.reason);
      }
    }
    if (skipped.length > 0) this.log.warn('mcp tools left out', { skipped: skipped.slice(0, 20) });
    if (this.client !== client) return;
    this.tools = tools;
    this.deps.onChange();
  }

  /** Sends one call; its outcome is unknown when the server dies or does not answer in time. */
  private async call(tool: string, input: unknown, ctx: ToolContext): Promise<ToolResult> {
    const { client, sdk } = this;
    if (client === null || sdk === null || this.state !== 'connected') {
      const message = `the MCP server ${this.spec.name} is not connected (${this.state}${this.lastError === undefined ? '' : `: ${this.lastError}`}); ${tool} was not called`;
      return {
        status: 'failed',
        summary: message,
        content: message,
        error: { code: 'unavailable', message },
      };
    }
    let answer: CallToolResult;
    // The SDK leaves a listener on the signal it is given per request: give it one of its
    // own, so a run's signal does not collect one per call.
    const own = new AbortController();
    const abort = () => own.abort();
    ctx.signal.addEventListener('abort', abort, { once: true });
    try {
      answer = (await client.callTool(
        { name: tool, arguments: input as Record<string, unknown> },
        undefined,
        { signal: own.signal, timeout: this.spec.callTimeoutMs },
      )) as CallToolResult;
    } catch (error) {
      return this.unanswered(tool, error, ctx.signal, sdk);
    } finally {
      ctx.signal.removeEventListener('abort', abort);
    }
    return sdk.resultOf(this.spec.name, tool, answer);
  }

  private unanswered(tool: string, error: unknown, signal: AbortSignal, sdk: Sdk): ToolResult {
    const server = this.spec.name;
    if (signal.aborted) {
      const message = `the run was stopped while ${tool} of MCP server ${server} was running; it may or may not have taken effect`;
      return {
        status: 'failed',
        summary: message,
        content: message,
        error: { code: 'cancelled', message },
      };
    }
    const code: number | null = error instanceof sdk.McpError ? error.code : null;
    const timedOut = code === Number(sdk.ErrorCode.RequestTimeout);
    if (code !== null && code !== Number(sdk.ErrorCode.ConnectionClosed) && !timedOut) {
      // The server answered with a JSON-RPC error: it handled the call and refused it.
      const message = `${tool} of MCP server ${server} failed: ${errorMessage(error)}`;
      return {
        status: 'failed',
        summary: message,
        content: message,
        error: { code: 'tool_error', message },
      };
    }
    const why = timedOut
      ? `no answer within ${this.spec.callTimeoutMs} ms`
      : `the connection to the server ended (${errorMessage(error)})`;
    const message = `outcome unknown: ${why} while ${tool} of MCP server ${server} was running; it may or may not have taken effect, and it is not sent again by itself`;
    return { status: 'unknown', summary: message, content: `[${message}]` };
  }
}
