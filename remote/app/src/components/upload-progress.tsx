/**
 * Where a task's files stand on their way to the host: the file, and the chunks the host
 * has of it.
 */
import type { UploadProgress } from '../state/upload-jobs.js';

export function UploadProgressLine({ progress }: { progress: UploadProgress | undefined }) {
  if (progress === undefined) return null;
  const { name, file, files, received, total } = progress;
  return (
    <p
      class="muted small"
      role="status"
      data-testid="upload-progress"
      data-received={String(received)}
      data-total={String(total)}
    >
      Sending {name}
      {files > 1 ? ` (file ${file} of ${files})` : ''}: {received} of {total}{' '}
      {total === 1 ? 'part' : 'parts'}
    </p>
  );
}
