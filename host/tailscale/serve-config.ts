/**
 * `tailscale serve status --json` (ipn.ServeConfig): which origin proxies to what. A
 * `--bg` serve is at the top level and persists; a foreground one sits under `Foreground`
 * (keyed by the session of the `tailscale serve` command that made it) and ends with it.
 */
import { z } from 'zod';

const Handler = z.object({
  Proxy: z.string().optional(),
  Path: z.string().optional(),
  Text: z.string().optional(),
});
const WebConfig = z.object({ Handlers: z.record(z.string(), Handler).nullish() });
const PortHandler = z.object({
  HTTPS: z.boolean().optional(),
  HTTP: z.boolean().optional(),
  TCPForward: z.string().optional(),
});
const Layer = z.object({
  TCP: z.record(z.string(), PortHandler).nullish(),
  Web: z.record(z.string(), WebConfig).nullish(),
});
const ServeConfig = Layer.extend({ Foreground: z.record(z.string(), Layer).nullish() });
type Layer = z.output<typeof Layer>;

/** One web handler `tailscale serve` runs. */
export interface ServeHandler {
  /** `mac.tail1234.ts.net:443` */
  hostPort: string;
  /** `https://mac.tail1234.ts.net` (the port only when not the scheme's own). */
  origin: string;
  https: boolean;
  /** The mount point: `/` for the whole origin. */
  mount: string;
  /** What it serves: the proxy's target URL, a path, or a text. */
  target: string;
  /** The proxy's target URL; undefined for a path or a text. */
  proxy: string | undefined;
  /** Made by a `tailscale serve` without `--bg`: gone when that command ends. */
  foreground: boolean;
}

/**
 * The web handlers of a `serve status --json` output, background ones first.
 *
 * @throws Error when the text is not a serve config.
 */
export function parseServeConfig(text: string): ServeHandler[] {
  const parsed = ServeConfig.safeParse(JSON.parse(text === '' ? 'null' : text) ?? {});
  if (!parsed.success) throw new Error('tailscale serve status --json printed no serve config');
  const config = parsed.data;
  return [
    ...layerHandlers(config, false),
    ...Object.values(config.Foreground ?? {}).flatMap((layer) => layerHandlers(layer, true)),
  ];
}

function layerHandlers(layer: Layer, foreground: boolean): ServeHandler[] {
  return Object.entries(layer.Web ?? {}).flatMap(([hostPort, web]) => {
    const colon = hostPort.lastIndexOf(':');
    const host = hostPort.slice(0, colon);
    const port = hostPort.slice(colon + 1);
    const https = layer.TCP?.[port]?.HTTP !== true;
    const own = https ? '443' : '80';
    const origin = `${https ? 'https' : 'http'}://${host}${port === own ? '' : `:${port}`}`;
    return Object.entries(web.Handlers ?? {}).map(([mount, handler]) => ({
      hostPort,
      origin,
      https,
      mount,
      target: handler.Proxy ?? handler.Path ?? `text "${handler.Text ?? ''}"`,
      proxy: handler.Proxy,
      foreground,
    }));
  });
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/** Whether a proxy target names this host: a loopback address (or `bind`) and `port`. */
export function proxiesTo(proxy: string | undefined, port: number, bind: string): boolean {
  if (proxy === undefined) return false;
  // The CLI stores what it was given expanded (`8787` → `http://127.0.0.1:8787`), but a
  // config set another way may hold a bare host:port.
  const withScheme = /^[a-z+]+:\/\//.test(proxy) ? proxy : `http://${proxy}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    return false;
  }
  const host = url.hostname;
  const named = LOOPBACK.has(host) || host === bind || host === `[${bind}]`;
  return named && url.port === String(port);
}
