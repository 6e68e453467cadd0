/**
 * A failed run in words for people, from its failure code (`run.finished.error.code`,
 * protocol/failures.ts): what failed, in a sentence, and what to run on the host's computer
 * to fix it. The host's own message (`error.message`, e.g. "Connection error. (fetch
 * failed: connect ECONNREFUSED 127.0.0.1:11434) (after 5 attempts)") stays the detail.
 * Made here, from the code, so the app and `tether remote` say the same, old runs too,
 * and a newer host's new code still reads (as "The run failed.").
 */

/** A run failure as people read it. */
export interface FailureText {
  /** What failed, one sentence. */
  summary: string;
  /** What to do about it (commands to run on the host's computer), when anything helps. */
  advice: string | undefined;
}

const DOCTOR = 'tether doctor on the host checks the model server and the key';
const MODEL_SET = 'tether model set --base-url URL --model NAME';

const TEXTS: Record<string, FailureText> = {
  network: {
    summary: 'The host could not reach its model server.',
    advice: `Start the model server (or check the host's network), then Continue. ${DOCTOR}; ${MODEL_SET} points the host at another server.`,
  },
  timeout: {
    summary: 'The model server did not answer in time.',
    advice: `It may be overloaded or loading the model: Continue to try again. ${DOCTOR}.`,
  },
  rate_limit: {
    summary: 'The model provider refused more requests for now (rate limit).',
    advice: 'Wait a minute, then Continue; a higher limit comes from the provider’s plan.',
  },
  auth: {
    summary: 'The model provider refused the host’s API key.',
    advice: `Run tether model set-key on the host with a valid key, restart the host, then Continue. ${DOCTOR}.`,
  },
  bad_request: {
    summary: 'The model provider refused the request.',
    advice: `Check the model name and the account’s balance. ${DOCTOR}; ${MODEL_SET} changes the model.`,
  },
  server: {
    summary: 'The model server failed while answering.',
    advice: `This often passes: Continue in a while. If it keeps failing, ${DOCTOR}.`,
  },
  refusal: {
    summary: 'The model declined to answer (its provider’s content filter stopped it).',
    advice: undefined,
  },
  context_too_long: {
    summary: 'The conversation is too long for the model.',
    advice: `Start a new task, or use a model with a larger context (${MODEL_SET}).`,
  },
  bad_response: {
    summary: 'The model server sent an answer the host could not read.',
    advice: `The server may not speak the OpenAI-compatible format in full. ${DOCTOR}; ${MODEL_SET} points the host at another server.`,
  },
  unsupported_input: {
    summary: 'The model does not take images.',
    advice: `Send the task without them, or use a model that takes images (${MODEL_SET}).`,
  },
  model_not_configured: {
    summary: 'The host has no model set up.',
    advice: `Run ${MODEL_SET} on the host (then tether doctor), restart it, then Continue.`,
  },
  budget_exhausted: {
    summary: 'The run used all the model turns it may take.',
    advice: 'Continue starts a new run that picks up from here.',
  },
  wall_time_exceeded: {
    summary: 'The run went on longer than its time limit.',
    advice: 'Continue starts a new run that picks up from here.',
  },
  context_too_large: {
    summary: 'No request within the model’s context could be built.',
    advice: undefined,
  },
  cancelled: { summary: 'The run was stopped before it could finish.', advice: undefined },
  agent_failed: { summary: 'The agent failed.', advice: undefined },
  internal: {
    summary: 'The host hit an internal error.',
    advice: 'Continue to try again; the host’s log has the details (tether service logs).',
  },
};

/** `error` of a failed run in words; "The run failed." for a code this app does not know. */
export function failureText(error: { code: string; message: string } | null): FailureText {
  if (error === null) return { summary: 'The run failed.', advice: undefined };
  return Object.hasOwn(TEXTS, error.code)
    ? TEXTS[error.code]!
    : { summary: 'The run failed.', advice: undefined };
}
