/**
 * The host's own HTTPS, with `--https`: the local CA (made once, kept in the data
 * directory) and this machine's certificate for the names it is reached by (docs/https.md).
 */
import type { HostConfig } from '../config/index.js';
import type { Logger } from '../log/index.js';
import { loadOrCreateLocalTls, serverNames, type LocalTls } from '../tls/index.js';

/** The local CA and this machine's certificate, with `--https`; null without. */
export function localTls(config: HostConfig, log: Logger): LocalTls | null {
  if (!config.https) return null;
  const tls = loadOrCreateLocalTls({
    dataDir: config.dataDir,
    names: serverNames(),
    hostName: config.hostName,
  });
  log.info('local CA ready', {
    names: tls.names,
    caCreated: tls.caCreated,
    serverIssued: tls.serverIssued,
  });
  return tls;
}
