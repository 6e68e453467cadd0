/**
 * The durable outbox (docs/protocol.md §6.1): every command gets its commandId and is stored
 * before its first send, and stays until the host answers it for good.
 */
import { z } from 'zod/mini';
import {
  b64u,
  CommandId,
  type CommandOpName,
  JsonObject,
  Millis,
  type OpArgs,
  OPS,
  parseWith,
} from '../../protocol/index.js';
import { type RandomBytes, secureRandomBytes } from '../../pairing/index.js';
import type { ClientStorage } from './storage.js';

/** Ops that change state and carry a `commandId`. */
const COMMAND_OPS = Object.entries(OPS)
  .filter(([, spec]) => spec.command)
  .map(([op]) => op) as [CommandOpName, ...CommandOpName[]];

/** A command's args as a caller gives them: the outbox adds `commandId`. */
export type CommandArgs<O extends CommandOpName> = Omit<OpArgs<O>, 'commandId'>;

/** A command waiting for its answer, as stored. `args` includes `commandId`. */
export const PendingCommand = z.object({
  commandId: CommandId,
  op: z.enum(COMMAND_OPS),
  args: JsonObject,
  createdAt: Millis,
});
/** A command waiting for its answer; `args` includes `commandId`. */
export type PendingCommand = z.infer<typeof PendingCommand>;

/** A fresh commandId: 18 random bytes, 24 base64url characters. */
function newCommandId(randomBytes: RandomBytes = secureRandomBytes): string {
  return b64u(randomBytes(18));
}

/** Injectable randomness (commandIds) and clock (createdAt); who to tell of changes. */
export interface OutboxOptions {
  randomBytes?: RandomBytes;
  now?: () => number;
  /** Called with the pending commands after they were loaded and after each stored change. */
  changed?: (pending: readonly PendingCommand[]) => void;
}

/** One host's pending commands, in the order they were made, mirrored in storage. */
export class Outbox {
  private entries: PendingCommand[] = [];
  private loading: Promise<void> | undefined;
  private writing: Promise<void> = Promise.resolve();
  private readonly randomBytes: RandomBytes;
  private readonly now: () => number;
  private readonly changed: (pending: readonly PendingCommand[]) => void;

  constructor(
    private readonly storage: ClientStorage,
    private readonly key: string,
    options: OutboxOptions = {},
  ) {
    this.randomBytes = options.randomBytes ?? secureRandomBytes;
    this.now = options.now ?? Date.now;
    this.changed = options.changed ?? (() => undefined);
  }

  /** Commands still waiting, oldest first. */
  get pending(): readonly PendingCommand[] {
    return this.entries;
  }

  /** Reads what an earlier client left (once). Stored entries that fail the schema are dropped. */
  load(): Promise<void> {
    this.loading ??= this.storage.get(this.key).then((value) => {
      const stored = value === undefined ? [] : parseWith(z.array(z.unknown()), value, 'outbox');
      const valid = stored.flatMap((entry) => {
        const parsed = PendingCommand.safeParse(entry);
        return parsed.success ? [parsed.data] : [];
      });
      this.entries = [...valid, ...this.entries];
      this.changed(this.entries);
    });
    return this.loading;
  }

  /**
   * Gives the command a fresh commandId (or `commandId`, one the caller kept to make the
   * same command again after a reload: still pending, it is not stored twice), validates it
   * (`invalid_request` otherwise, and nothing is stored) and stores it. Resolves once it is
   * durable; only then is it {@link Outbox.pending}, so nothing sends it before.
   */
  async add<O extends CommandOpName>(
    op: O,
    args: CommandArgs<O>,
    commandId = newCommandId(this.randomBytes),
  ): Promise<PendingCommand> {
    await this.load();
    const held = this.entries.find((entry) => entry.commandId === commandId);
    if (held !== undefined) return held;
    const full = parseWith(OPS[op].args, { ...args, commandId }, `args of ${op}`);
    const entry: PendingCommand = { commandId, op, args: full, createdAt: this.now() };
    await this.change((entries) => [...entries, entry]);
    return entry;
  }

  /** Drops an answered command; resolves once storage no longer holds it. */
  async remove(commandId: string): Promise<void> {
    await this.load();
    await this.change((entries) => entries.filter((entry) => entry.commandId !== commandId));
  }

  /**
   * Stores `transform(entries)` after any write in progress (so none is lost), and takes
   * it as the entries once stored; a failed write changes nothing.
   */
  private change(transform: (entries: PendingCommand[]) => PendingCommand[]): Promise<void> {
    const write = this.writing.then(async () => {
      const next = transform(this.entries);
      await this.storage.set(this.key, next);
      this.entries = next;
      this.changed(next);
    });
    this.writing = write.catch(() => undefined);
    return write;
  }
}
