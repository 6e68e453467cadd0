/**
 * host/power/testing: names the tests use that production code does not. Production code
 * never imports this module (eslint.config.js); the public face is ./index.ts.
 */
export { keepAwake } from './keep-awake.js';
export { watchForWake } from './wake-watch.js';
