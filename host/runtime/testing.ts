/**
 * host/runtime/testing: names the tests use that production code does not. Production code
 * never imports this module (eslint.config.js); the public face is ./index.ts.
 */
export { DEFAULT_LIMITS } from './types.js';
export type { RuntimeOptions } from './types.js';
export { runChanges } from './run-changes.js';
export { UNUSED_ATTACHMENT_MS, UploadSweep } from './upload-sweep.js';
