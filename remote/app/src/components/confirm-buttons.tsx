/**
 * The second tap of an action that cannot be taken back (revoke this device, remove a
 * rule, forget a host, merge or discard a branch): the button that does it, named for
 * what it does, beside one that steps back. The first tap, the caller's own button, only
 * shows these.
 */
import type { ComponentChildren } from 'preact';

export function ConfirmButtons({
  label,
  testId,
  onConfirm,
  onCancel,
  busy = false,
  tone = 'danger',
  cancelLabel = 'Keep',
  size = 'small',
  action,
}: {
  /** What the confirming button does, in words: "Revoke this device". */
  label: ComponentChildren;
  /** `<testId>-confirm` and `<testId>-cancel` name the two buttons. */
  testId: string;
  onConfirm: () => void;
  onCancel: () => void;
  /** While the action is under way: neither button can be tapped again. */
  busy?: boolean;
  /** `primary` for an action that adds (merge), `danger` for one that takes away. */
  tone?: 'danger' | 'primary';
  cancelLabel?: string;
  size?: 'small' | 'normal';
  /** `data-action` of the confirming button, where one row confirms several actions. */
  action?: string;
}) {
  const sized = size === 'small' ? ' small' : '';
  return (
    <>
      <button
        type="button"
        class={`button ${tone === 'primary' ? 'primary' : 'danger-outline'}${sized}`}
        data-testid={`${testId}-confirm`}
        data-action={action}
        disabled={busy}
        onClick={onConfirm}
      >
        {label}
      </button>
      <button
        type="button"
        class={`button${sized}`}
        data-testid={`${testId}-cancel`}
        disabled={busy}
        onClick={onCancel}
      >
        {cancelLabel}
      </button>
    </>
  );
}
