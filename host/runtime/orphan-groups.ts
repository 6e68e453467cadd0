/**
 * The process groups nobody owns any more (`store.orphanGroups`): a crashed host's
 * commands, killed at start and again once commits work after failing.
 */
import { uptime } from 'node:os';
import { isPersistenceFailed, type Store } from '../store/index.js';

export class OrphanGroups {
  /** Tool calls whose orphaned group is being killed now. */
  private readonly killing = new Set<string>();

  constructor(
    private readonly store: Store,
    private readonly kill: ((pgid: number) => Promise<unknown>) | undefined,
    private readonly reportError: (error: unknown) => void,
  ) {}

  /**
   * Kills each orphaned group, forgotten once the kill is done. A group that started
   * before the machine last booted died with it; its number may now belong to someone
   * else, so it is forgotten without a signal.
   */
  killAll(): void {
    const bootedAt = Date.now() - uptime() * 1000;
    const { kill } = this;
    for (const group of this.store.orphanGroups.list()) {
      if (this.killing.has(group.toolCallId)) continue;
      if (kill === undefined || group.startedAt === null || group.startedAt < bootedAt) {
        this.forget(group.toolCallId);
        continue;
      }
      this.killing.add(group.toolCallId);
      kill(group.pgid)
        .catch((error: unknown) => this.reportError(error))
        .finally(() => {
          this.killing.delete(group.toolCallId);
          this.forget(group.toolCallId);
        });
    }
  }

  private forget(toolCallId: string): void {
    try {
      this.store.write(() => this.store.orphanGroups.remove(toolCallId));
    } catch (error) {
      // Commits fail: the group stays recorded and is tried again once they work.
      if (!isPersistenceFailed(error)) this.reportError(error);
    }
  }
}
