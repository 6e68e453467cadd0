/**
 * What a remote command gets from the CLI (where to print, when to stop, the environment,
 * the sockets), and the client it opens on its state file.
 */
import { isAbsolute, join, resolve } from 'node:path';
import { nativeChannelCrypto } from '../../pairing/node/index.js';
import { loadQuickEventCheck, TetherClient, type WebSocketFactory } from '../client/index.js';
import { FileStorage } from '../client/node/index.js';

/** The CLI's side of a remote command; tests pass their own. */
export interface RemoteContext {
  /** Writes to stdout. */
  out(text: string): void;
  /** Writes to stderr. */
  err(text: string): void;
  /** Aborted on Ctrl-C. */
  signal: AbortSignal;
  /**
   * stdin when it is a terminal, where a person can answer a question (`approve` asks
   * before approving); absent when it is a pipe or a file, or in tests.
   */
  terminal?: NodeJS.ReadableStream | undefined;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  homedir: string;
  socketFactory: WebSocketFactory;
  /** How the last socket failed (DNS, refused, timeout, TLS) and what to try, if one did. */
  connectionFailure?: () => string | undefined;
}

/** The flags every remote command takes. */
export const STATE_FLAG = { state: { type: 'string' } } as const;
/** The flag of every command that talks to one host. */
export const HOST_FLAG = { host: { type: 'string' } } as const;

/**
 * The state file: `--state FILE`, else TETHER_REMOTE_STATE, else
 * `$XDG_CONFIG_HOME/tether/remote.json` (when XDG_CONFIG_HOME is absolute), else
 * `~/.config/tether/remote.json`.
 */
export function statePath(ctx: RemoteContext, flag: string | undefined): string {
  const fromEnv = ctx.env.TETHER_REMOTE_STATE;
  if (flag !== undefined) return resolve(ctx.cwd, flag);
  if (fromEnv !== undefined && fromEnv !== '') return resolve(ctx.cwd, fromEnv);
  const xdg = ctx.env.XDG_CONFIG_HOME;
  const config = xdg !== undefined && isAbsolute(xdg) ? xdg : join(ctx.homedir, '.config');
  return join(config, 'tether', 'remote.json');
}

/** A client keeping its identity, hosts and outboxes in the state file (0600). */
export function openClient(ctx: RemoteContext, stateFlag: string | undefined): TetherClient {
  void loadQuickEventCheck();
  return new TetherClient({
    storage: new FileStorage(statePath(ctx, stateFlag)),
    socketFactory: ctx.socketFactory,
    crypto: nativeChannelCrypto().crypto,
  });
}
