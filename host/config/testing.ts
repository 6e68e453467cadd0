/**
 * host/config/testing: names the tests use that production code does not. Production code
 * never imports this module (eslint.config.js); the public face is ./index.ts.
 */
export { HOST_FLAGS } from './flags.js';
export type { LoadHostConfigOptions } from './types.js';
