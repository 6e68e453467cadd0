/**
 * A full tool output or artifact, read on demand: a download link when the host can
 * give one (HTTPS or loopback), and the text paged in 256 KiB at a time through
 * `output.read` / `artifact.read`.
 */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { OpResult } from '#protocol';
import { type ReadTarget, useReader } from '../hooks/use-reader.js';
import { downloadHref } from '../logic/download-link.js';
import type { HostView } from '../state/app-view.js';
import { errorText } from '../state/use-action.js';

export interface ReadPagerProps {
  host: HostView;
  target: ReadTarget;
  /** Test ids: the load button, the text, the download link, the "more" button. */
  ids: { load: string; full: string; download: string; more: string };
  loadLabel: string;
  render: (text: string) => ComponentChildren;
}

type ReadResult = OpResult<'output.read'>;

export function ReadPager({ host, target, ids, loadLabel, render }: ReadPagerProps) {
  const [pages, setPages] = useState<ReadResult[] | undefined>(undefined);
  const [download, setDownload] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const { read, link } = useReader(host, target);

  const load = async (offset: number) => {
    setBusy(true);
    setError(undefined);
    try {
      if (offset === 0) void offerDownload();
      const page = await read(offset);
      setPages((current) => [...(offset === 0 ? [] : (current ?? [])), page]);
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setBusy(false);
    }
  };

  // A link is a bonus: on a plain-HTTP LAN origin the host answers invalid_state and the
  // paged text above is the way to read it.
  const offerDownload = async () => {
    try {
      const { url } = await link();
      setDownload(downloadHref(url, host.origin));
    } catch {
      setDownload(undefined);
    }
  };

  const last = pages?.at(-1);
  const text = pages?.map((page) => page.text).join('') ?? '';
  return (
    <div class="read-pager">
      {pages === undefined ? (
        <button
          type="button"
          class="button small"
          data-testid={ids.load}
          disabled={busy}
          onClick={() => void load(0)}
        >
          {busy ? 'Loading…' : loadLabel}
        </button>
      ) : (
        <div class="full" data-testid={ids.full}>
          {render(text)}
        </div>
      )}
      {last !== undefined && (
        <p class="muted small">
          {last.nextOffset.toLocaleString()} of {last.totalBytes.toLocaleString()} bytes
          {last.truncated ? ' (the host kept only the start of a larger output)' : ''}
        </p>
      )}
      {last !== undefined && !last.eof && (
        <button
          type="button"
          class="button small"
          data-testid={ids.more}
          disabled={busy}
          onClick={() => void load(last.nextOffset)}
        >
          {busy ? 'Loading…' : 'Load more'}
        </button>
      )}
      {download !== undefined && (
        <a class="button small" data-testid={ids.download} href={download} download rel="noopener">
          Download
        </a>
      )}
      {error !== undefined && <p class="error">{error}</p>}
    </div>
  );
}
