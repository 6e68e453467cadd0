/**
 * The hosts a sandboxed process may reach through the host's proxy (./network-proxy.ts),
 * as the config names them: `api.anthropic.com` (port 443), `*.example.com` (any name
 * below it, not itself; never a whole top-level domain), `host:8080` (that port only), or
 * an IPv4 address in its four numbers. Names are matched as the process asks for them,
 * before any lookup: the proxy resolves a name only once it is allowed. A name that ends
 * in a number is an address, written whole: the resolver reads `127.1` as `127.0.0.1`.
 */
import { z } from 'zod';

/** The port a pattern without one allows: HTTPS. */
const DEFAULT_PORT = 443;
const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const PATTERN = new RegExp(`^(\\*\\.)?(${LABEL}(?:\\.${LABEL})*)(?::(\\d{1,5}))?$`);

export interface HostPattern {
  /** The name (lowercase), or the suffix below which any name matches. */
  host: string;
  /** True for `*.host`: names below `host`, never `host` itself. */
  below: boolean;
  /** The one port allowed; null: 443. */
  port: number | null;
}

/** The pattern `text` names, or null when it is not one. */
export function parseHostPattern(text: string): HostPattern | null {
  const match = PATTERN.exec(text.toLowerCase());
  if (match === null) return null;
  const port = match[3] === undefined ? null : Number(match[3]);
  if (port !== null && (port < 1 || port > 65_535)) return null;
  const host = match[2]!;
  const below = match[1] !== undefined;
  // `*.com` would open a whole top-level domain.
  if (host.length > 253 || (below && !host.includes('.'))) return null;
  // A number last is an address: whole, and never under a star.
  const numeric = /^\d+$/.test(host.slice(host.lastIndexOf('.') + 1));
  if (numeric && (below || !IPV4.test(host))) return null;
  return { host, below, port };
}

/** One entry of a `network` list in the config file. */
export const NetworkHost = z
  .string({ error: 'expected a host name' })
  .refine((text) => parseHostPattern(text) !== null, {
    error:
      'expected a host name, *.name, name:port or an IPv4 address (as api.anthropic.com or *.github.com)',
  });

/** True when `host` on `port`, as a process asked for it, is one `patterns` allow. */
export function hostAllowed(patterns: readonly HostPattern[], host: string, port: number): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return patterns.some((pattern) => {
    const named = pattern.below ? name.endsWith(`.${pattern.host}`) : name === pattern.host;
    return named && port === (pattern.port ?? DEFAULT_PORT);
  });
}
