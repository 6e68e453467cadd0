/**
 * protocol/testing: names the tests use that production code does not (the vectors' hex,
 * the state and op lists a test walks). Production code never imports this module.
 */
export { hexToBytes } from './encoding.js';
export { canonicalJson } from './digest.js';
export { MODEL_FAILURE_CODES, RUN_FAILURE_CODES } from './failures.js';
export { HostHandshakeMessage, RemoteHandshakeMessage } from './handshake.js';
export { APPROVAL_STATES, RUN_STATES, TOOL_CALL_STATES } from './states.js';
export { EVENT_TYPES } from './events.js';
export type { EventType } from './events.js';
export { OP_NAMES } from './ops.js';
