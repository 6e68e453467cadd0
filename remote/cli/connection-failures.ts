/**
 * The sockets of `tether remote`, keeping the last error a connection failed with: the
 * client core only sees "closed with 1006", while the socket knows it was DNS, a refusal,
 * a timeout or TLS. The CLI words a lost connection from it.
 */
import WebSocket from 'ws';
import type { WebSocketFactory } from '../client/index.js';
import { nodeWebSocketFactory } from '../client/node/index.js';
import { describeNetworkFailure, tetherCommand } from '../../common/cli/index.js';

/** A connection attempt that failed below the channel: where to, and the socket's error. */
interface ConnectionFailure {
  url: string;
  error: unknown;
}

/** The client core's Node sockets, remembering why the last one failed. */
export class ConnectionFailures {
  private last: ConnectionFailure | undefined;

  private readonly open = nodeWebSocketFactory();

  readonly socketFactory: WebSocketFactory = (url) => {
    const socket = this.open(url);
    if (socket instanceof WebSocket) {
      socket.on('error', (error) => (this.last = { url, error }));
      socket.on('open', () => (this.last = undefined));
    }
    return socket;
  };

  /**
   * What to say instead of `connection lost (1006)`: the host that failed, how, and what
   * to try; undefined when no socket failed.
   */
  describe(): string | undefined {
    if (this.last === undefined) return undefined;
    const url = new URL(this.last.url);
    const origin = `${url.protocol === 'wss:' ? 'https' : 'http'}://${url.host}`;
    return describeNetworkFailure(origin, this.last.error, {
      otherAddress: `run \`${tetherCommand()} pair --origin http://<the host's LAN address>:${url.port || (url.protocol === 'wss:' ? '443' : '80')}\` on the host for a link with an address this device can reach`,
    });
  }
}
