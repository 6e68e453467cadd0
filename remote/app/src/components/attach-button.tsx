/**
 * The composer's Attach button: a file input that takes images and any file (on a phone
 * the system's picker offers the photo library and the camera). One button of the
 * composer's tools row; the microphone's button goes beside it.
 */
export function AttachButton({
  testId,
  disabled = false,
  onFiles,
}: {
  /** `data-testid` of the input, e.g. `submit-attach`. */
  testId: string;
  disabled?: boolean;
  onFiles: (files: File[]) => void;
}) {
  return (
    <label
      class={`button attach-button${disabled ? ' disabled' : ''}`}
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
      Attach
    </label>
  );
}
