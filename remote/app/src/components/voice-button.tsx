/**
 * The composer's microphone (docs/voice.md), a lazy chunk: tap to record, with the level
 * and the time shown; Stop sends the recording to the host, which has it transcribed, and
 * the text is added to the text box for the user to read and edit. Nothing is sent to a
 * model. Without an endpoint on the host, or a microphone the page may use, it says why
 * and what to do.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { canRecord, startRecording, type VoiceRecording } from '../device/voice-recorder.js';
import { useTranscribe, voiceConfigured } from '../hooks/use-transcribe.js';
import {
  CANNOT_RECORD,
  elapsedText,
  microphoneProblem,
  notConfigured,
} from '../logic/voice-note.js';
import type { HostView } from '../state/app-view.js';

/** A recording stops by itself after this long (a few MB: within any attachment bound). */
const MAX_RECORDING_MS = 5 * 60 * 1000;

type Phase =
  | { kind: 'idle' }
  | { kind: 'starting' }
  | { kind: 'recording'; recording: VoiceRecording; startedAt: number }
  | { kind: 'sending' }
  | { kind: 'said'; message: string; retry?: Blob };

export function VoiceButton({
  host,
  onText,
}: {
  host: HostView;
  /** Called with the transcript; the composer adds it to its text. */
  onText: (text: string) => void;
}) {
  const [phase, setPhase] = useState<Phase>({ kind: 'idle' });
  const [meter, setMeter] = useState({ level: 0, elapsedMs: 0 });
  const transcribe = useTranscribe(host);
  const current = useRef(phase);
  current.current = phase;

  // Whatever is recording stops when the composer goes away.
  useEffect(
    () => () => {
      const now = current.current;
      if (now.kind === 'recording') now.recording.cancel();
    },
    [],
  );

  const send = async (audio: Blob) => {
    setPhase({ kind: 'sending' });
    try {
      onText(await transcribe(audio));
      setPhase({ kind: 'idle' });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      setPhase({ kind: 'said', message: `Not transcribed: ${message}`, retry: audio });
    }
  };

  const stop = async () => {
    const now = current.current;
    if (now.kind !== 'recording') return;
    const audio = await now.recording.stop();
    await send(audio);
  };

  useEffect(() => {
    if (phase.kind !== 'recording') return;
    let frame = 0;
    const tick = () => {
      const elapsedMs = Date.now() - phase.startedAt;
      setMeter({ level: phase.recording.level(), elapsedMs });
      if (elapsedMs >= MAX_RECORDING_MS) {
        void stop();
        return;
      }
      frame = requestAnimationFrame(tick);
    };
    frame = requestAnimationFrame(tick);
    return () => cancelAnimationFrame(frame);
  }, [phase]);

  const record = async () => {
    if (!voiceConfigured(host)) {
      setPhase({ kind: 'said', message: notConfigured(host.label) });
      return;
    }
    if (!canRecord()) {
      setPhase({ kind: 'said', message: CANNOT_RECORD });
      return;
    }
    setPhase({ kind: 'starting' });
    try {
      const recording = await startRecording();
      setMeter({ level: 0, elapsedMs: 0 });
      setPhase({ kind: 'recording', recording, startedAt: Date.now() });
    } catch (error) {
      const name = error instanceof Error ? error.name : 'Error';
      setPhase({ kind: 'said', message: microphoneProblem(name) });
    }
  };

  if (phase.kind === 'recording') {
    return (
      <span class="voice-recording" data-testid="voice-recording">
        <span class="voice-meter" aria-hidden="true">
          <span
            data-testid="voice-level"
            data-level={meter.level.toFixed(2)}
            style={{ width: `${Math.round(meter.level * 100)}%` }}
          />
        </span>
        <span class="voice-timer" data-testid="voice-timer" role="timer">
          {elapsedText(meter.elapsedMs)}
        </span>
        <button
          type="button"
          class="button small"
          data-testid="voice-cancel"
          aria-label="Discard the recording"
          onClick={() => {
            phase.recording.cancel();
            setPhase({ kind: 'idle' });
          }}
        >
          ✕
        </button>
        <button
          type="button"
          class="button primary small"
          data-testid="voice-stop"
          onClick={() => void stop()}
        >
          Stop
        </button>
      </span>
    );
  }
  const busy = phase.kind === 'starting' || phase.kind === 'sending';
  return (
    <>
      <button
        type="button"
        class="button voice-button"
        data-testid="voice-button"
        data-state={phase.kind}
        disabled={busy}
        aria-label={phase.kind === 'sending' ? 'Transcribing' : 'Speak instead of typing'}
        title="Speak instead of typing: the text comes into this box for you to check"
        onClick={() => void record()}
      >
        {phase.kind === 'sending' ? '…' : <MicrophoneIcon />}
      </button>
      {phase.kind === 'said' && (
        <p class="voice-message muted small" role="alert" data-testid="voice-message">
          {phase.message}{' '}
          {phase.retry !== undefined && (
            <button
              type="button"
              class="button link"
              data-testid="voice-retry"
              onClick={() => void send(phase.retry!)}
            >
              Try again
            </button>
          )}{' '}
          <button type="button" class="button link" onClick={() => setPhase({ kind: 'idle' })}>
            Dismiss
          </button>
        </p>
      )}
    </>
  );
}

function MicrophoneIcon() {
  return (
    <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true">
      <path
        fill="currentColor"
        d="M12 15a3 3 0 0 0 3-3V6a3 3 0 0 0-6 0v6a3 3 0 0 0 3 3Zm5-3a5 5 0 0 1-10 0H5a7 7 0 0 0 6 6.92V21h2v-2.08A7 7 0 0 0 19 12h-2Z"
      />
    </svg>
  );
}
