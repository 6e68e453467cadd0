/**
 * How an agent's turn ended, said as the run's end: the agent's stop reason (`end_turn`
 * succeeds, `refusal` and the turn limits fail), or its exit, a broken connection, a
 * cancel it did not answer in time; and the usage its answer gave. Also the bounded waits
 * of a turn: for setup, for the stop reason after `session/cancel`.
 */
import type { PromptResponse } from '@agentclientprotocol/sdk';
import { errorMessage, type RunFailure } from '../../protocol/index.js';

/** How long an agent has to answer initialize and session/new or session/load. */
export const AGENT_SETUP_MS = 60_000;
/** After `session/cancel`, how long the agent has to answer the prompt with its stop reason. */
export const CANCEL_WAIT_MS = 5_000;

/** How the turn ended: the agent's stop reason, or why there was none. */
export type TurnEnd =
  | { kind: 'stopped'; response: PromptResponse }
  | { kind: 'exited'; code: number | null; signal: string | null }
  | { kind: 'error'; message: string }
  | { kind: 'auth_required'; message: string }
  | { kind: 'cancel_timeout' };

/** ACP's error code for "Authentication required" (the agent has no login). */
const AUTH_REQUIRED = -32000;

/** The end of a request that failed with `error`: a missing login, or an error. */
export function requestFailed(error: unknown): TurnEnd {
  const code =
    typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return {
    kind: code === AUTH_REQUIRED ? 'auth_required' : 'error',
    message: errorMessage(error),
  };
}

/** A promise of `ms` that resolves with `end`, and its timer to clear. */
function after<T>(ms: number, end: T): { late: Promise<T>; clear(): void } {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<T>((resolve) => {
    timer = setTimeout(() => resolve(end), ms);
  });
  return { late, clear: () => clearTimeout(timer) };
}

/** The first of `ends`, or `otherwise` after `ms`. */
export async function firstEnd<T>(
  ends: readonly Promise<T>[],
  ms: number,
  otherwise: T,
): Promise<T> {
  const wait = after(ms, otherwise);
  try {
    return await Promise.race([...ends, wait.late]);
  } finally {
    wait.clear();
  }
}

/**
 * `work` raced against the agent's exit, `ms` and `signal`: its value, or the end that
 * came first.
 */
export function raceWork<T>(
  work: Promise<T>,
  exited: Promise<TurnEnd>,
  ms: number,
  signal: AbortSignal,
): Promise<{ kind: 'done'; value: T } | TurnEnd> {
  const stopped = new Promise<TurnEnd>((resolve) => {
    signal.addEventListener('abort', () => resolve({ kind: 'error', message: 'stopped' }), {
      once: true,
    });
  });
  const done = work.then(
    (value) => ({ kind: 'done' as const, value }),
    (error: unknown) => requestFailed(error),
  );
  return firstEnd<{ kind: 'done'; value: T } | TurnEnd>([done, exited, stopped], ms, {
    kind: 'error',
    message: `no answer within ${ms / 1000} s`,
  });
}

/**
 * A connection that closed under a request is the agent exiting, most often: its exit
 * (which may come a moment after) says more than the closed connection.
 */
export function exitOf(end: TurnEnd, exited: Promise<TurnEnd>): Promise<TurnEnd> {
  if (end.kind !== 'error') return Promise.resolve(end);
  return firstEnd([exited], 2_000, end);
}

/** A login the agent offers (ACP's `authMethods` of its initialize answer). */
export interface AuthMethodOffered {
  name: string;
  description?: string | null;
}

/**
 * What went wrong in a turn of the agent `name` that did not end with a stop reason
 * (`when`: "while it started", "mid-turn"), with its last stderr lines; unmasked. A missing
 * login names the logins the agent offers instead: it is not a crash.
 */
export function turnEndMessage(
  name: string,
  end: TurnEnd,
  when: string,
  stderrTail: readonly string[],
  logins: readonly AuthMethodOffered[] = [],
): string {
  if (end.kind === 'auth_required') {
    const offered = logins
      .map((login) => (login.description ? `${login.name} (${login.description})` : login.name))
      .join('; ');
    return (
      `the agent ${name} is not logged in (${end.message})` +
      (offered === '' ? '' : `; it offers: ${offered}`) +
      `. Log in to it on this machine as its own docs say, keep its login in a folder named in agents.${name}.writable (docs/agents.md), then submit again`
    );
  }
  const said =
    stderrTail.length === 0 ? '' : `; its last lines on stderr:\n${stderrTail.join('\n')}`;
  let what: string;
  switch (end.kind) {
    case 'exited':
      what = `the agent ${name} exited ${when} (${end.signal === null ? `code ${end.code}` : end.signal})`;
      break;
    case 'error':
      what = `the agent ${name} failed ${when}: ${end.message}`;
      break;
    case 'cancel_timeout':
      what = `the agent ${name} did not stop within ${CANCEL_WAIT_MS / 1000} s of session/cancel`;
      break;
    case 'stopped':
      what = `the agent ${name} stopped: ${end.response.stopReason}`;
  }
  return what + said;
}

/** True when the end means the agent died (its calls in flight are then `unknown`). */
export function crashed(end: TurnEnd): boolean {
  return end.kind === 'exited' || end.kind === 'error';
}

/**
 * The failure of the stop reason of the agent `name`: null for `end_turn`, `stopped` for
 * `cancelled` (the run was stopped), else a failure that names it.
 */
export function stopReasonFailure(
  name: string,
  response: PromptResponse,
): RunFailure | 'stopped' | null {
  switch (response.stopReason) {
    case 'end_turn':
      return null;
    case 'cancelled':
      return 'stopped';
    case 'refusal':
      return { code: 'refusal', message: `the agent ${name} refused to go on` };
    default:
      return {
        code: 'budget_exhausted',
        message: `the agent ${name} stopped: ${response.stopReason}`,
      };
  }
}

/** ACP's `usage` on the prompt's answer (where the agent gives it) as token counts. */
export function usageOf(
  response: PromptResponse,
): { promptTokens?: number; completionTokens?: number } | null {
  const usage = (response as { usage?: Record<string, unknown> }).usage;
  if (typeof usage !== 'object' || usage === null) return null;
  const count = (key: string) => (typeof usage[key] === 'number' ? usage[key] : undefined);
  const promptTokens = count('inputTokens');
  const completionTokens = count('outputTokens');
  if (promptTokens === undefined && completionTokens === undefined) return null;
  return {
    ...(promptTokens === undefined ? {} : { promptTokens }),
    ...(completionTokens === undefined ? {} : { completionTokens }),
  };
}
