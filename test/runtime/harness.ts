/**
 * A runtime on a real SQLite file in a temp folder, talking over HTTP to the scripted
 * model server, with a real workspace folder.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Event } from '../../protocol/index.js';
import { createModelAdapter } from '../../host/model/index.js';
import { type ModelAdapterConfig } from '../../host/model/testing.js';
import { Runtime } from '../../host/runtime/index.js';
import { type RuntimeOptions } from '../../host/runtime/testing.js';
import { Store } from '../../host/store/index.js';
import {
  startScriptedModelServer,
  type ScriptedModelServer,
} from '../support/scripted-model-server.js';

export interface Harness {
  dataDir: string;
  workspace: string;
  store: Store;
  runtime: Runtime;
  model: ScriptedModelServer;
  /** Every committed event since the harness started, in commit order. */
  events: Event[];
  /** Event types of one run, in order. */
  typesOf(runId: string): string[];
  /** Closes and reopens the store and runtime on the same files (a host restart). */
  restart(options?: Partial<RuntimeOptions>): Promise<void>;
  close(): Promise<void>;
}

let counter = 0;

export function commandId(): string {
  counter += 1;
  return `cmd-test-${process.pid}-${counter}-${Date.now()}`;
}

export async function startHarness(
  options: {
    runtime?: Partial<RuntimeOptions>;
    adapter?: Partial<ModelAdapterConfig>;
    withModel?: boolean;
    start?: boolean;
  } = {},
): Promise<Harness> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'tether-runtime-')));
  const dataDir = join(root, 'data');
  const workspace = join(root, 'workspace');
  mkdirSync(join(workspace, 'src'), { recursive: true });
  writeFileSync(join(workspace, 'README.md'), '# Demo\nA small project.\n');
  writeFileSync(join(workspace, 'src', 'main.ts'), 'console.log("hi");\n');
  const model = await startScriptedModelServer();
  const adapter = createModelAdapter({
    baseUrl: model.baseUrl,
    apiKey: 'test-key',
    provider: 'generic',
    retryBaseDelayMs: 5,
    retryMaxDelayMs: 50,
    ...options.adapter,
  });
  const events: Event[] = [];
  const makeRuntime = async (extra: Partial<RuntimeOptions> = {}, start = true) => {
    const store = await Store.open({ dataDir });
    store.subscribe((committed) => events.push(...committed));
    const runtime = new Runtime(store, {
      model:
        options.withModel === false
          ? null
          : { adapter, name: 'scripted-model', available: ['scripted-model'] },
      workspaces: [{ name: 'workspace', path: workspace }],
      ...options.runtime,
      ...extra,
    });
    if (start) runtime.start();
    return { store, runtime };
  };
  let current = await makeRuntime({}, options.start !== false);
  const harness: Harness = {
    dataDir,
    workspace,
    model,
    events,
    get store() {
      return current.store;
    },
    get runtime() {
      return current.runtime;
    },
    typesOf: (runId) => events.filter((event) => event.runId === runId).map((event) => event.type),
    async restart(extra) {
      await current.runtime.whenIdle();
      current.store.close();
      current = await makeRuntime(extra);
    },
    async close() {
      await current.runtime.whenIdle();
      current.store.close();
      await model.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
  return harness;
}
