/**
 * The host as the ACP client of one agent process, through the official SDK (no JSON-RPC
 * of our own): the SDK's client app over the process's stdio, the agent's requests handed
 * to the run (`AgentRequests`), and the agent's methods the run calls (initialize,
 * session/new or session/load, session/prompt, session/cancel). The SDK is loaded on the
 * first agent run (./acp-sdk.ts).
 */
import { Readable, Writable } from 'node:stream';
import type {
  ContentBlock,
  CreateTerminalRequest,
  CreateTerminalResponse,
  TerminalExitStatus,
  TerminalOutputResponse,
  InitializeResponse,
  PromptResponse,
  ReadTextFileRequest,
  ReadTextFileResponse,
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionNotification,
  WriteTextFileRequest,
} from '@agentclientprotocol/sdk';
import type { ClientConnection } from '@agentclientprotocol/sdk';
import type * as AcpSdk from './acp-sdk.js';
import type { AgentProcess } from './agent-process.js';

type Sdk = typeof AcpSdk;

let sdkLoad: Promise<Sdk> | null = null;

/** The SDK, loaded once, on the first agent run. */
function loadSdk(): Promise<Sdk> {
  sdkLoad ??= import('./acp-sdk.js');
  return sdkLoad;
}

/** What the agent asks of the host while a turn goes on, answered by the run. */
export interface AgentRequests {
  /** A `session/update` notification. */
  update(notification: SessionNotification): void;
  requestPermission(
    params: RequestPermissionRequest,
    signal: AbortSignal,
  ): Promise<RequestPermissionResponse>;
  readTextFile(params: ReadTextFileRequest, signal: AbortSignal): Promise<ReadTextFileResponse>;
  writeTextFile(params: WriteTextFileRequest, signal: AbortSignal): Promise<void>;
  createTerminal(
    params: CreateTerminalRequest,
    signal: AbortSignal,
  ): Promise<CreateTerminalResponse>;
  terminalOutput(terminalId: string): Promise<TerminalOutputResponse>;
  waitForTerminalExit(terminalId: string, signal: AbortSignal): Promise<TerminalExitStatus>;
  killTerminal(terminalId: string): Promise<void>;
  releaseTerminal(terminalId: string): Promise<void>;
}

/** Thrown by the SDK's request error class, for an answer the host refuses. */
export async function requestError(code: number, message: string): Promise<Error> {
  const sdk = await loadSdk();
  return new sdk.RequestError(code, message);
}

export class AgentSession {
  private constructor(
    private readonly sdk: Sdk,
    private readonly connection: ClientConnection,
  ) {}

  /** Connects to `agent` over its stdio; its requests go to `requests`. */
  static async connect(agent: AgentProcess, requests: AgentRequests): Promise<AgentSession> {
    const sdk = await loadSdk();
    const { methods } = sdk;
    const stream = sdk.ndJsonStream(
      Writable.toWeb(agent.child.stdin) as WritableStream<Uint8Array>,
      Readable.toWeb(agent.child.stdout) as ReadableStream<Uint8Array>,
    );
    const app = sdk
      .client({ name: 'tether' })
      .onNotification(methods.client.session.update, ({ params }) => requests.update(params))
      .onRequest(methods.client.session.requestPermission, ({ params, signal }) =>
        requests.requestPermission(params, signal),
      )
      .onRequest(methods.client.fs.readTextFile, ({ params, signal }) =>
        requests.readTextFile(params, signal),
      )
      .onRequest(methods.client.fs.writeTextFile, async ({ params, signal }) => {
        await requests.writeTextFile(params, signal);
        return {};
      })
      .onRequest(methods.client.terminal.create, ({ params, signal }) =>
        requests.createTerminal(params, signal),
      )
      .onRequest(methods.client.terminal.output, ({ params }) =>
        requests.terminalOutput(params.terminalId),
      )
      .onRequest(methods.client.terminal.waitForExit, ({ params, signal }) =>
        requests.waitForTerminalExit(params.terminalId, signal),
      )
      .onRequest(methods.client.terminal.kill, async ({ params }) => {
        await requests.killTerminal(params.terminalId);
        return {};
      })
      .onRequest(methods.client.terminal.release, async ({ params }) => {
        await requests.releaseTerminal(params.terminalId);
        return {};
      });
    return new AgentSession(sdk, app.connect(stream));
  }

  /** Resolves when the connection has closed (the agent's stdout ended, or close()). */
  get closed(): Promise<void> {
    return this.connection.closed;
  }

  initialize(): Promise<InitializeResponse> {
    return this.connection.agent.request(this.sdk.methods.agent.initialize, {
      protocolVersion: this.sdk.PROTOCOL_VERSION,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
      clientInfo: { name: 'tether', version: '1' },
    });
  }

  async newSession(cwd: string): Promise<string> {
    const made = await this.connection.agent.request(this.sdk.methods.agent.session.new, {
      cwd,
      mcpServers: [],
    });
    return made.sessionId;
  }

  async loadSession(sessionId: string, cwd: string): Promise<void> {
    await this.connection.agent.request(this.sdk.methods.agent.session.load, {
      sessionId,
      cwd,
      mcpServers: [],
    });
  }

  prompt(sessionId: string, prompt: ContentBlock[]): Promise<PromptResponse> {
    return this.connection.agent.request(this.sdk.methods.agent.session.prompt, {
      sessionId,
      prompt,
    });
  }

  /** `session/cancel`: the agent stops the turn and answers the prompt with `cancelled`. */
  async cancel(sessionId: string): Promise<void> {
    await this.connection.agent.notify(this.sdk.methods.agent.session.cancel, { sessionId });
  }

  close(): void {
    this.connection.close();
  }
}
