import { describe, expect, it } from 'vitest';
import { TetherError } from '../../protocol/index.js';
import type { ConnectionStatus } from '../../remote/client/index.js';
import { appBanner, hostLine, type HostLink } from '../../remote/app/src/logic/connection-view.js';
import { liveHostFirst } from '../../remote/app/src/logic/default-host.js';
import { hostLabels } from '../../remote/app/src/logic/host-labels.js';

const OPEN: ConnectionStatus = { state: 'open', connectionId: 'c', instanceId: 'i' };
const UNKNOWN: ConnectionStatus = {
  state: 'stopped',
  reason: 'unauthorized',
  error: new TetherError('unauthorized', 'unknown device'),
};
const waiting = (attempt: number, retryAt: number): ConnectionStatus => ({
  state: 'waiting',
  attempt,
  retryInMs: 25_000,
  retryAt,
  error: new TetherError('unavailable', 'refused'),
});
const link = (hostId: string, label: string, status: ConnectionStatus): HostLink => ({
  hostId,
  label,
  status,
  restartedAt: undefined,
});

describe('each host’s own state', () => {
  it('counts down to the next try, and offers Retry now while waiting', () => {
    const line = hostLine(link('h1', 'vm', waiting(8, 25_000)), true, 1_500);
    expect(line).toMatchObject({
      status: 'reconnecting',
      state: 'reconnecting',
      text: 'reconnecting (attempt 8) in 24 s',
      retryable: true,
      needsAction: false,
    });
    expect(hostLine(link('h1', 'vm', waiting(8, 25_000)), true, 20_100).text).toBe(
      'reconnecting (attempt 8) in 5 s',
    );
    // Past due (the try is under way): never a negative count.
    expect(hostLine(link('h1', 'vm', waiting(8, 25_000)), true, 30_000).text).toBe(
      'reconnecting (attempt 8) in 0 s',
    );
  });

  it('says a host that does not know this device needs the user', () => {
    const line = hostLine(link('h1', 'vm', UNKNOWN), true, 0);
    expect(line).toMatchObject({ state: 'unknown-device', needsAction: true, retryable: false });
    expect(line.text).toBe('the host does not know this device');
    const revoked = hostLine(
      link('h1', 'vm', {
        ...UNKNOWN,
        reason: 'revoked',
        error: new TetherError('device_revoked', 'x'),
      }),
      true,
      0,
    );
    expect(revoked).toMatchObject({ state: 'revoked', needsAction: true });
  });
});

describe('the banner over several hosts', () => {
  it('does not let a host that refused this device take over while another is live', () => {
    const banner = appBanner(
      [link('dead', 'vm (a)', UNKNOWN), link('live', 'vm (b)', OPEN)],
      true,
      0,
    );
    expect(banner.status).toBe('live');
    expect(banner.text).toBe('vm (b): live');
    expect(banner.lines.map((line) => line.hostId)).toEqual(['live']);
  });

  it('shows an outage of the live host beside the dead one, by name, with its countdown', () => {
    const banner = appBanner(
      [link('dead', 'vm (a)', UNKNOWN), link('live', 'vm (b)', waiting(2, 5_000))],
      true,
      1_000,
    );
    expect(banner.status).toBe('reconnecting');
    expect(banner.text).toBe('vm (b): reconnecting (attempt 2) in 4 s');
  });

  it('names every troubled host, the most troubled first', () => {
    const banner = appBanner(
      [
        link('a', 'Studio', { state: 'connecting', attempt: 0 }),
        link('b', 'Office', waiting(1, 3_000)),
        link('c', 'Laptop', OPEN),
      ],
      true,
      0,
    );
    expect(banner.status).toBe('reconnecting');
    expect(banner.lines.map((line) => line.label)).toEqual(['Office', 'Studio']);
  });

  it('says what the refusing hosts say when no host can connect', () => {
    const banner = appBanner([link('dead', 'vm', UNKNOWN)], true, 0);
    expect(banner).toMatchObject({
      status: 'offline',
      text: 'vm: the host does not know this device',
    });
  });
});

describe('host labels', () => {
  it('keeps a unique name as it is', () => {
    const labels = hostLabels([
      { hostId: 'h1', hostName: 'Studio Mac', origin: 'http://10.0.0.2:8787' },
      { hostId: 'h2', hostName: 'Office Mac', origin: 'http://10.0.0.3:8787' },
    ]);
    expect([...labels.values()]).toEqual(['Studio Mac', 'Office Mac']);
  });

  it('tells namesakes apart by address, else by the start of the host id', () => {
    const byAddress = hostLabels([
      { hostId: 'h1', hostName: 'vm', origin: 'http://192.168.1.5:8787' },
      { hostId: 'h2', hostName: 'vm', origin: 'https://vm.tail1.ts.net' },
    ]);
    expect([...byAddress.values()]).toEqual(['vm (192.168.1.5:8787)', 'vm (vm.tail1.ts.net)']);
    const byId = hostLabels([
      { hostId: 'AbCdEf123', hostName: 'vm', origin: 'http://192.168.1.5:8787' },
      { hostId: 'XyZ987654', hostName: 'vm', origin: 'http://192.168.1.5:8787' },
    ]);
    expect([...byId.values()]).toEqual(['vm (AbCdEf)', 'vm (XyZ987)']);
  });
});

describe('the default host of a new task', () => {
  it('is a live host, else one that may still connect, else the first', () => {
    const host = (hostId: string, live: boolean, status: ConnectionStatus) => ({
      hostId,
      live,
      status,
    });
    const dead = host('dead', false, UNKNOWN);
    const down = host('down', false, waiting(3, 0));
    const up = host('up', true, OPEN);
    expect(liveHostFirst([dead, down, up])?.hostId).toBe('up');
    expect(liveHostFirst([dead, down])?.hostId).toBe('down');
    expect(liveHostFirst([dead])?.hostId).toBe('dead');
    expect(liveHostFirst([])).toBeUndefined();
  });
});
