/**
 * A recording made text by the host (docs/voice.md): uploaded as an attachment through the
 * outbox (remote/client's uploadAttachment, resumed if the host has some of it), then
 * `voice.transcribe`. Resolves with the text; rejects with the host's error.
 */
import { z } from 'zod/mini';
import { outgoingAttachment, uploadAttachment } from '#client';
import { recordingName, uploadMediaType } from '../logic/voice-note.js';
import type { HostView } from '../state/app-view.js';

const Transcript = z.looseObject({ text: z.string() });
const VoiceInfo = z.looseObject({
  voice: z.optional(z.looseObject({ configured: z.boolean() })),
});

/** Whether `host` has a transcription endpoint (`host.info.voice.configured`). */
export function voiceConfigured(host: HostView): boolean {
  const info = VoiceInfo.safeParse(host.info);
  return info.success && info.data.voice?.configured === true;
}

export function useTranscribe(host: HostView): (recording: Blob) => Promise<string> {
  return async (recording) => {
    const mediaType = uploadMediaType(recording.type);
    const file = outgoingAttachment(
      new Uint8Array(await recording.arrayBuffer()),
      recordingName(mediaType),
      mediaType,
      host.connection.deviceId,
    );
    await uploadAttachment(host.connection, file);
    const answer = await host.connection.submit('voice.transcribe', {
      attachmentId: file.attachmentId,
    });
    return Transcript.parse(answer).text;
  };
}
