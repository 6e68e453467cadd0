/**
 * The admin surface answers only a loopback peer that names a loopback `Host` (so a page
 * on another site cannot reach it through DNS rebinding) and carries this start's token.
 */
import { timingSafeEqual } from 'node:crypto';
import type { HttpBindings } from '@hono/node-server';
import type { MiddlewareHandler } from 'hono';
import { TetherError } from '../../protocol/index.js';
import { isLoopbackAddress } from './client-address.js';

export interface AdminGuardOptions {
  token: string;
  /** The port the host listens on, known once it does. */
  port: () => number;
}

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** `Host` values a loopback client of this host sends. */
function loopbackHosts(port: number): Set<string> {
  return new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
}

/**
 * Refuses with 403 a non-loopback peer or a foreign `Host`, and with 401 a missing or
 * wrong token (`Authorization: Bearer …`). `tokenRequired: false` serves the page shell,
 * which holds nothing secret and reads the token from its URL fragment.
 */
export function adminGuard(
  options: AdminGuardOptions,
  tokenRequired = true,
): MiddlewareHandler<{ Bindings: HttpBindings }> {
  return async (c, next) => {
    const peer = c.env.incoming.socket.remoteAddress;
    const host = c.req.header('host') ?? '';
    if (!isLoopbackAddress(peer) || !loopbackHosts(options.port()).has(host.toLowerCase())) {
      // Built here: `forbidden` has no TetherError code (protocol/errors.ts).
      return c.json(
        {
          ok: false,
          error: { code: 'forbidden', message: 'the admin page answers only on this computer' },
        },
        403,
      );
    }
    if (tokenRequired) {
      const header = c.req.header('authorization') ?? '';
      const given = header.startsWith('Bearer ') ? header.slice(7) : '';
      if (!sameToken(given, options.token)) {
        throw new TetherError('unauthorized', 'missing or wrong admin token');
      }
    }
    c.header('Cache-Control', 'no-store');
    await next();
  };
}
