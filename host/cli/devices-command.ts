/**
 * `tether devices`: the devices paired with the running host, as a table or JSON;
 * `tether devices rename` gives one a name of the user's choosing.
 */
import { randomUUID } from 'node:crypto';
import { DeviceName, describeIssues, TetherError, type Device } from '../../protocol/index.js';
import { AdminClient } from './admin-client.js';
import {
  formatTable,
  formatTime,
  parseCommandArgs,
  tetherCommand,
  UsageError,
} from '../../common/cli/index.js';
import type { HostCommandContext } from './host-command.js';

/** The usage text of `devices`, for `--help` and command-line errors. */
export const DEVICES_USAGE = `Usage: tether devices [--data DIR] [--json]
       tether devices rename <device> <name> [--data DIR]

Lists the devices paired with the running host, with each one's push state: whether it
gets notifications (PUSH), when a push last reached its push service (LAST PUSH), and the
last delivery error, if any (docs/push.md, "Checking delivery").

rename gives a device a new name (1 to 64 characters, no control characters), which every
paired device then shows; <device> is its id (DEVICE ID) or its current name, if no other
device has it.

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
  const { values, positionals, help } = parseCommandArgs(argv, FLAGS, { optional: 3 });
  if (help) {
    ctx.out(DEVICES_USAGE);
    return 0;
  }
  if (positionals.length > 0) return renameCommand(argv, positionals, values.data, ctx);
  const devices = await AdminClient.connect(ctx.dataDir(values.data)).listDevices(ctx.signal);
  if (values.json === true) {
    ctx.out(JSON.stringify({ devices }) + '\n');
    return 0;
  }
  if (devices.length === 0) {
    ctx.out(`No devices are paired. Pair one with: ${tetherCommand()} pair\n`);
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

/**
 * `tether devices rename <device> <name>`. The arguments are put back in the order typed
 * (the parser moves an id that starts with `-` to the end).
 */
async function renameCommand(
  argv: readonly string[],
  positionals: readonly string[],
  data: string | undefined,
  ctx: HostCommandContext,
): Promise<number> {
  const [action, which, name, extra] = [...positionals].sort(
    (a, b) => argv.indexOf(a) - argv.indexOf(b),
  );
  if (action !== 'rename') throw new UsageError(`unexpected argument ${action}`);
  if (which === undefined || name === undefined) {
    throw new UsageError(`missing ${which === undefined ? '<device> <name>' : '<name>'}`);
  }
  if (extra !== undefined) throw new UsageError(`unexpected argument ${extra}`);
  const parsed = DeviceName.safeParse(name);
  if (!parsed.success) {
    const why = describeIssues(parsed.error)
      .map((issue) => issue.message)
      .join('; ');
    throw new TetherError('invalid_request', `the name ${JSON.stringify(name)} is refused: ${why}`);
  }
  const admin = AdminClient.connect(ctx.dataDir(data));
  const device = findDevice(await admin.listDevices(ctx.signal), which);
  if (device.name === name) {
    ctx.out(`${device.name} (${device.deviceId}) already has that name.\n`);
    return 0;
  }
  await admin.renameDevice(device.deviceId, name, `cli-rename-${randomUUID()}`, ctx.signal);
  ctx.out(`Renamed ${device.name} to ${name} (${device.deviceId}).\n`);
  return 0;
}

/** The paired device `which` names: its id, else the one device of that name. */
function findDevice(devices: readonly Device[], which: string): Device {
  const live = devices.filter((device) => !device.revoked);
  const byId = live.find((device) => device.deviceId === which);
  if (byId !== undefined) return byId;
  const named = live.filter((device) => device.name === which);
  if (named.length === 1) return named[0]!;
  if (named.length > 1) {
    const ids = named.map((device) => device.deviceId).join(', ');
    throw new UsageError(`${named.length} devices are named ${which}: give one id (${ids})`);
  }
  throw new TetherError(
    'not_found',
    `no paired device has the id or name ${which} (tether devices lists them)`,
  );
}
