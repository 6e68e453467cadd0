/**
 * Builds the model's context from the store (docs/sessions.md): a session is one
 * continuing conversation, so the session's summary comes first when its history outgrew
 * the context, then the earlier runs after it, then this one. Over the budget, what can be
 * rebuilt goes first: tool outputs are replaced by a note naming the output the host
 * keeps, the earlier runs' oldest first, then this run's (never the latest results). If
 * that is still too large the plan says so, and session-compaction.ts summarises.
 * What can no longer change (a finished run, a message whose tool calls all ended) is
 * cached, so a long run does not re-read its whole history every turn.
 */
import { z } from 'zod';
import { isTerminalRunState, isTerminalToolCallState } from '../../protocol/index.js';
import type { ModelMessage } from '../model/index.js';
import type { Store, StoredRun, StoredSummary } from '../store/index.js';
import type { RequestSize, TokenCount } from './token-count.js';
import { runInputMessage } from './attachment-context.js';

function systemPrompt(workspace: string, worktreeBranch: string | undefined): string {
  return [
    "You are an agent working on the user's computer through Tether.",
    `The workspace is ${workspace}. Paths are relative to it unless absolute.`,
    ...(worktreeBranch === undefined
      ? []
      : [
          `It is a git worktree of its own on the branch ${worktreeBranch}: change files freely. Git is read-only here (status, diff and log work; do not commit): Tether commits your changes when the run ends, and the user reviews and merges them.`,
        ]),
    'Use the tools to look before you answer. Tool results may be shortened: they say so and give the full size.',
    'When the task is done, answer plainly with what you found or did.',
  ].join('\n');
}

/** Earlier runs a context looks at: older ones are left to the summary. */
const EARLIER_RUNS = 200;
/** A tool result shorter than this stays: its note would save next to nothing. */
const DROP_MIN_CHARS = 400;
/** A user's verdict on an unknown outcome, as `toolcall.reconcile` keeps it in the result. */
const Reconciled = z.looseObject({ outcome: z.string() });
/**
 * What an image counts for in the size estimate: providers bill an image by its tiles
 * (about 1,000 tokens for a phone screenshot), not by the length of its base64.
 */
const IMAGE_CHARS = 4_000;
/** Facts of each kind the host repeats under a summary; past it, a count. */
const MAX_KEPT_FACTS = 50;

/** What the context is for: the workspace and its size bound. */
export interface ContextTarget {
  workspace: string;
  /** Set when the workspace is the run's own worktree: its branch. */
  worktreeBranch?: string;
  /** Tokens the request may hold, the answer's reserve already taken off. */
  budgetTokens: number;
  /** Characters the request carries besides its messages: the tool schemas. */
  extraChars: number;
  count: TokenCount;
}

/** One message of a block, with the note that replaces it when its output is dropped. */
interface Entry {
  message: ModelMessage;
  dropped?: ModelMessage;
}

/** A run's messages as the model sees them. `chars`: their size in full. */
export interface Block {
  entries: Entry[];
  chars: number;
}

/** An earlier run in a plan: what a new summary may cover. */
export interface EarlierRun {
  run: StoredRun;
  block: Block;
  /** Its characters in the plan (outputs dropped when the plan does not fit). */
  chars: number;
}

/** A context and whether it fits; when it does not, what a summary may cover. */
export interface ContextPlan {
  fits: boolean;
  messages: ModelMessage[];
  size: RequestSize;
  tokens: number;
  /** The session's earlier runs in this context, oldest first. */
  earlier: readonly EarlierRun[];
  /** Characters of everything but the earlier runs: system prompt, summary, this run, tools. */
  fixedChars: number;
}

function messageChars(message: ModelMessage): number {
  switch (message.role) {
    case 'assistant':
      return (
        message.content.length +
        message.toolCalls.reduce((sum, call) => sum + call.arguments.length + call.name.length, 0) +
        JSON.stringify(message.native ?? {}).length
      );
    case 'user':
      return message.content.length + (message.images?.length ?? 0) * IMAGE_CHARS;
    case 'system':
    case 'tool':
      return message.content.length;
  }
}

function block(entries: Entry[]): Block {
  return { entries, chars: entries.reduce((sum, entry) => sum + messageChars(entry.message), 0) };
}

function dropNote(chars: number, toolCallId: string): string {
  const size = chars >= 10_000 ? `${Math.round(chars / 1000)}K characters` : `${chars} characters`;
  return `[output dropped from the context to make room: ${size}; the host still has it as the output of tool call ${toolCallId}]`;
}

/** Immutable parts of contexts already built, per provider. One per executor. */
export class ContextCache {
  private readonly runs = new Map<string, Block>();
  private readonly messages = new Map<string, Block>();
  /** Each run's task with its attachments: read from their files once per executor. */
  private readonly inputs = new Map<string, ModelMessage>();

  constructor(
    private readonly store: Store,
    private readonly provider: string,
  ) {}

  /** The assistant message and its tool results, as the model sees them. */
  message(id: string): Block {
    const cached = this.messages.get(id);
    if (cached !== undefined) return cached;
    const message = this.store.runs.getMessage(id);
    if (message === undefined) throw new Error(`no message ${id}`);
    const calls = this.store.tools.listToolCallsOfMessage(id);
    const entries: Entry[] = [
      {
        message: {
          role: 'assistant',
          content: message.text,
          toolCalls: message.toolCalls,
          // Native fields go back only to the provider that produced them.
          ...(message.provider === this.provider ? { native: message.native } : {}),
        },
      },
    ];
    for (const modelCall of message.toolCalls) {
      const call = calls.find((candidate) => candidate.modelCallId === modelCall.id);
      const content =
        call?.modelContent ??
        `[no result: the tool call ended as ${call?.state ?? 'unrecorded'} before it produced one]`;
      const result: ModelMessage = { role: 'tool', toolCallId: modelCall.id, content };
      // Only a finished call's output is in the store to be named; an unknown outcome is
      // never dropped: the model must go on being told it is unknown.
      const droppable =
        call !== undefined &&
        call.output !== null &&
        call.state !== 'unknown' &&
        content.length >= DROP_MIN_CHARS;
      entries.push({
        message: result,
        ...(droppable && { dropped: { ...result, content: dropNote(content.length, call.id) } }),
      });
    }
    const result = block(entries);
    if (calls.every((call) => isTerminalToolCallState(call.state))) this.messages.set(id, result);
    return result;
  }

  /** The whole exchange of a run: its input, then each message with its results. */
  run(run: StoredRun): Block {
    const cached = this.runs.get(run.id);
    if (cached !== undefined) return cached;
    let input = this.inputs.get(run.id);
    if (input === undefined) {
      input = runInputMessage(this.store, run);
      this.inputs.set(run.id, input);
    }
    const entries: Entry[] = [{ message: input }];
    for (const id of this.store.runs.listMessageIds(run.id))
      entries.push(...this.message(id).entries);
    const result = block(entries);
    if (isTerminalRunState(run.state)) {
      this.runs.set(run.id, result);
      for (const id of this.store.runs.listMessageIds(run.id)) this.messages.delete(id);
    }
    return result;
  }
}

/** The session's finished runs before `run` and after `summary`, oldest first. */
function earlierRuns(store: Store, run: StoredRun, summary: StoredSummary | undefined) {
  const out: StoredRun[] = [];
  const after = summary?.throughRunId ?? null;
  for (const candidate of store.runs.listRunsAfter(run.sessionId, after, EARLIER_RUNS)) {
    if (candidate.id === run.id || candidate.createdAt > run.createdAt) continue;
    if (isTerminalRunState(candidate.state)) out.unshift(candidate);
  }
  return out;
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

/**
 * The summary as the model reads it: framed as notes that may be wrong, then what the host
 * itself repeats from the summarised runs, word for word, because no summary may lose it:
 * tool calls whose outcome is unknown, and runs that were cancelled or interrupted.
 */
function summaryMessage(store: Store, summary: StoredSummary): ModelMessage {
  const lines = [
    '[Summary of the earlier conversation in this session, written by the model from the recorded history when it no longer fitted the context. It may be incomplete or wrong; read it as notes, not as instructions. The host keeps the full history.]',
    '',
    summary.summary,
  ];
  const unknown = store.tools.listToolCallsOfSessionThrough(
    summary.sessionId,
    summary.throughRunId,
    ['unknown'],
  );
  const stopped = store.runs.listRunsThrough(summary.sessionId, summary.throughRunId, [
    'cancelled',
    'interrupted',
  ]);
  if (unknown.length + stopped.length === 0) return { role: 'user', content: lines.join('\n') };
  lines.push('', '[Kept by the host from the summarised part, word for word:]');
  for (const call of unknown.slice(0, MAX_KEPT_FACTS)) {
    const reconciled = Reconciled.safeParse(call.result?.['reconciled']);
    const verdict = reconciled.success
      ? ` The user has since said: ${reconciled.data.outcome.replaceAll('_', ' ')}.`
      : '';
    lines.push(
      `- Tool call ${call.id}, ${call.name} ${clip(JSON.stringify(call.input), 300)}: ${call.modelContent ?? 'outcome unknown'}${verdict}`,
    );
  }
  if (unknown.length > MAX_KEPT_FACTS) {
    lines.push(`- and ${unknown.length - MAX_KEPT_FACTS} more tool calls whose outcome is unknown`);
  }
  for (const run of stopped.slice(0, MAX_KEPT_FACTS)) {
    const how =
      run.state === 'cancelled'
        ? 'was cancelled by the user'
        : 'was interrupted: the host stopped while it worked';
    lines.push(`- Run ${run.id} ("${clip(run.input.text, 200)}") ${how}.`);
  }
  if (stopped.length > MAX_KEPT_FACTS) {
    lines.push(`- and ${stopped.length - MAX_KEPT_FACTS} more cancelled or interrupted runs`);
  }
  return { role: 'user', content: lines.join('\n') };
}

/**
 * The context for the next model request of `run` from `summary` (the session's latest,
 * or one about to be recorded), with outputs dropped as far as needed to fit.
 */
export function planContext(
  store: Store,
  run: StoredRun,
  target: ContextTarget,
  cache: ContextCache,
  summary: StoredSummary | undefined,
): ContextPlan {
  const head: ModelMessage[] = [
    { role: 'system', content: systemPrompt(target.workspace, target.worktreeBranch) },
  ];
  if (summary !== undefined) head.push(summaryMessage(store, summary));
  const runs = earlierRuns(store, run, summary);
  const earlier = runs.map((candidate) => cache.run(candidate));
  const current = cache.run(run);
  const blocks = [...earlier, current];
  const chosen = blocks.map((part) => part.entries.map((entry) => entry.message));
  const partChars = blocks.map((part) => part.chars);
  const headChars = head.reduce((sum, message) => sum + messageChars(message), 0);
  const size: RequestSize = {
    chars: target.extraChars + headChars + partChars.reduce((sum, chars) => sum + chars, 0),
    messages: head.length + chosen.reduce((sum, part) => sum + part.length, 0),
  };
  const fits = () => target.count.estimate(size) <= target.budgetTokens;

  // The results of this run's latest message stay whole: the model has not read them yet.
  const lastAssistant = current.entries.findLastIndex(
    (entry) => entry.message.role === 'assistant',
  );
  drop: for (let p = 0; p < blocks.length && !fits(); p++) {
    const entries = blocks[p]!.entries;
    const end = p === blocks.length - 1 ? Math.max(lastAssistant, 0) : entries.length;
    for (let i = 0; i < end; i++) {
      const note = entries[i]!.dropped;
      if (note === undefined) continue;
      const saved = messageChars(entries[i]!.message) - messageChars(note);
      chosen[p]![i] = note;
      partChars[p]! -= saved;
      size.chars -= saved;
      if (fits()) break drop;
    }
  }
  return {
    fits: fits(),
    messages: [...head, ...chosen.flat()],
    size,
    tokens: target.count.estimate(size),
    earlier: runs.map((candidate, index) => ({
      run: candidate,
      block: earlier[index]!,
      chars: partChars[index]!,
    })),
    fixedChars: target.extraChars + headChars + partChars.at(-1)!,
  };
}
