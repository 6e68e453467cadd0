/**
 * Turns what went wrong with a model request (a provider's error, a finish reason, a
 * watchdog) into a ModelFailure: its class, a message for people, and whether a retry may
 * help. The SDK's own error classes are read in openai-sdk.ts.
 */
import type { Redactor } from '../log/index.js';
import type { ModelErrorClass, ModelFailure } from './types.js';

const RETRYABLE: Record<ModelErrorClass, boolean> = {
  timeout: true,
  rate_limit: true,
  server: true,
  network: true,
  refusal: false,
  context_too_long: false,
  bad_request: false,
  auth: false,
  // A chunk that fails the schema comes from the server's own dialect: sent again, the
  // request gets the same dialect back.
  bad_response: false,
  // The same images sent again are refused again.
  unsupported_input: false,
  aborted: false,
};

/** A failure of `errorClass`, retryable exactly when that class is. */
export function modelFailure(
  errorClass: ModelErrorClass,
  message: string,
  status?: number,
): ModelFailure {
  const failure: ModelFailure = { class: errorClass, message, retryable: RETRYABLE[errorClass] };
  if (status !== undefined) failure.status = status;
  return failure;
}

// OpenAI: code context_length_exceeded; DeepSeek: "This model's maximum context length is
// 131072 tokens. However, you requested ..."; others say "context window" or "prompt is too
// long". Kimi: "Your request exceeded model token limit: 262144"; DashScope: "Range of input
// length should be [1, 204800]"; xAI: "This model's maximum prompt length is 131072 but the
// request contains ..."; llama.cpp: "the request exceeds the available context size" (type
// exceed_context_size_error); LM Studio (MLX): "Context size has been exceeded"; Gemini:
// "The input token count (1196265) exceeds the maximum number of tokens allowed (1048575)".
const CONTEXT_TOO_LONG = new RegExp(
  [
    'context_length_exceeded',
    'exceed_context_size_error',
    'maximum context length',
    'context length',
    'context window',
    'prompt is too long',
    'exceeded model token limit',
    'range of input length should be',
    'maximum prompt length is',
    'exceeds the available context size',
    'context size has been exceeded',
    'input token count.*exceeds the maximum number of tokens',
  ].join('|'),
  'i',
);

// A model that takes no images, as its provider says: OpenAI "image_url is only supported by
// certain models", DeepSeek "unknown variant `image_url`, expected `text`", vLLM "… is not a
// multimodal model", Ollama and llama.cpp "… does not support images / image input", Groq
// and others "… vision is not supported".
const IMAGES_REFUSED = new RegExp(
  [
    'image_url is only supported',
    'unknown variant `image_url`',
    'not a multimodal model',
    'does not support (images|image input|vision|multimodal)',
    '(image input|images|vision) (is|are) not supported',
    'image input is not enabled',
  ].join('|'),
  'i',
);

/** How many characters of a chunk a `bad_response` quotes. */
const QUOTE_LIMIT = 300;

/** A chunk the stream schema refused, quoted (capped) with what was wrong with it. */
export function badResponse(problem: string, chunk: unknown): ModelFailure {
  const text = JSON.stringify(chunk) ?? String(chunk);
  const quoted =
    text.length > QUOTE_LIMIT ? `${text.slice(0, QUOTE_LIMIT)}… (${text.length} chars)` : text;
  return modelFailure('bad_response', `malformed stream chunk (${problem}): ${quoted}`);
}

/** What a provider's error says: its HTTP status (none inside a stream), code, type, words. */
interface ProviderError {
  status: number | undefined;
  code: unknown;
  type: string;
  message: string;
}

/** Classifies a provider's error, whether an HTTP answer or an error event in a stream. */
export function classifyApiError({ status, code, type, message }: ProviderError): ModelFailure {
  const codeText = typeof code === 'string' ? code : '';
  if ([codeText, type, message].some((text) => CONTEXT_TOO_LONG.test(text))) {
    return modelFailure('context_too_long', message, status);
  }
  if (IMAGES_REFUSED.test(message) && (status === undefined || status < 500)) {
    return modelFailure(
      'unsupported_input',
      `the model does not take images: ${message}. Send the image as a file it can read, or use a model that takes images (tether model set)`,
      status,
    );
  }
  // Azure refuses a prompt its content filter flags with 400 code content_filter.
  if (codeText === 'content_filter') return modelFailure('refusal', message, status);
  // An error event inside a 200 stream has no status; llama.cpp, vLLM and SGLang put the
  // status they mean in `code`. Without either, the server gave up mid-answer.
  const meant =
    status ?? (typeof code === 'number' && code >= 400 && code < 600 ? code : undefined);
  if (meant === undefined) return modelFailure('server', message);
  if (meant === 401 || meant === 403) {
    // The SDK's message starts with the status; the provider's words follow.
    const said = message.replace(/^\d{3} /, '');
    return modelFailure('auth', `authentication failed (${meant}): ${said}`, status);
  }
  if (meant === 402 || codeText === 'insufficient_quota') {
    // OpenAI reports an exhausted quota as 429 insufficient_quota: waiting does not help.
    return modelFailure('bad_request', `insufficient balance or quota: ${message}`, status);
  }
  if (meant === 408) return modelFailure('timeout', message, status);
  if (meant === 429) return modelFailure('rate_limit', message, status);
  // 409 is a lock timeout at OpenAI; like 5xx it may pass.
  if (meant === 409 || meant >= 500) return modelFailure('server', message, status);
  if (meant === 413) return modelFailure('context_too_long', message, status);
  return modelFailure('bad_request', message, status);
}

/**
 * `failure` with every secret `secrets` holds, and every token shaped like a key, masked in
 * its message: providers echo the key they refused (`Incorrect API key provided: sk-…`),
 * and the message is stored, logged and sent to every device.
 */
export function withoutSecrets(failure: ModelFailure, secrets: Redactor): ModelFailure {
  const message = secrets.foreignText(failure.message);
  return message === failure.message ? failure : { ...failure, message };
}

/**
 * The failure a finish reason stands for, or undefined when it ends a usable turn.
 * `content_filter` is a refusal; DeepSeek's `insufficient_system_resource` and `aborted`
 * are server failures worth a retry.
 */
export function finishReasonFailure(finishReason: string): ModelFailure | undefined {
  switch (finishReason) {
    case 'content_filter':
      return modelFailure('refusal', 'the provider stopped the answer with its content filter');
    case 'insufficient_system_resource':
    case 'aborted':
      return modelFailure('server', `the provider ended the answer early: ${finishReason}`);
    default:
      return undefined;
  }
}
