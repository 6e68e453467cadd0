/**
 * The last known state of each host, kept in IndexedDB so the app opens offline showing
 * it (marked stale until live): records and recent timelines, never the live previews.
 */
import { z } from 'zod/mini';
import {
  Approval,
  Artifact,
  Device,
  Event,
  Message,
  OPS,
  type OpResult,
  Run,
  Session,
  ToolCall,
} from '#protocol';
import type { ClientStorage, HostState } from '#client';

/** Most events of each run's timeline kept in the cache. */
const TIMELINE_EVENTS = 500;

const CachedState = z.object({
  sessions: z.record(z.string(), Session),
  runs: z.record(z.string(), Run),
  toolCalls: z.record(z.string(), ToolCall),
  approvals: z.record(z.string(), Approval),
  messages: z.record(z.string(), z.array(Message)),
  artifacts: z.record(z.string(), z.array(Artifact)),
  devices: z.record(z.string(), Device),
  timelines: z.record(z.string(), z.array(Event)),
});

/** The parts of a host state the cache keeps (never the live previews and output tails). */
const CACHED_PARTS = [
  'sessions',
  'runs',
  'toolCalls',
  'approvals',
  'messages',
  'artifacts',
  'devices',
  'timelines',
] as const satisfies readonly (keyof HostState)[];

/** Whether the cache would keep the same of `a` and `b` (states change immutably). */
export function sameCachedState(a: HostState, b: HostState): boolean {
  return CACHED_PARTS.every((part) => a[part] === b[part]);
}

/** What `host.info` answered. */
export type HostInfo = OpResult<'host.info'>;

const stateKey = (hostId: string) => `app/state/${hostId}`;
const infoKey = (hostId: string) => `app/info/${hostId}`;

/** Reads and writes the cached state and `host.info` of each host. */
export class HostCache {
  constructor(private readonly storage: ClientStorage) {}

  /** The cached state, or undefined when there is none or it does not validate. */
  async state(hostId: string): Promise<HostState | undefined> {
    const parsed = CachedState.safeParse(await this.storage.get(stateKey(hostId)));
    if (!parsed.success) return undefined;
    // The Event schema checks each payload against its type, as the channel does.
    const timelines = parsed.data.timelines as Record<string, Event[]>;
    return { ...parsed.data, timelines, previews: {}, outputs: {} };
  }

  async saveState(hostId: string, state: HostState): Promise<void> {
    const timelines = Object.fromEntries(
      Object.entries(state.timelines).map(([runId, events]) => [
        runId,
        events.slice(-TIMELINE_EVENTS),
      ]),
    );
    await this.storage.set(stateKey(hostId), { ...state, previews: {}, outputs: {}, timelines });
  }

  async info(hostId: string): Promise<HostInfo | undefined> {
    const parsed = OPS['host.info'].result.safeParse(await this.storage.get(infoKey(hostId)));
    return parsed.success ? parsed.data : undefined;
  }

  async saveInfo(hostId: string, info: HostInfo): Promise<void> {
    await this.storage.set(infoKey(hostId), info);
  }

  /** Forgets everything cached about a host. */
  async forget(hostId: string): Promise<void> {
    await this.storage.delete(stateKey(hostId));
    await this.storage.delete(infoKey(hostId));
  }
}
