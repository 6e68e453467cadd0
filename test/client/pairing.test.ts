import { describe, expect, it } from 'vitest';
import { createIdentity, formatPairLink, parsePairLink } from '../../pairing/index.js';
import { TetherClient } from '../../remote/client/index.js';
import { MemoryStorage } from '../../remote/client/testing.js';
import { FakeHost } from './fake-host.js';
import { NO_WAIT, statusOf } from './helpers.js';

const device = { name: 'Test phone', platform: 'test' };

describe('pairing from a link', () => {
  it('pairs, shows the SAS the host computed, and stores the record', async () => {
    const host = new FakeHost();
    const client = new TetherClient({ storage: new MemoryStorage(), socketFactory: host.factory });
    const paired = await client.pair(host.offerLink(), device);
    expect(paired).toEqual({
      hostId: host.identity.id,
      hostName: 'Fake Mac',
      deviceId: expect.any(String) as string,
      sas: host.lastSas,
    });
    expect(host.devices.get(paired.deviceId)?.name).toBe('Test phone');
    expect(await client.pairedHosts()).toEqual([
      {
        hostId: host.identity.id,
        hostName: 'Fake Mac',
        origin: 'http://fake-host.test',
        deviceId: paired.deviceId,
      },
    ]);
    expect(host.sockets[0]?.readyState).toBe(3);
  });

  it('keeps one device identity per installation, across hosts and client objects', async () => {
    const storage = new MemoryStorage();
    const first = new FakeHost();
    const second = new FakeHost();
    const one = await new TetherClient({ storage, socketFactory: first.factory }).pair(
      first.offerLink(),
      device,
    );
    const two = await new TetherClient({ storage, socketFactory: second.factory }).pair(
      second.offerLink(),
      device,
    );
    expect(two.deviceId).toBe(one.deviceId);
    const client = new TetherClient({ storage, socketFactory: first.factory });
    expect((await client.pairedHosts()).map((host) => host.hostId)).toEqual([
      first.identity.id,
      second.identity.id,
    ]);
  });

  it('refuses a host that signs with another key than the scanned one', async () => {
    const host = new FakeHost();
    const link = parsePairLink(host.offerLink());
    const forged = formatPairLink({ ...link, hostPk: createIdentity().publicKey });
    const client = new TetherClient({ storage: new MemoryStorage(), socketFactory: host.factory });
    await expect(client.pair(forged, device)).rejects.toMatchObject({
      code: 'pair_failed',
      message: 'this is not the host you scanned',
    });
    expect(await client.pairedHosts()).toEqual([]);
  });

  it('reports a used offer as pair_failed, and a malformed link as invalid_request', async () => {
    const host = new FakeHost();
    const link = host.offerLink();
    const storage = new MemoryStorage();
    await new TetherClient({ storage, socketFactory: host.factory }).pair(link, device);
    const again = new TetherClient({ storage: new MemoryStorage(), socketFactory: host.factory });
    await expect(again.pair(link, device)).rejects.toMatchObject({ code: 'pair_failed' });
    await expect(again.pair('http://fake-host.test/#pair=short', device)).rejects.toMatchObject({
      code: 'invalid_request',
    });
  });

  it('opens a channel with the stored record and answers host.info', async () => {
    const host = new FakeHost();
    const client = new TetherClient({
      storage: new MemoryStorage(),
      socketFactory: host.factory,
      settings: NO_WAIT,
    });
    const { hostId } = await client.pair(host.offerLink(), device);
    const connection = await client.connect(hostId);
    const open = await statusOf(connection, 'open');
    expect(open.instanceId).toBe('ins_1');
    const info = await connection.request('host.info', {});
    expect(info).toMatchObject({ hostId, name: 'Fake Mac', protocol: 1, instance: 'ins_1' });
    await expect(client.connect('nobody')).rejects.toMatchObject({ code: 'not_found' });
    await client.close();
    expect(connection.status).toEqual({ state: 'closed' });
  });
});
