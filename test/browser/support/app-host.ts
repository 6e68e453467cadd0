/**
 * The host the browser tests open: the real `tether start` process (built code in dist/,
 * serving the built app from dist/app at `/`) with the scripted model, kept on one port and
 * one data directory across stops and restarts, so a page's stored host record stays valid.
 */
import { existsSync } from 'node:fs';
import { z } from 'zod';
import { startHostProcess, type HostProcess } from '../../support/host-process.js';
import {
  startScriptedModelServer,
  type ScriptedModelServer,
} from '../../support/scripted-model-server.js';

const APP_INDEX = new URL('../../../dist/app/index.html', import.meta.url).pathname;

/** A running host with its scripted model. */
export interface AppHost {
  readonly host: HostProcess;
  readonly model: ScriptedModelServer;
  readonly hostId: string;
  /** `http://127.0.0.1:PORT`. */
  readonly origin: string;
  /** `http://localhost:PORT`: the same host under the name a service worker registers on. */
  readonly localhostOrigin: string;
  readonly dataDir: string;
  /** A fresh single-use pairing link naming `origin` (default: the 127.0.0.1 origin). */
  pairLink(origin?: string): Promise<string>;
  /** The SAS the host computed for a paired offer, from its admin API. */
  offerSas(offerId: string): Promise<string | undefined>;
  /** Stops the host and the model and removes the data. */
  dispose(): Promise<void>;
}

const Health = z.looseObject({ hostId: z.string() });

/**
 * How to start the host: `env` adds variables to its environment (e.g. the fault switches),
 * `args` adds `tether start` flags (e.g. `--demo`, which answers with the demo model instead
 * of the scripted one).
 */
export interface AppHostOptions {
  env?: Record<string, string>;
  args?: string[];
  /** The host's config file (`--config`), e.g. a policy that allows a command. */
  config?: Record<string, unknown>;
}

/**
 * Starts the scripted model and the host. Fails at once, with how to fix it, when dist/app
 * holds no built app: the tests would otherwise time out on a 404 page.
 */
export async function startAppHost(options: AppHostOptions = {}): Promise<AppHost> {
  if (!existsSync(APP_INDEX)) {
    throw new Error(`no built app at ${APP_INDEX}: run \`npm run build\` first`);
  }
  const model = await startScriptedModelServer();
  const host = await startHostProcess({
    model: model.baseUrl,
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.args === undefined ? {} : { args: options.args }),
    ...(options.config === undefined ? {} : { config: options.config }),
  });
  const health = await fetch(`${host.url}/v1/health`);
  const { hostId } = Health.parse(await health.json());
  const port = new URL(host.url).port;
  const index = await fetch(`${host.url}/`);
  if (!index.ok || !(await index.text()).includes('<html')) {
    await host.dispose();
    await model.close();
    throw new Error(`the host does not serve the app at ${host.url}/ (status ${index.status})`);
  }
  return {
    host,
    model,
    hostId,
    origin: host.url,
    localhostOrigin: `http://localhost:${port}`,
    dataDir: host.dataDir,
    pairLink: (origin) => host.pairLink(origin),
    async offerSas(offerId) {
      const response = await host.admin('GET', `/admin/api/offers/${offerId}`);
      return z.looseObject({ sas: z.string().optional() }).parse(await response.json()).sas;
    },
    async dispose() {
      await host.dispose();
      await model.close();
    },
  };
}
