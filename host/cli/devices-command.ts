/**
 * `tether devices`: the devices paired with the running host, as a table or JSON.
 */
import type { Device } from '../../protocol/index.js';
import { AdminClient } from './admin-client.js';
import { formatTable, formatTime, parseCommandArgs } from '../../common/cli/index.js';
import type { HostCommandContext } from './host-command.js';

/** The usage text of `devices`, for `--help` and command-line errors. */
export const DEVICES_USAGE = `Usage: tether devices [--data DIR] [--json]

Lists the devices paired with the running host, with each one's push state: whether it
gets notifications (PUSH), when a push last reached its push service (LAST PUSH), and the
last delivery error, if any (docs/push.md, "Checking delivery").

Options:
  --data DIR   data directory of the running host (as for tether start)
  --json       print {"devices":[…]} as one line of JSON
`;

const FLAGS = { data: { type: 'string' }, json: { type: 'boolean' } } as const;

/** A delivery error cut to fit a table cell (`--json` has it whole). */
function shortError(error: string | null): string {
  if (error === null) return '-';
  return error.length > 60 ? `${error.slice(0, 59)}…` : error;
}

function row(device: Device): string[] {
  const push = device.push;
  return [
    device.name,
    device.platform,
    formatTime(device.pairedAt),
    device.lastSeenAt === null ? 'never' : formatTime(device.lastSeenAt),
    device.revoked ? 'revoked' : '-',
    push === undefined ? '-' : push.subscribed ? 'on' : 'off',
    push?.lastDeliveredAt == null ? 'never' : formatTime(push.lastDeliveredAt),
    shortError(push?.lastError ?? null),
    device.deviceId,
  ];
}

/** Runs `tether devices`; resolves with the exit code. */
export async function devicesCommand(
  argv: readonly string[],
  ctx: HostCommandContext,
): Promise<number> {
  const { values, help } = parseCommandArgs(argv, FLAGS);
  if (help) {
    ctx.out(DEVICES_USAGE);
    return 0;
  }
  const devices = await AdminClient.connect(ctx.dataDir(values.data)).listDevices(ctx.signal);
  if (values.json === true) {
    ctx.out(JSON.stringify({ devices }) + '\n');
    return 0;
  }
  if (devices.length === 0) {
    ctx.out('No devices are paired. Pair one with `tether pair`.\n');
    return 0;
  }
  const header = [
    'NAME',
    'PLATFORM',
    'PAIRED',
    'LAST SEEN',
    'REVOKED',
    'PUSH',
    'LAST PUSH',
    'PUSH ERROR',
    'DEVICE ID',
  ];
  ctx.out(formatTable(header, devices.map(row)) + '\n');
  return 0;
}
