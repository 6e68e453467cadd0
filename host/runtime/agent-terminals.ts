/**
 * An ACP agent's terminals (`terminal/*`) as calls of Tether's own `run_command` in its
 * run: each `terminal/create` is one run_command call, decided by the host's policy with
 * its card and run in the command sandbox (its folder, no network unless approved), as
 * the built-in loop's commands are. `terminal/create` answers once the command's process
 * runs, or with the refusal; output, exit, kill and release then act on that call. The
 * run's end stops every one (agent-run.ts: the turn's signal, then `AgentFiles.settle`).
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type {
  CreateTerminalRequest,
  TerminalExitStatus,
  TerminalOutputResponse,
} from '@agentclientprotocol/sdk';
import { commandLine } from '../../protocol/index.js';
import { requestError } from '../agents/index.js';
import type { StoredToolCall } from '../store/index.js';
import { notDone, REFUSED, type AgentFiles } from './agent-files.js';
import type { AgentRunScope } from './agent-transcript.js';

/** At most this many terminals of a run live at once (each one a running command). */
const TERMINALS_MAX = 8;
/**
 * A variable's name as a shell reads one: anything else put before `=` in `env`'s words
 * could be read as one of its options (`--split-string=…` runs another program).
 */
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** The most output one `terminal/output` answers with, whatever the agent's limit. */
const TERMINAL_OUTPUT_MAX_BYTES = 1024 * 1024;

interface Terminal {
  call: StoredToolCall;
  /** Stops the command (terminal/kill, release, the run's end). */
  stop: AbortController;
  /** The call once it ended, in whatever state. */
  done: Promise<StoredToolCall>;
  /** The agent's `outputByteLimit`, capped. */
  outputLimit: number;
}

export class AgentTerminals {
  private readonly terminals = new Map<string, Terminal>();
  /** Creates not yet answered: they count against the bound from the moment they come. */
  private starting = 0;

  constructor(
    private readonly scope: AgentRunScope,
    private readonly files: AgentFiles,
  ) {}

  /** Runs the command as a run_command call; its id once it runs, or the refusal. */
  async create(
    params: CreateTerminalRequest,
    signal: AbortSignal,
  ): Promise<{ terminalId: string }> {
    const badName = (params.env ?? []).find(({ name }) => !VARIABLE_NAME.test(name))?.name;
    if (badName !== undefined) {
      throw await requestError(REFUSED, `${JSON.stringify(badName)} is not a variable name`);
    }
    if (this.terminals.size + this.starting >= TERMINALS_MAX) {
      throw await requestError(
        REFUSED,
        `the run already has ${TERMINALS_MAX} terminals: release one first`,
      );
    }
    this.starting += 1;
    try {
      return await this.start(params, signal);
    } finally {
      this.starting -= 1;
    }
  }

  private async start(
    params: CreateTerminalRequest,
    signal: AbortSignal,
  ): Promise<{ terminalId: string }> {
    const stop = new AbortController();
    const limit = params.outputByteLimit ?? TERMINAL_OUTPUT_MAX_BYTES;
    const outputLimit = Math.max(0, Math.min(limit, TERMINAL_OUTPUT_MAX_BYTES));
    let started: ((id: string) => void) | undefined;
    const running = new Promise<string>((resolve) => (started = resolve));
    const done: Promise<StoredToolCall> = this.files.decideAndRun(
      'run_command',
      terminalInput(params, this.scope),
      signal,
      {
        stop: stop.signal,
        // Kept from the moment its process runs.
        onStarted: (call) => {
          this.terminals.set(call.id, {
            call,
            stop,
            // Recorded ended by its own step; a store failing under it leaves it as it was.
            done: done.catch(() => call),
            outputLimit,
          });
          started?.(call.id);
        },
      },
    );
    const first = await Promise.race([running, done.then(() => null)]);
    if (first !== null) return { terminalId: first };
    // Ended without running: refused, denied, cancelled, or it could not start.
    const call = await done;
    if (!this.terminals.has(call.id)) throw await requestError(REFUSED, notDone(call));
    return { terminalId: call.id };
  }

  /** The output so far (its end, within the limit) and, once it exited, how. */
  async output(terminalId: string): Promise<TerminalOutputResponse> {
    const terminal = await this.terminal(terminalId);
    const ended = this.ended(terminal);
    const { text, truncated } = tailOf(
      this.scope.deps.store.outputPath(terminal.call.id),
      terminal.outputLimit,
    );
    const cut = ended !== null && (ended.result as { truncated?: boolean } | null)?.truncated;
    return {
      output: text,
      truncated: truncated || cut === true,
      ...(ended === null ? {} : { exitStatus: exitStatus(ended) }),
    };
  }

  /** How the command exited, once it did (or the wait was cancelled). */
  async waitForExit(terminalId: string, signal: AbortSignal): Promise<TerminalExitStatus> {
    const terminal = await this.terminal(terminalId);
    const aborted = new Promise<never>((_resolve, reject) => {
      const fail = () => reject(new Error('the wait was cancelled'));
      if (signal.aborted) fail();
      signal.addEventListener('abort', fail, { once: true });
    });
    return exitStatus(await Promise.race([terminal.done, aborted]));
  }

  /** Stops the command and its processes; the terminal stays for its output. */
  async kill(terminalId: string): Promise<void> {
    const terminal = await this.terminal(terminalId);
    terminal.stop.abort();
    await terminal.done;
  }

  /** Stops the command if it still runs, and forgets the terminal. */
  async release(terminalId: string): Promise<void> {
    await this.kill(terminalId);
    this.terminals.delete(terminalId);
  }

  private async terminal(terminalId: string): Promise<Terminal> {
    const terminal = this.terminals.get(terminalId);
    if (terminal === undefined) {
      throw await requestError(REFUSED, `no terminal ${terminalId} in this run (released?)`);
    }
    return terminal;
  }

  /** The call as recorded, once it ended; null while it runs. */
  private ended(terminal: Terminal): StoredToolCall | null {
    const call = this.scope.deps.store.tools.getToolCall(terminal.call.id);
    return call === undefined || call.state === 'running' ? null : call;
  }
}

/**
 * run_command's input for the agent's command: its program and arguments quoted for
 * `/bin/sh -c`, its variables set with `env` in front (so the card shows them), in its
 * folder.
 */
function terminalInput(
  params: CreateTerminalRequest,
  scope: AgentRunScope,
): { command: string; cwd?: string } {
  const assignments = (params.env ?? []).map(({ name, value }) => `${name}=${value}`);
  const args = params.args ?? [];
  // A command without arguments is a command line, as agents send `npm test`.
  const line = args.length === 0 ? params.command : commandLine([params.command, ...args]);
  const command =
    assignments.length === 0 ? line : `${commandLine(['env', ...assignments])} ${line}`;
  const cwd = params.cwd ?? undefined;
  return cwd === undefined || cwd === scope.workspace ? { command } : { command, cwd };
}

function exitStatus(call: StoredToolCall): TerminalExitStatus {
  const result = call.result as { exitCode?: number | null; signal?: string | null } | null;
  return { exitCode: result?.exitCode ?? null, signal: result?.signal ?? null };
}

/**
 * The last `limit` bytes of the file as text, starting at a character, and whether the
 * beginning was left out. A missing file is no output yet.
 */
function tailOf(path: string, limit: number): { text: string; truncated: boolean } {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return { text: '', truncated: false };
  }
  try {
    const size = fstatSync(fd).size;
    const start = Math.max(0, size - limit);
    const bytes = Buffer.alloc(size - start);
    const read = readSync(fd, bytes, 0, bytes.length, start);
    let from = 0;
    // Not in the middle of a character: skip UTF-8 continuation bytes at the cut.
    while (start > 0 && from < read && (bytes[from]! & 0xc0) === 0x80) from += 1;
    return { text: bytes.subarray(from, read).toString('utf8'), truncated: start > 0 };
  } finally {
    closeSync(fd);
  }
}
