/**
 * Speech to text through an OpenAI-compatible `POST {baseUrl}/audio/transcriptions`
 * (OpenAI, Groq, a local whisper.cpp server), for `voice.transcribe` (docs/voice.md). A
 * failure is data, classified and masked like a chat request's (error-classes.ts).
 */
import { z } from 'zod';
import { Redactor } from '../log/index.js';
import { modelFailure, withoutSecrets } from './error-classes.js';
import type { ModelFailure } from './types.js';

/** How long one transcription may take, the upload of the audio included. */
const TRANSCRIPTION_TIMEOUT_MS = 120_000;

/** The endpoint and the model that transcribe. */
export interface TranscriptionEndpoint {
  baseUrl: string;
  model: string;
  /** Secret: sent as the bearer token, masked in every failure's message. */
  apiKey?: string;
  /** The language spoken (ISO 639-1) when the request names none; else detected. */
  language?: string;
  /** Default 120 s. */
  timeoutMs?: number;
  secrets?: Redactor;
}

/** A recording to transcribe. */
export interface AudioFile {
  bytes: Uint8Array;
  name: string;
  mediaType: string;
}

export type TranscriptionResult =
  { type: 'transcribed'; text: string } | { type: 'failed'; error: ModelFailure };

export interface Transcriber {
  /** Sends `file`; never throws for the endpoint's failures. */
  transcribe(
    file: AudioFile,
    options: { language?: string; signal?: AbortSignal },
  ): Promise<TranscriptionResult>;
}

const TranscriptionAnswer = z.looseObject({ text: z.string() });

export function createTranscriber(endpoint: TranscriptionEndpoint): Transcriber {
  const secrets = endpoint.secrets ?? new Redactor();
  if (endpoint.apiKey !== undefined) secrets.register(endpoint.apiKey);
  return {
    async transcribe(file, options) {
      // The SDK is loaded at the first recording, as the chat adapter loads it at its first turn.
      const sdk = await import('./openai-sdk.js');
      const client = sdk.openAIClient(endpoint, endpoint.timeoutMs ?? TRANSCRIPTION_TIMEOUT_MS);
      const language = options.language ?? endpoint.language;
      let answer: unknown;
      try {
        answer = await client.audio.transcriptions.create(
          {
            file: await sdk.toFile(file.bytes, file.name, { type: file.mediaType }),
            model: endpoint.model,
            response_format: 'json',
            ...(language === undefined ? {} : { language }),
          },
          options.signal === undefined ? {} : { signal: options.signal },
        );
      } catch (error) {
        return { type: 'failed', error: withoutSecrets(sdk.classifyError(error), secrets) };
      }
      const parsed = TranscriptionAnswer.safeParse(answer);
      if (!parsed.success) {
        const quoted = JSON.stringify(answer)?.slice(0, 300) ?? String(answer);
        return {
          type: 'failed',
          error: withoutSecrets(
            modelFailure('bad_response', `the endpoint answered without a text: ${quoted}`),
            secrets,
          ),
        };
      }
      return { type: 'transcribed', text: parsed.data.text.trim() };
    },
  };
}
