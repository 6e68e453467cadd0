/**
 * `tether revoke <deviceId>`: revokes a paired device; the host closes its connections at
 * once and refuses it from then on.
 */
import { TetherError } from '../../protocol/index.js';
import { AdminClient } from './admin-client.js';
import { parseCommandArgs } from '../../common/cli/index.js';
import type { HostCommandContext } from './host-command.js';

/** The usage text of `revoke`, for `--help` and command-line errors. */
export const REVOKE_USAGE = `Usage: tether revoke <deviceId> [--data DIR]

Revokes a paired device (tether devices lists their ids). It must pair again to come back.

Options:
  --data DIR   data directory of the running host (as for tether start)
`;

const FLAGS = { data: { type: 'string' } } as const;

/** Runs `tether revoke`; resolves with the exit code. */
export async function revokeCommand(
  argv: readonly string[],
  ctx: HostCommandContext,
): Promise<number> {
  const { values, positionals, help } = parseCommandArgs(argv, FLAGS, {
    required: ['<deviceId>'],
  });
  if (help) {
    ctx.out(REVOKE_USAGE);
    return 0;
  }
  const deviceId = positionals[0]!;
  const admin = AdminClient.connect(ctx.dataDir(values.data));
  const device = (await admin.listDevices(ctx.signal)).find((d) => d.deviceId === deviceId);
  if (device === undefined) {
    throw new TetherError(
      'not_found',
      `no device ${deviceId} is paired (tether devices lists them)`,
    );
  }
  if (device.revoked) {
    ctx.out(`${device.name} (${deviceId}) was already revoked.\n`);
    return 0;
  }
  await admin.revokeDevice(deviceId, ctx.signal);
  ctx.out(`Revoked ${device.name} (${deviceId}); its connections are closed.\n`);
  return 0;
}
