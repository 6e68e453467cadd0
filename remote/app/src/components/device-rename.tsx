/**
 * Renaming a device from the Devices screen: a field with the current name, checked as
 * the host checks it (`DeviceName`) before it is sent as `device.rename`; every paired
 * device then shows the new name (`device.renamed`).
 */
import { useState } from 'preact/hooks';
import { DeviceName } from '#protocol';
import { useSubmit } from '../hooks/use-submit.js';
import type { HostView } from '../state/app-view.js';

/** Why `name` is refused, in words, or undefined when the host would take it. */
function nameProblem(name: string): string | undefined {
  if (name === '') return 'Type a name.';
  if ([...name].length > 64) return 'At most 64 characters.';
  if (!DeviceName.safeParse(name).success) return 'No control characters or line breaks.';
  return undefined;
}

export function DeviceRename(props: {
  host: HostView;
  deviceId: string;
  name: string;
  onDone: (name?: string) => void;
}) {
  const [text, setText] = useState(props.name);
  const action = useSubmit(props.host);
  const name = text.trim();
  const problem = nameProblem(name);
  const save = () => {
    if (problem !== undefined || name === props.name) return props.onDone();
    action.run('rename', async () => {
      await action.submit('device.rename', { deviceId: props.deviceId, name });
      props.onDone(name);
    });
  };
  return (
    <form
      class="rename-form"
      data-testid="device-rename-form"
      onSubmit={(event) => {
        event.preventDefault();
        save();
      }}
    >
      <label class="sr-only" for={`rename-${props.deviceId}`}>
        New name
      </label>
      <input
        id={`rename-${props.deviceId}`}
        data-testid="device-rename-text"
        value={text}
        maxLength={64}
        autoComplete="off"
        onInput={(event) => setText(event.currentTarget.value)}
      />
      <button
        type="submit"
        class="button primary small"
        data-testid="device-rename-save"
        disabled={problem !== undefined || action.busy !== undefined}
      >
        Save
      </button>
      <button
        type="button"
        class="button small"
        data-testid="device-rename-cancel"
        onClick={() => props.onDone()}
      >
        Cancel
      </button>
      {name !== '' && problem !== undefined && <p class="error small">{problem}</p>}
      {action.error !== undefined && <p class="error small">{action.error}</p>}
    </form>
  );
}
