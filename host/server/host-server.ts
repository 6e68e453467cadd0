/**
 * The host's server as `tether start` runs it: one HTTP (or HTTPS, with the local CA's
 * certificate) server for the app, the admin API and downloads, guarded against too many
 * connections, whose upgrades to `/v1/ws` open encrypted channels.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Identity } from '../../pairing/index.js';
import { nativeChannelCrypto } from '../../pairing/node/index.js';
import type { Logger } from '../log/index.js';
import type { Runtime } from '../runtime/index.js';
import type { LocalTls } from '../tls/index.js';
import { ChannelServer } from './channel-server.js';
import { DownloadLinks } from './download-links.js';
import { createHttpApp } from './http-app.js';
import { guardConnections, httpServerOptions } from './http-guard.js';
import { httpRequestListener } from './http-listener.js';
import { DEFAULT_HTTP_LIMITS, type ChannelLimits, type HttpLimits } from './server-limits.js';
import { defaultAppDir } from './static-files.js';

export interface HostServerOptions {
  runtime: Runtime;
  identity: Identity;
  hostName: string;
  version: string;
  log: Logger;
  /** The address and port asked for (`--bind`, `--port`; port 0 takes a free one). */
  bind: string;
  port: number;
  /** The local CA's certificate when the host serves HTTPS; null for plain HTTP. */
  tls: LocalTls | null;
  /** The admin API's bearer token (the admin file gives it to local commands). */
  adminToken: string;
  /** The origin a pairing link names when the request names none. */
  defaultOrigin: (port: number) => string;
  /** The built PWA's folder (default: dist/app beside the compiled host). */
  appDir?: string;
  channelLimits?: Partial<ChannelLimits>;
  httpLimits?: Partial<HttpLimits>;
}

export interface HostServer {
  /** Listens; throws with a message for people when the port is taken. */
  listen(): Promise<AddressInfo>;
  /** The port listened on (the one asked for until then). */
  readonly port: number;
  /** The URL local commands reach the admin API on; set by {@link HostServer.listen}. */
  readonly url: string;
  /** Closes the channels, the guard and the server, and every connection it holds. */
  close(): Promise<void>;
}

export function createHostServer(options: HostServerOptions): HostServer {
  const { runtime, identity, log, tls, bind } = options;
  const downloads = new DownloadLinks({ runtime, identity });
  const native = nativeChannelCrypto();
  if (native.sodiumError !== undefined) {
    log.warn('libsodium did not load: handshakes use OpenSSL, frames a slower pure-JS cipher', {
      error: native.sodiumError,
    });
  }
  const channel = new ChannelServer({
    runtime,
    identity,
    crypto: native.crypto,
    hostName: options.hostName,
    version: options.version,
    log: log.child({ component: 'channel' }),
    downloads,
    ...(options.channelLimits === undefined ? {} : { limits: options.channelLimits }),
  });
  let address: AddressInfo | null = null;
  const port = (): number => address?.port ?? options.port;
  const httpLog = log.child({ component: 'http' });
  const app = createHttpApp({
    hostId: identity.id,
    version: options.version,
    admin: {
      runtime,
      identity,
      token: options.adminToken,
      port,
      defaultOrigin: () => options.defaultOrigin(port()),
      closeDeviceSockets: (deviceId) => channel.closeDevice(deviceId),
    },
    appDir: options.appDir ?? defaultAppDir(),
    downloads,
    log: httpLog,
    ...(tls === null ? {} : { localCa: { pem: tls.caPem, mobileconfig: tls.mobileconfig } }),
  });
  const httpLimits: HttpLimits = { ...DEFAULT_HTTP_LIMITS, ...options.httpLimits };
  const onRequest = httpRequestListener(app.fetch, { hostname: bind, log: httpLog });
  const server =
    tls === null
      ? createHttpServer(httpServerOptions(httpLimits), onRequest)
      : createHttpsServer(
          { ...httpServerOptions(httpLimits), key: tls.key, cert: tls.cert },
          onRequest,
        );
  let stopGuard = (): void => undefined;
  const close = async (): Promise<void> => {
    channel.close();
    stopGuard();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      if ('closeAllConnections' in server) server.closeAllConnections();
    });
  };
  return {
    async listen() {
      server.listen(options.port, bind);
      stopGuard = guardConnections(
        server,
        httpLimits,
        httpLog,
        options.channelLimits?.refusalLogIntervalMs,
      );
      server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) =>
        channel.handleUpgrade(request, socket, head),
      );
      try {
        address = await listening(server);
      } catch (error) {
        channel.close();
        stopGuard();
        if ((error as { code?: string }).code === 'EADDRINUSE') {
          throw new Error(
            `port ${options.port} on ${bind} is already in use: stop the other program or pass --port`,
            { cause: error },
          );
        }
        throw error;
      }
      return address;
    },
    get port() {
      return port();
    },
    get url() {
      return address === null ? '' : localUrl(address, bind, tls !== null);
    },
    close,
  };
}

function listening(server: Server): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const address = server.address();
    if (address !== null && typeof address === 'object') return resolve(address);
    server.once('listening', () => resolve(server.address() as AddressInfo));
    server.once('error', reject);
  });
}

/** The URL of the host on this machine, as local commands reach it. */
function localUrl(address: AddressInfo, bind: string, tls: boolean): string {
  const scheme = tls ? 'https' : 'http';
  const wildcard = bind === '0.0.0.0' || bind === '::';
  // Bound to every address, the host is reached on loopback here and on the LAN addresses
  // (printed after the listening line): never name 0.0.0.0, which no browser opens.
  const host = wildcard
    ? '127.0.0.1'
    : address.family === 'IPv6'
      ? `[${address.address}]`
      : address.address;
  return `${scheme}://${host}:${address.port}`;
}
