/**
 * The microphone, recorded: MediaRecorder in the type the browser makes best (Opus in WebM
 * on Chromium, AAC in MP4 on Safari: logic/voice-note.ts), and an AnalyserNode on the same
 * stream for the level meter. The tracks stop (the browser's recording light goes off)
 * as soon as the recording is stopped or thrown away.
 */
import { recordingType } from '../logic/voice-note.js';

export interface VoiceRecording {
  /** How loud it is now, 0 to 1. */
  level(): number;
  /** Ends the recording; resolves with its audio and the recorder's MIME type. */
  stop(): Promise<Blob>;
  /** Ends it and throws the audio away. */
  cancel(): void;
}

/** Whether this page can record at all (a secure context with MediaRecorder). */
export function canRecord(): boolean {
  return typeof MediaRecorder !== 'undefined' && navigator.mediaDevices?.getUserMedia !== undefined;
}

/**
 * Asks for the microphone and starts recording. Rejects with getUserMedia's DOMException
 * (`NotAllowedError` when the user or the browser refused).
 */
export async function startRecording(): Promise<VoiceRecording> {
  const stream = await navigator.mediaDevices.getUserMedia({ audio: true });
  const type = recordingType((candidate) => MediaRecorder.isTypeSupported(candidate));
  const recorder = new MediaRecorder(stream, type === undefined ? {} : { mimeType: type });
  const chunks: Blob[] = [];
  recorder.ondataavailable = (event) => {
    if (event.data.size > 0) chunks.push(event.data);
  };
  const context = new AudioContext();
  const analyser = context.createAnalyser();
  analyser.fftSize = 512;
  context.createMediaStreamSource(stream).connect(analyser);
  void context.resume();
  const samples = new Uint8Array(analyser.fftSize);
  const release = () => {
    for (const track of stream.getTracks()) track.stop();
    void context.close();
  };
  // A chunk a second: a recording stopped by the page going away still has most of it.
  recorder.start(1000);
  return {
    level() {
      analyser.getByteTimeDomainData(samples);
      let sum = 0;
      for (const sample of samples) sum += ((sample - 128) / 128) ** 2;
      return Math.min(1, Math.sqrt(sum / samples.length) * 4);
    },
    stop() {
      return new Promise((resolve) => {
        recorder.onstop = () => {
          release();
          resolve(new Blob(chunks, { type: recorder.mimeType || type || 'audio/webm' }));
        };
        recorder.stop();
      });
    },
    cancel() {
      recorder.onstop = null;
      if (recorder.state !== 'inactive') recorder.stop();
      release();
    },
  };
}
