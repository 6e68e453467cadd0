/**
 * An MCP stdio transport whose server leads its own process group: the SDK's
 * StdioClientTransport spawns the server in the host's group, where neither a stop nor the
 * next start after a crash could reach the server's own children. The framing is the SDK's.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { childLines } from '../log/index.js';
import { spawnWrapped, type WrappedCommand } from '../sandbox/index.js';
import { killProcessGroup } from '../tools/index.js';

/** A line of stderr is cut to this many characters before it is logged. */
const STDERR_LINE_MAX = 2000;
/** A single message from the server larger than this closes the connection. */
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

export interface GroupStdioOptions {
  /** The program and its arguments, as the sandbox wrapped them (or as configured). */
  launch: WrappedCommand;
  env: Readonly<Record<string, string>>;
  cwd: string;
  /** A bubblewrap sandbox leads the group (./process-group.ts spares its two on TERM). */
  sandboxed: boolean;
  /** After the group is stopped (or found gone): the sandbox's folders are removed. */
  onStopped?(): void;
  /** How long a stopping server has after SIGTERM before SIGKILL. */
  graceMs: number;
  /** The new group's id, right after the spawn (recorded so a crashed host's is killed). */
  onGroup(pgid: number): void;
  /** The group is gone: every process in it has exited. */
  onGroupGone(pgid: number): void;
  onStderrLine(line: string): void;
}

export class GroupStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child: ChildProcessWithoutNullStreams | null = null;
  private readonly buffer = new ReadBuffer({ maxBufferSize: MAX_MESSAGE_BYTES });
  private stopping: Promise<void> | null = null;

  constructor(private readonly options: GroupStdioOptions) {}

  /** The server's process group (its pid), once spawned. */
  get pgid(): number | null {
    return this.child?.pid ?? null;
  }

  start(): Promise<void> {
    if (this.child !== null) throw new Error('the MCP server process is already started');
    const { options } = this;
    return new Promise((resolve, reject) => {
      let child: ChildProcessWithoutNullStreams;
      try {
        child = spawnWrapped(options.launch, {
          cwd: options.cwd,
          env: { ...options.env },
          stdin: 'pipe',
        }) as ChildProcessWithoutNullStreams;
      } catch (error) {
        void this.stopGroup();
        reject(error instanceof Error ? error : new Error(String(error)));
        return;
      }
      this.child = child;
      child.once('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.once('spawn', () => {
        if (child.pid !== undefined) options.onGroup(child.pid);
        resolve();
      });
      // The leader's exit ends the connection; what it left in its group goes with it.
      child.once('exit', () => {
        void this.stopGroup().finally(() => this.onclose?.());
      });
      child.stdin.on('error', (error) => this.onerror?.(error));
      child.stdout.on('data', (chunk: Buffer) => {
        try {
          this.buffer.append(chunk);
          for (let message = this.next(); message !== null; message = this.next()) {
            this.onmessage?.(message);
          }
        } catch (error) {
          this.onerror?.(error instanceof Error ? error : new Error(String(error)));
          void this.close();
        }
      });
      childLines(child.stderr, STDERR_LINE_MAX, (line) => options.onStderrLine(line));
    });
  }

  private next(): JSONRPCMessage | null {
    for (;;) {
      try {
        return this.buffer.readMessage();
      } catch (error) {
        // One line that is not JSON-RPC (a stray print): reported, the stream goes on.
        this.onerror?.(error instanceof Error ? error : new Error(String(error)));
      }
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    const child = this.child;
    if (child === null || child.exitCode !== null || child.signalCode !== null) {
      return Promise.reject(new Error('the MCP server process is not running'));
    }
    return new Promise((resolve, reject) => {
      child.stdin.write(serializeMessage(message), (error) => (error ? reject(error) : resolve()));
    });
  }

  /** Stops the server: its stdin closed, then its whole group (TERM, grace, KILL). */
  close(): Promise<void> {
    this.child?.stdin.end();
    return this.stopGroup();
  }

  /** Stops the group once (also from the leader's exit); never rejects. */
  private stopGroup(): Promise<void> {
    const { options } = this;
    const pgid = this.pgid;
    const report = (error: unknown) =>
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    const stopped = () => {
      try {
        options.onStopped?.();
      } catch (error) {
        report(error);
      }
    };
    if (pgid === null) {
      this.stopping ??= Promise.resolve().then(stopped);
      return this.stopping;
    }
    this.stopping ??= killProcessGroup(pgid, options.graceMs, undefined, options.sandboxed)
      .then((stop) => {
        if (stop.gone) options.onGroupGone(pgid);
      })
      .catch(report)
      .then(stopped);
    return this.stopping;
  }
}
