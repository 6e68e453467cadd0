/**
 * The order a host starts and stops in: steps start one after another and stop in reverse,
 * so each stops while what it relies on still runs. A start that fails stops the steps
 * already started, in reverse, before it throws.
 */

/** One part of a running host: what starting it does, and what stopping it undoes. */
export interface HostStep {
  name: string;
  start?: () => unknown;
  stop: () => unknown;
}

export class HostLifecycle {
  readonly #started: HostStep[] = [];

  constructor(private readonly steps: readonly HostStep[]) {}

  /** Starts every step in order; on a failure, stops those started and throws it. */
  async start(): Promise<void> {
    for (const step of this.steps) {
      try {
        await step.start?.();
      } catch (error) {
        await this.stop();
        throw error;
      }
      this.#started.push(step);
    }
  }

  /** Stops the started steps, last started first. */
  async stop(): Promise<void> {
    for (let step = this.#started.pop(); step !== undefined; step = this.#started.pop()) {
      await step.stop();
    }
  }
}
