/**
 * Pairing: from the link the app was opened with (at once), a scanned QR code, or a
 * pasted link; then the SAS to compare with the one the host shows.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { PairResult } from '#client';
import { DEVICE_NAME_KEY, pairingDevice } from '../logic/device-name.js';
import { useAppView, useModel } from '../state/app-context.js';

export interface PairScreenProps {
  /** A link to pair with at once (the app was opened with it). */
  link: string | undefined;
  /** Pairing started: the screen must stay up until the user continues. */
  onBusy: () => void;
  /** The user saw the SAS and continues to the app. */
  onDone: () => void;
  /** The user leaves without pairing (only offered when a host is paired already). */
  onCancel: (() => void) | undefined;
}

type Phase =
  | { step: 'idle' }
  | { step: 'scanning' }
  | { step: 'pairing' }
  | { step: 'paired'; result: PairResult }
  | { step: 'failed'; message: string };

export function PairScreen({ link, onBusy, onDone, onCancel }: PairScreenProps) {
  const model = useModel();
  const view = useAppView();
  const [phase, setPhase] = useState<Phase>({ step: 'idle' });
  const [text, setText] = useState('');
  const video = useRef<HTMLVideoElement>(null);
  const scanAbort = useRef<AbortController | undefined>(undefined);
  const started = useRef<string | undefined>(undefined);

  const pairWith = async (pairLink: string) => {
    scanAbort.current?.abort();
    onBusy();
    setPhase({ step: 'pairing' });
    try {
      const device = pairingDevice(
        localStorage.getItem(DEVICE_NAME_KEY),
        navigator.userAgent,
        navigator.maxTouchPoints,
      );
      const result = await model.pair(pairLink.trim(), device);
      setPhase({ step: 'paired', result });
    } catch (error) {
      // Its words are a chunk of their own: most pairings succeed.
      const message = await import('../logic/pairing-error.js').then(
        (module) => module.pairingError(error),
        () => 'Cannot reach the host. Is it running, and is this device on the same network?',
      );
      setPhase({ step: 'failed', message });
    }
  };

  useEffect(() => {
    if (link === undefined || started.current === link) return;
    started.current = link;
    void pairWith(link);
    // pairWith is stable enough: it only reads refs and the model.
  }, [link]);

  useEffect(() => () => scanAbort.current?.abort(), []);

  const scan = async () => {
    const element = video.current;
    if (element === null) return;
    const abort = new AbortController();
    scanAbort.current = abort;
    setPhase({ step: 'scanning' });
    try {
      // The scanner (and jsQR behind it) is its own chunk: most pairings come by link.
      const { scanQr } = await import('../qr/scan-qr.js');
      const scanned = await scanQr(element, abort.signal);
      await pairWith(scanned);
    } catch (error) {
      if (abort.signal.aborted) {
        setPhase({ step: 'idle' });
        return;
      }
      setPhase({ step: 'failed', message: cameraError(error) });
    }
  };

  if (phase.step === 'paired') {
    const { sas, hostName } = phase.result;
    return (
      <main class="screen pair" data-testid="pair-screen">
        <h1>Paired with {hostName}</h1>
        <p>Check that the host shows the same six digits. If not, revoke this device there.</p>
        <p class="sas" data-testid="pair-sas" aria-label={`code ${sas.split('').join(' ')}`}>
          <span>{sas.slice(0, 3)}</span>
          <span>{sas.slice(3)}</span>
        </p>
        <button type="button" class="button primary wide" data-testid="pair-done" onClick={onDone}>
          The digits match: continue
        </button>
      </main>
    );
  }

  const busy = phase.step === 'pairing';
  return (
    <main class="screen pair" data-testid="pair-screen">
      <h1>Pair with your Mac</h1>
      {view.revokedFrom !== undefined && (
        <p class="notice" data-testid="revoked-notice" role="alert">
          This device was revoked on {view.revokedFrom}, so Tether forgot that host. Pair again to
          use it.
        </p>
      )}
      <p>
        On the host run <code>tether pair</code> (or open its admin page), then scan the QR code or
        paste the link.
      </p>
      <div class={`scanner ${phase.step === 'scanning' ? 'active' : ''}`}>
        <video ref={video} muted playsInline aria-label="Camera" />
      </div>
      <div class="actions">
        {phase.step === 'scanning' ? (
          <button type="button" class="button" onClick={() => scanAbort.current?.abort()}>
            Stop camera
          </button>
        ) : (
          <button
            type="button"
            class="button"
            data-testid="pair-scan"
            disabled={busy}
            onClick={() => void scan()}
          >
            Scan QR code
          </button>
        )}
      </div>
      <form
        class="stack"
        onSubmit={(event) => {
          event.preventDefault();
          if (text.trim() !== '') void pairWith(text);
        }}
      >
        <label for="pair-link">Pairing link</label>
        <textarea
          id="pair-link"
          data-testid="pair-link-input"
          rows={3}
          placeholder="https://…/#pair=…"
          autocomplete="off"
          spellcheck={false}
          value={text}
          onInput={(event) => setText(event.currentTarget.value)}
        />
        <button
          type="submit"
          class="button primary wide"
          data-testid="pair-submit"
          disabled={busy || text.trim() === ''}
        >
          {busy ? 'Pairing…' : 'Pair'}
        </button>
      </form>
      {phase.step === 'failed' && (
        <p class="error" data-testid="pair-error" role="alert">
          {phase.message}
        </p>
      )}
      {onCancel !== undefined && (
        <button type="button" class="button link" onClick={onCancel}>
          Back to runs
        </button>
      )}
    </main>
  );
}

function cameraError(error: unknown): string {
  if (error instanceof DOMException && error.name === 'NotAllowedError') {
    return 'Camera access was refused. Allow it in the browser settings, or paste the link.';
  }
  if (error instanceof DOMException && error.name === 'NotFoundError') {
    return 'No camera found. Paste the link instead.';
  }
  return error instanceof Error ? error.message : 'The camera could not be used.';
}
