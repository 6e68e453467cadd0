/**
 * host/server/testing: names the tests use that production code does not. Production code
 * never imports this module (eslint.config.js); the public face is ./index.ts.
 */
export { createHttpApp } from './http-app.js';
export { DownloadLinks } from './download-links.js';
