/**
 * `tether pair`: asks the running host for a pairing offer, shows its QR code and link,
 * and waits until a device pairs (then shows the SAS to compare), or the offer expires or
 * is voided. `--json` prints the offer as one line and returns at once (docs/protocol.md
 * §9: a contract for harnesses).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { renderUnicodeCompact } from 'uqr';
import { AdminClient, type OfferStatus } from './admin-client.js';
import { formatSas, parseCommandArgs, tetherCommand, UsageError } from '../../common/cli/index.js';
import type { HostCommandContext } from './host-command.js';
import { errorMessage } from '../../protocol/index.js';

/** How often the offer's state is asked for while waiting. */
const PAIR_POLL_MS = 500;

/** The usage text of `pair`, for `--help` and command-line errors. */
export const PAIR_USAGE = `Usage: tether pair [--data DIR] [--json [--wait]] [--origin URL]

Shows a QR code and a link for a new device, and waits until it pairs.

Options:
  --data DIR     data directory of the running host (as for tether start)
  --json         print {"link","offerId","expiresAt"} as one line of JSON and exit
  --wait         with --json: then wait, and print {"state","sas","device"} as a second
                 line once a device paired (sas: the six digits the host shows) or the
                 offer expired or became void
  --origin URL   the origin the device should use, e.g. https://mac.tailnet.ts.net
                 (default: the host's own address)
`;

const FLAGS = {
  data: { type: 'string' },
  json: { type: 'boolean' },
  wait: { type: 'boolean' },
  origin: { type: 'string' },
} as const;

/** An offer no longer pending. */
type Outcome = OfferStatus & { state: Exclude<OfferStatus['state'], 'pending'> };

/** How long the revoke of a stopped command's offer may take before it gives up. */
const REVOKE_TIMEOUT_MS = 5_000;

/**
 * Waits until the offer is no longer pending. Stopped first (Ctrl-C, SIGTERM), it revokes
 * the offer before giving up, so the link it showed no longer pairs a device.
 */
async function waitForOutcome(
  admin: AdminClient,
  offerId: string,
  ctx: HostCommandContext,
): Promise<Outcome> {
  const { signal } = ctx;
  try {
    for (;;) {
      const status = await admin.offerStatus(offerId, signal);
      if (status.state !== 'pending') return status as Outcome;
      await sleep(PAIR_POLL_MS, undefined, { signal });
    }
  } catch (error) {
    if (signal.aborted) await revokeStopped(admin, offerId, (text) => ctx.err(text));
    throw error;
  }
}

async function revokeStopped(
  admin: AdminClient,
  offerId: string,
  err: (text: string) => void,
): Promise<void> {
  try {
    const status = await admin.revokeOffer(offerId, AbortSignal.timeout(REVOKE_TIMEOUT_MS));
    if (status.state === 'paired') {
      err('\ntether: a device paired before the stop: tether devices lists it\n');
    } else {
      err('\ntether: the offer is revoked: its link no longer pairs a device\n');
    }
  } catch (error) {
    const why = errorMessage(error);
    err(`\ntether: the offer could not be revoked (${why}); it expires by itself\n`);
  }
}

/** Runs `tether pair`; resolves with the exit code. */
export async function pairCommand(
  argv: readonly string[],
  ctx: HostCommandContext,
): Promise<number> {
  const { values, help } = parseCommandArgs(argv, FLAGS);
  if (help) {
    ctx.out(PAIR_USAGE);
    return 0;
  }
  const dataDir = ctx.dataDir(values.data);
  const admin = AdminClient.connect(dataDir);
  const offer = await admin.createOffer(values.origin, ctx.signal);
  if (values.json === true) {
    const { link, offerId, expiresAt } = offer;
    ctx.out(JSON.stringify({ link, offerId, expiresAt }) + '\n');
    if (values.wait !== true) return 0;
    const { state, sas, device } = await waitForOutcome(admin, offerId, ctx);
    ctx.out(JSON.stringify({ state, sas, device }) + '\n');
    return state === 'paired' ? 0 : 1;
  }
  if (values.wait === true) throw new UsageError('--wait goes with --json');
  ctx.out(`The host running on ${dataDir} offers this link.\n`);
  const seconds = Math.round((offer.expiresAt - Date.now()) / 1000);
  ctx.out(`${renderUnicodeCompact(offer.link, { border: 2 })}\n\n`);
  ctx.out(`Scan the code with the device, or open this link on it:\n  ${offer.link}\n\n`);
  const clock = new Date(offer.expiresAt).toTimeString().slice(0, 8);
  ctx.out(
    `The offer expires at ${clock} (in ${seconds} s). Waiting for a device… (Ctrl-C to stop)\n`,
  );
  const status = await waitForOutcome(admin, offer.offerId, ctx);
  switch (status.state) {
    case 'paired': {
      const device = status.device;
      const who = device === undefined ? 'a device' : `${device.name} (${device.platform})`;
      ctx.out(`\nPaired with ${who}.\n`);
      if (status.sas !== undefined) {
        ctx.out(`Check that the device shows the same code: ${formatSas(status.sas)}\n`);
        ctx.out(
          `If it does not, revoke it: ${tetherCommand()} revoke ${device?.deviceId ?? '<deviceId>'}\n`,
        );
      }
      return 0;
    }
    case 'expired':
      ctx.err(
        `tether: the offer expired before a device paired; for a new one, run: ${tetherCommand()} pair\n`,
      );
      return 1;
    case 'void':
      ctx.err(
        `tether: the offer is void after repeated failed attempts (a wrong or tampered link?); for a new one, run: ${tetherCommand()} pair\n`,
      );
      return 1;
  }
}
