import { describe, expect, it } from 'vitest';
import {
  Event,
  HostMessage,
  OPS,
  TetherError,
  parseRequest,
  parseWith,
} from '../../protocol/index.js';
import { EVENT_TYPES, OP_NAMES, RemoteHandshakeMessage } from '../../protocol/testing.js';
import { eventSamples, opSamples } from './samples.js';

function roundTrip(value: unknown): unknown {
  const text = JSON.stringify(value);
  const back: unknown = JSON.parse(text);
  return back;
}

describe('ops', () => {
  it('has a sample for every op in the table', () => {
    expect(Object.keys(opSamples).sort()).toEqual([...OP_NAMES].sort());
  });

  for (const op of OP_NAMES) {
    it(`${op}: args and result survive JSON and validate unchanged`, () => {
      const sample = opSamples[op];
      const request = parseRequest({
        t: 'req',
        id: '7',
        op,
        args: roundTrip(sample.args) as never,
      });
      expect(request).toEqual({ id: '7', op, args: sample.args });
      expect(OPS[op].args.parse(roundTrip(sample.args))).toEqual(sample.args);
      expect(OPS[op].result.parse(roundTrip(sample.result))).toEqual(sample.result);
      const res = { t: 'res', id: '7', ok: true, result: sample.result };
      expect(HostMessage.parse(roundTrip(res))).toEqual(res);
    });
  }

  it('marks exactly the state-changing ops as commands with a commandId', () => {
    const commands = OP_NAMES.filter((op) => OPS[op].command).sort();
    expect(commands).toEqual([
      'approval.respond',
      'attachment.put',
      'device.rename',
      'device.revoke',
      'policy.rule_add',
      'policy.rule_remove',
      'push.subscribe',
      'push.test',
      'push.unsubscribe',
      'run.cancel',
      'run.continue',
      'run.integrate',
      'run.submit',
      'toolcall.reconcile',
      'voice.transcribe',
    ]);
    for (const op of commands) {
      const args = { ...opSamples[op].args, commandId: undefined };
      expect(OPS[op].args.safeParse(args).success).toBe(false);
    }
  });

  it('refuses a host.info whose history.rewound is not one (Appendix F)', () => {
    const info = opSamples['host.info'].result as { history: { rewound: object } };
    const { rewound } = info.history;
    const bad = [
      { ...rewound, by: 'phone' },
      { ...rewound, head: -1 },
      { ...rewound, count: 0 },
      { detectedAt: 1, head: 1 },
    ];
    for (const value of bad) {
      const result = OPS['host.info'].result.safeParse({ ...info, history: { rewound: value } });
      expect(result.success, JSON.stringify(value)).toBe(false);
    }
    expect(OPS['host.info'].result.safeParse({ ...info, history: {} }).success).toBe(true);
  });
});

describe('events', () => {
  it('has a sample for every event type', () => {
    expect(Object.keys(eventSamples).sort()).toEqual([...EVENT_TYPES].sort());
  });

  for (const type of EVENT_TYPES) {
    it(`${type}: the envelope and payload survive JSON and validate unchanged`, () => {
      const event = {
        v: 1,
        seq: 12,
        id: 'evt_1',
        type,
        at: 1_700_000_000_000,
        sessionId: 'ses_1',
        runId: null,
        toolCallId: null,
        payload: eventSamples[type],
      };
      expect(Event.parse(roundTrip(event))).toEqual(event);
      const frame = { t: 'events', sub: 's1', events: [event] };
      expect(HostMessage.parse(roundTrip(frame))).toEqual(frame);
    });
  }

  it('rejects a payload that does not match its type', () => {
    const event = {
      v: 1,
      seq: 1,
      id: 'evt_1',
      type: 'tool.finished',
      at: 1,
      sessionId: null,
      runId: null,
      toolCallId: null,
      payload: { status: 'exploded', summary: 'x' },
    };
    expect(Event.safeParse(event).success).toBe(false);
  });
});

describe('validation errors', () => {
  it('names an unknown op as unknown_op', () => {
    expect(() => parseRequest({ t: 'req', id: '1', op: 'run.explode', args: {} })).toThrow(
      expect.objectContaining({ code: 'unknown_op' }),
    );
  });

  it('lists every issue of a message that fails its schema', () => {
    let caught: unknown;
    try {
      parseRequest({
        t: 'req',
        id: '1',
        op: 'run.submit',
        args: { commandId: 'short', input: { text: 3 }, extra: true },
      });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(TetherError);
    const error = caught as TetherError;
    expect(error.code).toBe('invalid_request');
    expect(error.message).toContain('commandId');
    expect(error.message).toContain('input.text');
    const issues = error.details?.['issues'] as { path: string }[];
    expect(issues.map((issue) => issue.path).sort()).toEqual(['(root)', 'commandId', 'input.text']);
    expect(error.toWire()).toMatchObject({ code: 'invalid_request', retryable: false });
  });

  it('rejects a handshake frame with a bad field and says which', () => {
    expect(() =>
      parseWith(RemoteHandshakeMessage, { t: 'hello', v: [1], device: 'nope' }, 'hello'),
    ).toThrow(/device/);
  });
});
