/**
 * `tether models` (issue 15): it asks the endpoint's GET /models over real HTTP and lists
 * what it offers; a failing endpoint is a classified, masked message and exit code 1.
 */
import { describe, expect, it } from 'vitest';
import { modelsCommand } from '../../host/cli/models-command.js';
import type { HostCommandContext } from '../../host/cli/host-command.js';
import { startScriptedModelServer } from '../support/scripted-model-server.js';
import { tempDir } from '../support/temp-dir.js';

function context(dataDir: string) {
  const out: string[] = [];
  const err: string[] = [];
  const ctx: HostCommandContext = {
    out: (text) => out.push(text),
    err: (text) => err.push(text),
    signal: new AbortController().signal,
    dataDir: (flag) => flag ?? dataDir,
  };
  return { ctx, out, err };
}

describe('tether models', () => {
  it('lists the models the endpoint offers, as a table and as JSON', async () => {
    await using server = await startScriptedModelServer({
      models: ['deepseek-v4-flash', 'deepseek-v4-pro'],
    });
    using data = tempDir('tether-models-');
    const { ctx, out } = context(data.path);

    const args = ['--base-url', server.baseUrl, '--data', data.path];
    expect(await modelsCommand(args, ctx)).toBe(0);
    expect(await modelsCommand([...args, '--json'], ctx)).toBe(0);

    expect(server.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      'GET /v1/models',
      'GET /v1/models',
    ]);
    const [table, hint, json] = out;
    expect(table?.split('\n').slice(0, 3)).toEqual([
      'MODEL              OWNED BY',
      'deepseek-v4-flash  scripted',
      'deepseek-v4-pro    scripted',
    ]);
    expect(hint).toContain(`tether model set --base-url ${server.baseUrl} --model <MODEL>`);
    expect(JSON.parse(json ?? '')).toEqual({
      baseUrl: server.baseUrl,
      models: [
        { id: 'deepseek-v4-flash', ownedBy: 'scripted' },
        { id: 'deepseek-v4-pro', ownedBy: 'scripted' },
      ],
    });
  });

  it('says why when the endpoint cannot be reached, and exits 1', async () => {
    const closed = await startScriptedModelServer();
    const baseUrl = closed.baseUrl;
    await closed.close();
    using data = tempDir('tether-models-');
    const { ctx, out, err } = context(data.path);

    expect(await modelsCommand(['--base-url', baseUrl, '--data', data.path], ctx)).toBe(1);

    expect(out).toEqual([]);
    expect(err.join('')).toMatch(new RegExp(`^tether models: ${baseUrl} answered network: `));
  });
});
