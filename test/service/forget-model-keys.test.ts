/**
 * The host reads the model key variables once and removes them from its own
 * process.env, so nothing it starts later can inherit or read them from it; the key it
 * read is still the one it uses.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startInProcessHost } from '../support/in-process-host.js';
import { startScriptedModelServer } from '../support/scripted-model-server.js';

const NAMES = ['TETHER_MODEL_BASE_URL', 'TETHER_MODEL', 'TETHER_MODEL_API_KEY', 'OPENAI_API_KEY'];

afterEach(() => {
  for (const name of [...NAMES, 'MY_MODEL_KEY']) delete process.env[name];
});

describe('the host forgets the model key variables once read', () => {
  it('removes them from process.env and keeps using the key', async () => {
    await using model = await startScriptedModelServer();
    process.env['TETHER_MODEL_BASE_URL'] = model.baseUrl;
    process.env['TETHER_MODEL'] = 'scripted-model';
    process.env['TETHER_MODEL_API_KEY'] = 'sk-forgotten-after-start';
    process.env['OPENAI_API_KEY'] = 'sk-unused-but-forgotten';
    process.env['MY_MODEL_KEY'] = 'sk-forgotten-after-start';
    await using host = await startInProcessHost();
    expect(host.host.config.model?.apiKey).toBe('sk-forgotten-after-start');
    expect(process.env['TETHER_MODEL_API_KEY']).toBeUndefined();
    expect(process.env['OPENAI_API_KEY']).toBeUndefined();
    // Any variable holding the key goes, whatever its name (model.apiKeyEnv).
    expect(process.env['MY_MODEL_KEY']).toBeUndefined();
    // The settings that are not secret stay.
    expect(process.env['TETHER_MODEL']).toBe('scripted-model');
  });
});
