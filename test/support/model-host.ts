/**
 * The real host process answered by the scripted model: what a file's tests of the host
 * over the wire share, started in its `beforeAll` and disposed after its tests.
 */
import { startHostProcess, type HostProcess, type HostProcessOptions } from './host-process.js';
import { startScriptedModelServer, type ScriptedModelServer } from './scripted-model-server.js';

/** A host process and the scripted model it asks. */
export interface ModelHost {
  readonly model: ScriptedModelServer;
  readonly host: HostProcess;
  /** Stops the host and removes its folders, then closes the model. */
  dispose(): Promise<void>;
  /** {@link ModelHost.dispose}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}

/**
 * Starts the scripted model, then a host process whose model it is (`options` as
 * `startHostProcess` takes them); a host that fails to start closes the model again.
 */
export async function startModelHost(
  options: Omit<HostProcessOptions, 'model'> = {},
): Promise<ModelHost> {
  const model = await startScriptedModelServer();
  let host: HostProcess;
  try {
    host = await startHostProcess({ ...options, model: model.baseUrl });
  } catch (error) {
    await model.close();
    throw error;
  }
  const dispose = async () => {
    await host.dispose();
    await model.close();
  };
  return { model, host, dispose, [Symbol.asyncDispose]: dispose };
}
