/**
 * host/model/: the chat model behind one ModelAdapter contract, whatever the provider
 * (DeepSeek, OpenAI, Ollama or any OpenAI-compatible endpoint).
 */
export type {
  ModelAdapter,
  ModelCompletion,
  ModelFailure,
  ModelMessage,
  ModelRequest,
  ModelStreamEvent,
  ModelToolSpec,
  ProviderKind,
} from './types.js';
export { PROVIDER_KINDS } from './types.js';
export { createModelAdapter } from './model-adapter.js';
export { listModels } from './model-list.js';
export { createTranscriber, type Transcriber } from './transcription.js';
export { createDemoModel, DEMO_MODEL_LABEL, DEMO_MODEL_NAME } from './demo-model.js';
