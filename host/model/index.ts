/**
 * host/model/: the chat model behind one ModelAdapter contract, whatever the provider
 * (DeepSeek, OpenAI, Ollama or any OpenAI-compatible endpoint).
 */
export type {
  ModelAdapter,
  ModelAdapterConfig,
  ModelCompletion,
  ModelErrorClass,
  ModelFailure,
  ModelMessage,
  ModelRequest,
  ModelStreamEvent,
  ModelToolCall,
  ModelToolSpec,
  ModelUsage,
  ProviderKind,
} from './types.js';
export { createModelAdapter } from './model-adapter.js';
export { createDemoModel, DEMO_MODEL_LABEL, DEMO_MODEL_NAME } from './demo-model.js';
