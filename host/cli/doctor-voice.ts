/**
 * The `voice` check of `tether doctor`, warn-only: whether a transcription endpoint is set
 * (the phone's microphone button needs one), and whether it answers with the stored key.
 * Nothing is transcribed: the check asks `GET /models`, which OpenAI and Groq answer; a
 * server that lists no models (whisper.cpp) answered, which is what can be checked.
 */
import type { HostConfig } from '../config/index.js';
import { describeNetworkFailure, tetherCommand } from '../../common/cli/index.js';
import { pass, type CheckResult } from './doctor-checks.js';

const warn = (detail: string, fix: string): CheckResult => ({
  id: 'voice',
  status: 'warn',
  detail,
  fix,
});

export async function checkVoice(config: HostConfig, signal: AbortSignal): Promise<CheckResult> {
  const voice = config.voice;
  if (voice === null) {
    return {
      id: 'voice',
      status: 'skip',
      detail: 'no transcription endpoint: the phone’s microphone button says how to set one',
      fix: `${tetherCommand()} voice set --base-url https://api.openai.com/v1 --model whisper-1 --key-stdin (or a local whisper.cpp server), then restart the host`,
    };
  }
  const url = `${voice.baseUrl.replace(/\/+$/, '')}/models`;
  let response: Response;
  try {
    response = await fetch(url, {
      headers: voice.apiKey === undefined ? {} : { authorization: `Bearer ${voice.apiKey}` },
      signal: AbortSignal.any([signal, AbortSignal.timeout(10_000)]),
    });
    await response.body?.cancel();
  } catch (error) {
    return warn(
      describeNetworkFailure(voice.baseUrl, error, { server: 'the transcription server' }),
      `start the transcription server there, or ${tetherCommand()} voice set --base-url URL`,
    );
  }
  if (response.status === 401 || response.status === 403) {
    return warn(
      `${voice.baseUrl} refused the transcription key (HTTP ${response.status})`,
      `${tetherCommand()} voice set --key-stdin, then restart the host`,
    );
  }
  if (response.status >= 500) {
    return warn(
      `${voice.baseUrl} answered HTTP ${response.status} to GET /models`,
      `check the endpoint: ${tetherCommand()} voice show`,
    );
  }
  return pass('voice', `${voice.model} at ${voice.baseUrl} answers`);
}
