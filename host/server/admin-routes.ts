/**
 * `/admin`: a small page and JSON API, on this computer only, to pair devices, list them
 * and revoke them (docs/protocol.md §8).
 */
import { randomUUID } from 'node:crypto';
import type { HttpBindings } from '@hono/node-server';
import { Hono } from 'hono';
import { renderSVG } from 'uqr';
import { z } from 'zod';
import { CommandId, DeviceName, describeIssues, TetherError } from '../../protocol/index.js';
import {
  createPairOffer,
  formatPairLink,
  MAX_FAILED_ATTEMPTS,
  type Identity,
} from '../../pairing/index.js';
import type { Runtime } from '../runtime/index.js';
import { adminGuard } from './admin-guard.js';
import { ADMIN_PAGE_HTML, ADMIN_PAGE_SCRIPT } from './admin-page.js';

export interface AdminOptions {
  runtime: Runtime;
  identity: Identity;
  token: string;
  port: () => number;
  /** The origin a device should use when the request names none. */
  defaultOrigin: () => string;
  now?: () => number;
  /** Closes a revoked device's sockets at once. */
  closeDeviceSockets(deviceId: string): void;
}

const OfferRequest = z.strictObject({
  origin: z.string().url().max(512).optional(),
  ttlMs: z.number().int().min(10_000).max(3_600_000).optional(),
});

const RenameRequest = z.strictObject({
  name: DeviceName,
  /** Sent by `tether devices rename` so a retried request renames once. */
  commandId: z.optional(CommandId),
});

const ADMIN_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export function adminRoutes(options: AdminOptions): AdminApp {
  const { runtime } = options;
  const now = options.now ?? Date.now;
  const app: AdminApp = new Hono<{ Bindings: HttpBindings }>();

  app.use('/admin', adminGuard(options, false));
  app.use('/admin/admin.js', adminGuard(options, false));
  app.use('/admin/api/*', adminGuard(options));

  app.get('/admin', (c) => {
    c.header('Content-Security-Policy', ADMIN_CSP);
    return c.html(ADMIN_PAGE_HTML);
  });
  app.get('/admin/admin.js', (c) => {
    c.header('Content-Type', 'text/javascript; charset=utf-8');
    return c.body(ADMIN_PAGE_SCRIPT);
  });

  offerRoutes(app, options, now);
  deviceRoutes(app, options);

  // Whether the database went back in time, and the user's acknowledgement (tether history).
  app.get('/admin/api/history', (c) => c.json({ history: runtime.history }));
  app.post('/admin/api/history/acknowledge', (c) =>
    c.json({ acknowledged: runtime.acknowledgeHistory(), history: runtime.history }),
  );

  return app;
}

type AdminApp = Hono<{ Bindings: HttpBindings }>;

/** `tether pair`'s offers: made, watched until a device pairs, ended when it stops. */
function offerRoutes(app: AdminApp, options: AdminOptions, now: () => number): void {
  const { runtime } = options;
  app.post('/admin/api/offers', async (c) => {
    const body: unknown = await c.req.json().catch(() => ({}));
    const parsed = OfferRequest.safeParse(body ?? {});
    if (!parsed.success) {
      throw new TetherError('invalid_request', 'invalid offer request', {
        details: { issues: describeIssues(parsed.error) },
      });
    }
    const origin = (parsed.data.origin ?? options.defaultOrigin()).replace(/\/+$/, '');
    const offer = createPairOffer(
      now(),
      parsed.data.ttlMs === undefined ? {} : { ttlMs: parsed.data.ttlMs },
    );
    const link = formatPairLink({
      origin,
      offerId: offer.offerId,
      psk: offer.psk,
      hostPk: options.identity.publicKey,
    });
    runtime.pairing.recordOffer(offer);
    return c.json({
      link,
      offerId: offer.offerId,
      expiresAt: offer.expiresAt,
      qrSvg: renderSVG(link, { pixelSize: 6 }),
    });
  });

  const offerStatus = (offerId: string) => {
    const offer = runtime.pairing.findOffer(offerId);
    if (offer === undefined) throw new TetherError('not_found', 'no such offer');
    const device = offer.deviceId === null ? undefined : runtime.devices.find(offer.deviceId);
    const state = offer.used
      ? 'paired'
      : offer.failedAttempts >= MAX_FAILED_ATTEMPTS
        ? 'void'
        : now() >= offer.expiresAt
          ? 'expired'
          : 'pending';
    return {
      offerId: offer.offerId,
      state,
      expiresAt: offer.expiresAt,
      ...(offer.sas === null ? {} : { sas: offer.sas }),
      ...(device === undefined
        ? {}
        : { device: { deviceId: device.deviceId, name: device.name, platform: device.platform } }),
    };
  };

  app.get('/admin/api/offers/:offerId', (c) => c.json(offerStatus(c.req.param('offerId'))));

  // `tether pair` stopped before a device paired: its link must not pair later.
  app.post('/admin/api/offers/:offerId/revoke', (c) => {
    const offerId = c.req.param('offerId');
    if (runtime.pairing.findOffer(offerId) === undefined) {
      throw new TetherError('not_found', 'no such offer');
    }
    runtime.pairing.endOffer(offerId);
    return c.json(offerStatus(offerId));
  });
}

/** `tether devices`: the paired devices, revoked (their sockets closed) or renamed. */
function deviceRoutes(app: AdminApp, options: AdminOptions): void {
  const { runtime } = options;
  app.get('/admin/api/devices', (c) => c.json(runtime.devices.list('admin')));

  app.post('/admin/api/devices/:deviceId/revoke', (c) => {
    const deviceId = c.req.param('deviceId');
    const device = runtime.devices.find(deviceId);
    if (device === undefined) throw new TetherError('not_found', 'no such device');
    runtime.devices.revoke(
      { commandId: `admin-revoke-${deviceId}-${device.pairedAt}`, deviceId },
      'admin',
    );
    options.closeDeviceSockets(deviceId);
    return c.json({});
  });

  app.post('/admin/api/devices/:deviceId/rename', async (c) => {
    const body: unknown = await c.req.json().catch(() => undefined);
    const parsed = RenameRequest.safeParse(body);
    if (!parsed.success) {
      throw new TetherError('invalid_request', 'invalid rename request', {
        details: { issues: describeIssues(parsed.error) },
      });
    }
    const { name, commandId = `admin-rename-${randomUUID()}` } = parsed.data;
    runtime.devices.rename({ commandId, deviceId: c.req.param('deviceId'), name }, 'admin');
    return c.json({});
  });
}
