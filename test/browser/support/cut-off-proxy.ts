/**
 * A TCP proxy on loopback in front of a host, to cut one page off while the host and its
 * other devices go on: {@link CutOffProxy.cut} destroys every proxied connection (the
 * page's socket drops as on a network that went away, with no `offline` event) and
 * refuses new ones until {@link CutOffProxy.restore}.
 */
import { connect, createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/** A running proxy. */
export interface CutOffProxy {
  /** `http://127.0.0.1:PORT`: pair a page with this origin to route it through the proxy. */
  readonly origin: string;
  /** Drops every open connection and refuses new ones. */
  cut(): void;
  /** Passes new connections through again. */
  restore(): void;
  close(): Promise<void>;
}

/** Proxies `127.0.0.1:<free port>` to `target` (`http://127.0.0.1:PORT`), read at each connection. */
export async function startCutOffProxy(target: () => string): Promise<CutOffProxy> {
  const open = new Set<Socket>();
  let refusing = false;
  const server = createServer((client) => {
    if (refusing) {
      client.destroy();
      return;
    }
    const { hostname, port } = new URL(target());
    const upstream = connect(Number(port), hostname);
    const end = () => {
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    open.add(client).add(upstream);
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    cut() {
      refusing = true;
      for (const socket of open) socket.destroy();
    },
    restore() {
      refusing = false;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const socket of open) socket.destroy();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
