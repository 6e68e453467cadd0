/**
 * host/power: keeping the machine awake while runs need it, and noticing a wake.
 */
export { keepAwake } from './keep-awake.js';
export { watchForWake } from './wake-watch.js';
