/**
 * The real host started inside the test process (`startHost`, as `tether start` does),
 * for tests that drive its store directly or measure its memory.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { tempDir } from './temp-dir.js';
import { startHost, type RunningHost } from '../../host/cli/start-host.js';

export interface InProcessHost {
  host: RunningHost;
  dataDir: string;
  pairLink(): Promise<string>;
  admin(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<Response>;
  /** Stops the host and removes its folders. */
  dispose(): Promise<void>;
  /** {@link InProcessHost.dispose}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}

const AdminFile = z.object({ url: z.string(), token: z.string() });

export async function startInProcessHost(extraArgs: string[] = []): Promise<InProcessHost> {
  const temp = tempDir('tether-inproc-');
  const root = temp.path;
  const dataDir = join(root, 'data');
  mkdirSync(join(root, 'ws'));
  process.env['TETHER_KEY_STORE'] = 'file';
  process.env['TETHER_LOG_LEVEL'] = 'warn';
  const host = await startHost(
    ['--data', dataDir, '--port', '0', '--workspace', join(root, 'ws'), ...extraArgs],
    () => undefined,
  );
  const admin = async (
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) => {
    const file = AdminFile.parse(JSON.parse(readFileSync(join(dataDir, 'admin.json'), 'utf8')));
    return fetch(`${file.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${file.token}`,
        'content-type': 'application/json',
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  };
  const dispose = async () => {
    await host.stop();
    temp.remove();
  };
  return {
    host,
    dataDir,
    admin,
    async pairLink() {
      const response = await admin('POST', '/admin/api/offers', {});
      return z.object({ link: z.string() }).parse(await response.json()).link;
    },
    dispose,
    [Symbol.asyncDispose]: dispose,
  };
}
