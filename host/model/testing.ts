/**
 * host/model/testing: names the tests use that production code does not. Production code
 * never imports this module (eslint.config.js); the public face is ./index.ts.
 */
export type { ModelAdapterConfig, ModelStreamEvent } from './types.js';
export { takesImages } from './provider-rules.js';
