/**
 * protocol/: the wire contract of docs/protocol.md as schemas, types, digests and errors.
 * Runs in Node and the browser; imports no other folder of ours.
 */
export * from './encoding.js';
export * from './digest.js';
export * from './errors.js';
export * from './failures.js';
export * from './validate.js';
export * from './primitives.js';
export * from './handshake.js';
export * from './states.js';
export * from './records.js';
export * from './events.js';
export * from './ops.js';
export * from './messages.js';
