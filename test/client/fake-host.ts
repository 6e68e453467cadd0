/**
 * A tiny in-memory host for client tests: the REAL pairing/ state machines (acceptPair,
 * acceptHello, FrameCipher) behind fake sockets, a durable-looking event log, command
 * dedup by commandId, replay/snapshot subscriptions, and switches for faults.
 */
import {
  digest,
  type ErrorCode,
  type Event,
  type NewEvent,
  type Run,
  type Session,
  TetherError,
} from '../../protocol/index.js';
import { type EventType } from '../../protocol/testing.js';
import {
  createIdentity,
  createPairOffer,
  formatPairLink,
  type PairOffer,
} from '../../pairing/index.js';
import type { WebSocketFactory } from '../../remote/client/index.js';
import { FakeSocket } from './fake-socket.js';
import { HostSide } from './fake-host-side.js';

export const FAKE_ORIGIN = 'http://fake-host.test';

export interface DeviceEntry {
  devicePk: Uint8Array;
  revoked: boolean;
  name: string;
}

export class FakeHost {
  readonly identity = createIdentity();
  readonly hostName = 'Fake Mac';
  instance = 'ins_1';
  /** False: every socket fails to open (1006). */
  reachable = true;
  /** True: sockets never open nor fail, as when packets to the host vanish. */
  blackHole = false;
  /** False: pings go unanswered (a dead link that still looks open). */
  answerPings = true;
  /** Pings received. */
  pings = 0;
  replayWindow = 10_000;
  readonly offers = new Map<string, PairOffer>();
  readonly devices = new Map<string, DeviceEntry>();
  readonly log: Event[] = [];
  readonly sessions: Session[] = [];
  readonly runs: Run[] = [];
  /** Every request received, in order. */
  readonly requests: { op: string; args: Record<string, unknown> }[] = [];
  /** Every client socket made through {@link factory}. */
  readonly sockets: FakeSocket[] = [];
  readonly sides = new Set<HostSide>();
  /** The SAS of the last pairing, as the host computed it. */
  lastSas: string | undefined;
  /** Called as each request arrives, before it is answered. */
  onRequest: ((op: string, args: Record<string, unknown>) => void) | undefined;
  /** Called right after a `subscribe` is answered, in the same turn (before the client reads it). */
  onSubscribed: (() => void) | undefined;
  private readonly faults: { op: string; code: ErrorCode }[] = [];
  private readonly commands = new Map<string, { argsDigest: string; result: object }>();

  readonly factory: WebSocketFactory = () => {
    const socket = new FakeSocket();
    this.sockets.push(socket);
    if (this.blackHole) return socket;
    if (this.reachable) socket.accept(new HostSide(this, socket));
    else queueMicrotask(() => socket.hostClose(1006));
    return socket;
  };

  get openSides(): HostSide[] {
    return [...this.sides].filter((side) => side.isOpen);
  }

  /** A fresh offer's link (120 s from now). */
  offerLink(origin = FAKE_ORIGIN): string {
    const offer = createPairOffer(Date.now());
    this.offers.set(offer.offerId, offer);
    return formatPairLink({
      origin,
      offerId: offer.offerId,
      psk: offer.psk,
      hostPk: this.identity.publicKey,
    });
  }

  /** The next `times` requests for `op` fail with `code`. */
  failNext(op: string, code: ErrorCode, times = 1): void {
    for (let i = 0; i < times; i++) this.faults.push({ op, code });
  }

  /** Commits an event and sends it to every matching subscription. */
  append(event: NewEvent): Event {
    const seq = this.log.length + 1;
    const committed = {
      v: 1,
      seq,
      id: `evt_${seq}`,
      at: 1_700_000_000_000 + seq,
      sessionId: event.sessionId ?? null,
      runId: event.runId ?? null,
      toolCallId: event.toolCallId ?? null,
      type: event.type,
      payload: event.payload,
    } as Event;
    this.log.push(committed);
    for (const side of this.openSides) side.publish(committed);
    return committed;
  }

  /** Events of one run, in seq order. */
  eventsOf(runId: string): Event[] {
    return this.log.filter((event) => event.runId === runId);
  }

  /** Moves a run on: appends the event and updates the run record. */
  advance(runId: string, type: EventType, payload: Record<string, unknown> = {}): Event {
    const run = this.runs.find((candidate) => candidate.id === runId)!;
    const event = this.append({ type, sessionId: run.sessionId, runId, payload } as NewEvent);
    if (type === 'run.started') run.state = 'running';
    if (type === 'run.finished') run.state = payload['state'] as Run['state'];
    return event;
  }

  /** The network drops every open socket (or the host closes them with `code`). */
  dropAll(code = 1006): void {
    for (const side of [...this.sides]) side.drop(code);
  }

  /** A host restart: sockets close with 1001 and the runtime instance changes. */
  restart(): void {
    this.dropAll(1001);
    this.instance = `ins_${Number(this.instance.slice(4)) + 1}`;
  }

  /** Handles one request (after faults); throws a TetherError for a refusal. */
  handle(op: string, args: Record<string, unknown>, deviceId: string): object {
    this.requests.push({ op, args });
    this.onRequest?.(op, args);
    const fault = this.faults.findIndex((candidate) => candidate.op === op);
    if (fault >= 0) {
      const { code } = this.faults.splice(fault, 1)[0]!;
      throw new TetherError(code, `injected ${code}`);
    }
    switch (op) {
      case 'host.info':
        return {
          hostId: this.identity.id,
          name: this.hostName,
          version: '0.0.0-fake',
          protocol: 1,
          instance: this.instance,
          capabilities: [],
          models: [],
          workspaces: [],
          limits: {},
        };
      case 'run.submit':
        return this.command(args, () => this.submit(args, deviceId));
      default:
        throw new TetherError('unknown_op', `the fake host does not know ${op}`);
    }
  }

  /** Unscoped snapshot as of now. */
  snapshot(): object {
    return { sessions: this.sessions, runs: this.runs, pendingApprovals: [], devices: [] };
  }

  private command(args: Record<string, unknown>, apply: () => object): object {
    const { commandId, ...rest } = args;
    const argsDigest = digest(rest);
    const stored = this.commands.get(commandId as string);
    if (stored !== undefined) {
      if (stored.argsDigest !== argsDigest) throw new TetherError('command_conflict', 'conflict');
      return { ...stored.result, deduplicated: true };
    }
    const result = apply();
    this.commands.set(commandId as string, { argsDigest, result });
    return result;
  }

  private submit(args: Record<string, unknown>, by: string): object {
    const n = this.runs.length + 1;
    const sessionId = `ses_${n}`;
    const runId = `run_${n}`;
    const input = args['input'] as { text: string };
    const at = 1_700_000_000_000 + this.log.length + 1;
    this.sessions.push({
      id: sessionId,
      title: input.text,
      workspace: '/w',
      createdAt: at,
      activeRunId: null,
    });
    this.append({
      type: 'session.created',
      sessionId,
      payload: { title: input.text, workspace: '/w' },
    });
    this.runs.push({
      id: runId,
      sessionId,
      state: 'queued',
      input,
      model: null,
      createdAt: at,
      startedAt: null,
      finishedAt: null,
      continuesRunId: null,
      error: null,
    });
    const commandId = args['commandId'] as string;
    this.append({
      type: 'run.queued',
      sessionId,
      runId,
      payload: { input, model: null, commandId, by },
    });
    return { runId, sessionId, state: 'queued', deduplicated: false };
  }
}
