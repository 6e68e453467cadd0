/**
 * host/power: keeping the machine awake while runs need it, and noticing a wake.
 */
export { createPowerWatch } from './power-watch.js';
