/**
 * A button's action against the host: busy while it runs, its error in words after.
 */
import { useState } from 'preact/hooks';
import { TetherError } from '#protocol';

/** Runs one action at a time; `error` holds the last failure's message. */
export function useAction(): {
  busy: string | undefined;
  error: string | undefined;
  run: (name: string, action: () => Promise<unknown>) => void;
} {
  const [busy, setBusy] = useState<string | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const run = (name: string, action: () => Promise<unknown>) => {
    if (busy !== undefined) return;
    setBusy(name);
    setError(undefined);
    action().then(
      () => setBusy(undefined),
      (failure: unknown) => {
        setBusy(undefined);
        setError(errorText(failure));
      },
    );
  };
  return { busy, error, run };
}

/** A failure in words for the user. */
export function errorText(error: unknown): string {
  if (!(error instanceof TetherError)) {
    return error instanceof Error ? error.message : 'Something went wrong.';
  }
  switch (error.code) {
    case 'approval_resolved':
      return 'Another device answered first.';
    case 'approval_expired':
      return 'This approval expired before the answer arrived.';
    case 'digest_mismatch':
      return 'The host refused: what was shown is not what it would run.';
    case 'invalid_state':
      return `Not possible now: ${error.message}`;
    case 'workspace_denied':
      return 'The host does not allow that workspace.';
    case 'unavailable':
      return 'The host is not reachable right now.';
    default:
      return error.message;
  }
}
