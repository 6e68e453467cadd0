import nacl from 'tweetnacl';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MAX_FRAME_BYTES, TetherError, utf8 } from '../../protocol/index.js';
import { FrameCipher } from '../../pairing/index.js';
import { type FrameCipherOptions, frameNonce } from '../../pairing/testing.js';

/** Two ends of one channel over fresh random keys. */
function channel(options: FrameCipherOptions = {}) {
  const c2h = nacl.randomBytes(32);
  const h2c = nacl.randomBytes(32);
  return {
    c2h: c2h.slice(),
    device: new FrameCipher({ sendKey: c2h.slice(), receiveKey: h2c.slice() }, options),
    host: new FrameCipher({ sendKey: h2c.slice(), receiveKey: c2h.slice() }, options),
  };
}

const ping = (n: number) => ({ t: 'req', id: String(n), op: 'host.info', args: {} });

/** Runs `act`, expecting a `protocol_error` whose message matches. */
function expectProtocolError(act: () => unknown, message: RegExp) {
  let error: unknown;
  try {
    act();
  } catch (caught) {
    error = caught;
  }
  expect(error).toBeInstanceOf(TetherError);
  expect((error as TetherError).code).toBe('protocol_error');
  expect((error as TetherError).message).toMatch(message);
}

describe('frame cipher', () => {
  it('seals a message it is given as JSON text to the same frame as the message itself', () => {
    const { c2h, device, host } = channel();
    const fromText = new FrameCipher({ sendKey: c2h, receiveKey: new Uint8Array(32) });
    const message = { t: 'events', sub: 'sub_1', events: [{ seq: 1, text: 'é' }] };
    const frame = fromText.sealJson(JSON.stringify(message));
    expect(frame).toEqual(device.seal(message));
    expect(host.open(frame)).toEqual(message);
  });

  it('fails a replayed frame, then refuses everything', () => {
    const { device, host } = channel();
    const first = device.seal(ping(0));
    host.open(first);
    expectProtocolError(() => host.open(first), /frame 1 failed to open/);
    expect(host.closed).toBe(true);
    expectProtocolError(() => host.open(device.seal(ping(1))), /channel is closed/);
    expectProtocolError(() => host.seal(ping(2)), /channel is closed/);
  });

  it('fails reordered frames, then refuses everything', () => {
    const { device, host } = channel();
    const first = device.seal(ping(0));
    const second = device.seal(ping(1));
    expectProtocolError(() => host.open(second), /frame 0 failed to open/);
    expect(host.closed).toBe(true);
    expectProtocolError(() => host.open(first), /channel is closed/);
  });

  it('fails after a dropped frame, then refuses everything', () => {
    const { device, host } = channel();
    const frames = [0, 1, 2].map((n) => device.seal(ping(n)));
    expect(host.open(frames[0]!)).toEqual(ping(0));
    expectProtocolError(() => host.open(frames[2]!), /frame 1 failed to open/);
    expect(host.closed).toBe(true);
    expectProtocolError(() => host.open(frames[1]!), /channel is closed/);
  });

  it('fails a tampered frame', () => {
    const { device, host } = channel();
    const frame = device.seal(ping(0));
    frame[20]! ^= 1;
    expectProtocolError(() => host.open(frame), /failed to open/);
    expect(host.closed).toBe(true);
  });

  it('treats a text frame after the channel opened as a protocol error', () => {
    const { host } = channel();
    expectProtocolError(() => host.openFrame('{"t":"ping"}', false), /text frame/);
    expect(host.closed).toBe(true);
    const other = channel();
    const asText = other.device.seal(ping(0));
    expectProtocolError(() => other.host.openFrame(asText, false), /text frame/);
    expect(other.host.closed).toBe(true);
  });

  it('accepts binary frames as Uint8Array or ArrayBuffer', () => {
    const { device, host } = channel();
    expect(host.openFrame(device.seal(ping(0)), true)).toEqual(ping(0));
    const frame = device.seal(ping(1));
    const buffer = new Uint8Array(frame).buffer;
    expect(host.openFrame(buffer, true)).toEqual(ping(1));
  });

  it('fails a frame over 1 MiB without trying to open it', () => {
    const { host } = channel();
    expectProtocolError(() => host.openFrame(new Uint8Array(MAX_FRAME_BYTES + 1), true), /exceeds/);
    expect(host.closed).toBe(true);
  });

  it('carries the largest message that fits in 1 MiB, and refuses to seal a bigger one', () => {
    const { device, host } = channel();
    const overhead = JSON.stringify({ t: 'res', text: '' }).length + nacl.secretbox.overheadLength;
    const largest = { t: 'res', text: 'x'.repeat(MAX_FRAME_BYTES - overhead) };
    const frame = device.seal(largest);
    expect(frame.length).toBe(MAX_FRAME_BYTES);
    expect(host.open(frame)).toEqual(largest);
    const tooBig = { t: 'res', text: 'x'.repeat(MAX_FRAME_BYTES - overhead + 1) };
    expect(() => device.seal(tooBig)).toThrow(
      expect.objectContaining({ code: 'payload_too_large' }),
    );
    // Sealing nothing used no counter: the channel goes on.
    expect(device.closed).toBe(false);
    expect(host.open(device.seal(ping(1)))).toEqual(ping(1));
  });

  it('fails a frame that opens to bad UTF-8, to non-JSON or to a non-object', () => {
    for (const plaintext of [new Uint8Array([0x7b, 0xff, 0x7d]), utf8('{"t":'), utf8('[1,2]')]) {
      const { c2h, host } = channel();
      const frame = nacl.secretbox(plaintext, frameNonce(0), c2h);
      expectProtocolError(() => host.open(frame), /UTF-8 JSON|not a JSON object/);
      expect(host.closed).toBe(true);
    }
  });

  it('lists the issues of a message that fails its schema and keeps the channel open', () => {
    const Request = z.object({
      t: z.literal('req'),
      id: z.string(),
      op: z.string(),
      args: z.record(z.string(), z.unknown()),
    });
    const { device, host } = channel();
    const bad = device.seal({ t: 'req', id: 7, op: 'host.info', args: 'none' });
    let error: unknown;
    try {
      host.openFrame(bad, true, Request);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(TetherError);
    expect(error).toMatchObject({ code: 'invalid_request' });
    expect((error as TetherError).message).toMatch(/id: .*expected string/);
    expect((error as TetherError).message).toMatch(/args: .*expected record/);
    expect((error as TetherError).details).toEqual({
      issues: [expect.objectContaining({ path: 'id' }), expect.objectContaining({ path: 'args' })],
    });
    expect(host.closed).toBe(false);
    expect(host.open(device.seal(ping(1)), Request)).toEqual(ping(1));
  });

  it('asks for a rekey after the frame limit in either direction', () => {
    const { device, host } = channel({ rekeyAfterFrames: 3 });
    for (let n = 0; n < 2; n++) host.open(device.seal(ping(n)));
    expect(device.needsRekey || host.needsRekey).toBe(false);
    host.open(device.seal(ping(2)));
    expect(device.needsRekey).toBe(true);
    expect(host.needsRekey).toBe(true);
  });

  it('asks for a rekey 24 hours after opening', () => {
    let now = 1_000;
    const { host } = channel({ now: () => now });
    now += 24 * 60 * 60 * 1000 - 1;
    expect(host.needsRekey).toBe(false);
    now += 1;
    expect(host.needsRekey).toBe(true);
  });

  it('zeroes its keys when closed', () => {
    const sendKey = nacl.randomBytes(32);
    const receiveKey = nacl.randomBytes(32);
    const cipher = new FrameCipher({ sendKey, receiveKey });
    cipher.close();
    expect([...sendKey, ...receiveKey].every((byte) => byte === 0)).toBe(true);
    expectProtocolError(() => cipher.seal(ping(0)), /channel is closed/);
  });
});
