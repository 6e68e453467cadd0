/**
 * The composer's Attach button: a file input that takes images and any file (on a phone
 * the system's picker offers the photo library and the camera). One button of the
 * composer's tools row; the microphone's button goes beside it. Where room is short (the
 * follow-up beside its text box on a phone) it shows the paperclip alone, named for
 * screen readers and in its tooltip.
 */
export function AttachButton({
  testId,
  disabled = false,
  iconOnly = false,
  onFiles,
}: {
  /** `data-testid` of the input, e.g. `submit-attach`. */
  testId: string;
  disabled?: boolean;
  /** Only the paperclip shows; the word stays for screen readers. */
  iconOnly?: boolean;
  onFiles: (files: File[]) => void;
}) {
  return (
    <label
      class={`button attach-button${iconOnly ? ' icon-only' : ''}${disabled ? ' disabled' : ''}`}
      title="Attach photos or files"
    >
      <input
        type="file"
        class="sr-only"
        multiple
        accept="image/*,*/*"
        disabled={disabled}
        data-testid={testId}
        onChange={(event) => {
          const input = event.currentTarget;
          onFiles([...(input.files ?? [])]);
          // The same file chosen again is a change again.
          input.value = '';
        }}
      />
      <PaperclipIcon />
      <span class={iconOnly ? 'sr-only' : undefined}>Attach</span>
    </label>
  );
}

function PaperclipIcon() {
  return (
    <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true">
      <path
        fill="currentColor"
        d="M16.5 6.5v10.04a4.5 4.5 0 0 1-9 0V5.75a3 3 0 0 1 6 0v9.79a1.5 1.5 0 0 1-3 0V6.5H9v9.04a3 3 0 0 0 6 0V5.75a4.5 4.5 0 0 0-9 0v10.79a6 6 0 0 0 12 0V6.5h-1.5Z"
      />
    </svg>
  );
}
