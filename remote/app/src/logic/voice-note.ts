/**
 * The words and choices of the composer's microphone (docs/voice.md): which recording type
 * the browser makes, the media type the host is told, the timer's text, the text box with
 * a transcript added, and what each failure tells the user to do.
 */

/** What MediaRecorder is asked for, in order: Opus in WebM (Chromium), AAC in MP4 (Safari). */
const RECORDING_TYPES = [
  'audio/webm;codecs=opus',
  'audio/webm',
  'audio/mp4',
  'audio/ogg;codecs=opus',
];

/** The first type `isSupported` takes, or undefined to let the browser choose. */
export function recordingType(isSupported: (type: string) => boolean): string | undefined {
  return RECORDING_TYPES.find((type) => isSupported(type));
}

/** A recorder's MIME type as the host takes a media type: `audio/webm;codecs=opus` → `audio/webm`. */
export function uploadMediaType(recorderType: string): string {
  return recorderType.split(';')[0]!.trim().toLowerCase();
}

/** The recording's file name, by its type (`voice-note.webm`, `voice-note.m4a`). */
export function recordingName(mediaType: string): string {
  const extension: Record<string, string> = {
    'audio/webm': 'webm',
    'audio/mp4': 'm4a',
    'audio/ogg': 'ogg',
    'audio/mpeg': 'mp3',
    'audio/wav': 'wav',
  };
  return `voice-note.${extension[mediaType] ?? 'audio'}`;
}

/** `m:ss` of a recording `ms` long. */
export function elapsedText(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

/** The text box with `transcript` added: after what is there, on a line of its own. */
export function withTranscript(current: string, transcript: string): string {
  const said = transcript.trim();
  if (said === '') return current;
  const before = current.trimEnd();
  return before === '' ? said : `${before}\n${said}`;
}

/** Why the microphone cannot be used, from getUserMedia's error name, in words. */
export function microphoneProblem(errorName: string): string {
  switch (errorName) {
    case 'NotAllowedError':
    case 'SecurityError':
      return 'Microphone access was denied. Allow it for this site in the browser’s settings (on iPhone: Settings › Safari › Microphone), then try again.';
    case 'NotFoundError':
    case 'OverconstrainedError':
      return 'No microphone was found on this device.';
    case 'NotReadableError':
    case 'AbortError':
      return 'The microphone is in use by another app, or could not start. Try again.';
    default:
      return `The microphone could not start (${errorName}).`;
  }
}

/** Said when the page cannot record at all: no MediaRecorder or no secure context. */
export const CANNOT_RECORD =
  'This browser cannot record here: recording needs the app over HTTPS (tether start --https or --tailscale) and a browser with MediaRecorder.';

/** Said when the host has no transcription endpoint. */
export function notConfigured(hostLabel: string): string {
  return `${hostLabel} has no speech-to-text endpoint. On that computer run: tether voice set --base-url https://api.openai.com/v1 --model whisper-1 --key-stdin (or a local whisper.cpp server), then restart it.`;
}
