/**
 * What a started host does about power: keeps the machine awake while runs need it
 * (keep-awake.ts) and notices a wake (wake-watch.ts), said in the log.
 */
import { keepAwake, type KeepAwakeHandle, type KeepAwakeOptions } from './keep-awake.js';
import { watchForWake } from './wake-watch.js';

export interface PowerWatch {
  start(): void;
  stop(): void;
}

export function createPowerWatch(options: KeepAwakeOptions): PowerWatch {
  let power: KeepAwakeHandle | null = null;
  let stopWakeWatch = (): void => undefined;
  return {
    start: () => {
      const started = keepAwake(options);
      power = started;
      // Remotes learn of a wake by reconnecting; the log says how long the machine slept.
      stopWakeWatch = watchForWake((asleepMs) => {
        options.log.warn('the machine slept: a timer fired late', { asleepMs });
        started.check();
      });
    },
    stop: () => {
      stopWakeWatch();
      power?.stop();
    },
  };
}
