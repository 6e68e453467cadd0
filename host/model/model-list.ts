/**
 * What an endpoint offers: `GET /models`, read the way every provider answers it
 * (OpenAI's `{data: [{id, owned_by}]}`; Ollama, llama.cpp, vLLM and LM Studio the same;
 * Gemini's ids prefixed `models/`). A failure is data, classified and masked like a chat
 * request's.
 */
import { z } from 'zod';
import { Redactor } from '../log/index.js';
import { withoutSecrets } from './error-classes.js';
import type { ModelFailure } from './types.js';

/** One model an endpoint offers. */
export interface OfferedModel {
  id: string;
  ownedBy?: string;
}

/** The models an endpoint offers, or why it could not say. */
export type ModelListResult =
  { type: 'listed'; models: OfferedModel[] } | { type: 'failed'; error: ModelFailure };

const modelEntrySchema = z.looseObject({ id: z.string(), owned_by: z.string().nullish() });

/** Asks `baseUrl` for its models. Never throws for the endpoint's failures. */
export async function listModels(
  endpoint: { baseUrl: string; apiKey?: string; secrets?: Redactor },
  signal: AbortSignal,
): Promise<ModelListResult> {
  const secrets = endpoint.secrets ?? new Redactor();
  if (endpoint.apiKey !== undefined) secrets.register(endpoint.apiKey);
  const sdk = await import('./openai-sdk.js');
  const client = sdk.openAIClient(endpoint, 30_000);
  try {
    const models: OfferedModel[] = [];
    for await (const entry of client.models.list({ signal })) {
      const parsed = modelEntrySchema.safeParse(entry);
      if (!parsed.success) continue;
      const { id, owned_by: ownedBy } = parsed.data;
      models.push({ id: id.replace(/^models\//, ''), ...(ownedBy ? { ownedBy } : {}) });
    }
    return { type: 'listed', models };
  } catch (error) {
    return { type: 'failed', error: withoutSecrets(sdk.classifyError(error), secrets) };
  }
}
