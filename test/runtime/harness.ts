/**
 * A runtime on a real SQLite file in a temp folder, with a real workspace folder, talking
 * over HTTP to the scripted model server, or (`model: 'in-process'`) to the in-process
 * model fake for tests of the loop's logic alone.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Event } from '../../protocol/index.js';
import type { Redactor } from '../../host/log/index.js';
import { createModelAdapter } from '../../host/model/index.js';
import { type ModelAdapterConfig } from '../../host/model/testing.js';
import { Runtime } from '../../host/runtime/index.js';
import { type RuntimeOptions } from '../../host/runtime/testing.js';
import { Store } from '../../host/store/index.js';
import {
  createInProcessModel,
  type FakeTurn,
  type InProcessModel,
} from '../support/in-process-model.js';
import {
  startScriptedModelServer,
  type ScriptedModelServer,
} from '../support/scripted-model-server.js';
import { tempDir } from '../support/temp-dir.js';

export interface Harness<Model = ScriptedModelServer> {
  dataDir: string;
  workspace: string;
  store: Store;
  runtime: Runtime;
  model: Model;
  /** Every committed event since the harness started, in commit order. */
  events: Event[];
  /** Event types of one run, in order. */
  typesOf(runId: string): string[];
  /** Closes and reopens the store and runtime on the same files (a host restart). */
  restart(options?: Partial<RuntimeOptions>): Promise<void>;
  /** Waits for the runtime to go idle, closes the store and model, removes the folders. */
  close(): Promise<void>;
  /** {@link Harness.close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}

let counter = 0;

export function commandId(): string {
  counter += 1;
  return `cmd-test-${process.pid}-${counter}-${Date.now()}`;
}

interface HarnessOptions {
  runtime?: Partial<RuntimeOptions>;
  adapter?: Partial<ModelAdapterConfig>;
  withModel?: boolean;
  start?: boolean;
  /** The in-process model's answer when no turn is queued (see createInProcessModel). */
  answer?: (request: Parameters<InProcessModel['stream']>[0]) => FakeTurn;
  /** The host's secrets, as the store masks them. */
  secrets?: Redactor;
}

export function startHarness(
  options: HarnessOptions & { model: 'in-process' },
): Promise<Harness<InProcessModel>>;
export function startHarness(options?: HarnessOptions & { model?: 'http' }): Promise<Harness>;
export async function startHarness(
  options: HarnessOptions & { model?: 'http' | 'in-process' } = {},
): Promise<Harness<ScriptedModelServer | InProcessModel>> {
  const temp = tempDir('tether-runtime-');
  const root = temp.path;
  const dataDir = join(root, 'data');
  const workspace = join(root, 'workspace');
  mkdirSync(join(workspace, 'src'), { recursive: true });
  writeFileSync(join(workspace, 'README.md'), '# Demo\nA small project.\n');
  writeFileSync(join(workspace, 'src', 'main.ts'), 'console.log("hi");\n');
  const model =
    options.model === 'in-process'
      ? createInProcessModel(options.answer)
      : await startScriptedModelServer();
  const adapter =
    'baseUrl' in model
      ? createModelAdapter({
          baseUrl: model.baseUrl,
          apiKey: 'test-key',
          provider: 'generic',
          retryBaseDelayMs: 5,
          retryMaxDelayMs: 50,
          ...options.adapter,
        })
      : model;
  const events: Event[] = [];
  const makeRuntime = async (extra: Partial<RuntimeOptions> = {}, start = true) => {
    const store = await Store.open({
      dataDir,
      ...(options.secrets === undefined ? {} : { secrets: options.secrets }),
    });
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
  const harness: Harness<ScriptedModelServer | InProcessModel> = {
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
      if ('close' in model) await model.close();
      temp.remove();
    },
    [Symbol.asyncDispose]: () => harness.close(),
  };
  return harness;
}
