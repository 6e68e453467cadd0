/**
 * host/faults/: named crash windows for the fault-injection suite (test/faults/); inert
 * unless the host is started with TETHER_FAULTS=1 and a point name.
 */
export { armFaultPoints, faultPoint } from './fault-points.js';
