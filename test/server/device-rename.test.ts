/**
 * `device.rename` (issue 24, "every device is named after its OS"): a device renames
 * another, the other sees `device.renamed` on its subscription and the new name in
 * `devices.list`; the command is deduplicated by its commandId; a bad name is refused and
 * changes nothing; the admin API renames too. The real host, in process.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PairedHost } from '../../pairing/index.js';
import { startInProcessHost, type InProcessHost } from '../support/in-process-host.js';
import { RawChannel, pairDevice } from '../support/raw-channel.js';
import { readStoredEvents } from '../support/store-events.js';
import { until } from '../support/wait.js';

let host: InProcessHost;
let phone: PairedHost;
let tablet: PairedHost;

beforeAll(async () => {
  host = await startInProcessHost();
  phone = (await pairDevice(await host.pairLink())).host;
  tablet = (await pairDevice(await host.pairLink())).host;
});

afterAll(async () => host.dispose());

const renamed = () => readStoredEvents(host.dataDir).filter((e) => e.type === 'device.renamed');

async function nameOf(channel: RawChannel, deviceId: string): Promise<string | undefined> {
  const { devices } = (await channel.call('devices.list')) as {
    devices: { deviceId: string; name: string }[];
  };
  return devices.find((device) => device.deviceId === deviceId)?.name;
}

describe('device.rename', () => {
  it('renames another device, once per commandId, and the other device sees the event', async () => {
    await using renamer = await RawChannel.open(phone);
    await using watcher = await RawChannel.open(tablet);
    await watcher.call('subscribe', {});
    const args = {
      commandId: 'cmd-rename-tablet-0001',
      deviceId: tablet.deviceId,
      name: 'Anna’s iPad 🍎',
    };
    expect(await renamer.call('device.rename', args)).toEqual({});

    const event = await until('the tablet sees device.renamed', async () => {
      const message = watcher.others.shift() ?? (await watcher.receive());
      if (message?.t !== 'events') return undefined;
      return message.events.find((e) => e.type === 'device.renamed');
    });
    expect(event.payload).toEqual({
      deviceId: tablet.deviceId,
      name: 'Anna’s iPad 🍎',
      previousName: 'Test device',
      by: phone.deviceId,
    });
    expect(await nameOf(watcher, tablet.deviceId)).toBe('Anna’s iPad 🍎');

    // The same command again: the stored answer, nothing recorded twice.
    expect(await renamer.call('device.rename', args)).toMatchObject({});
    expect(renamed()).toHaveLength(1);
    // The same commandId for another name is a conflict and renames nothing.
    const conflict = await renamer.request('device.rename', { ...args, name: 'Other' });
    expect(conflict).toMatchObject({ ok: false, error: { code: 'command_conflict' } });
    expect(await nameOf(renamer, tablet.deviceId)).toBe('Anna’s iPad 🍎');
    // Its own name again records nothing.
    await renamer.call('device.rename', { ...args, commandId: 'cmd-rename-tablet-0002' });
    expect(renamed()).toHaveLength(1);
  });

  it('refuses a bad name with invalid_request and changes nothing', async () => {
    await using channel = await RawChannel.open(phone);
    const before = await nameOf(channel, phone.deviceId);
    const bad = [
      '',
      ' padded',
      'padded ',
      'two\nlines',
      'tab\there',
      'bell\u0007',
      'del\u007f',
      'evil\u202Etxt.exe',
      'sep\u2028arator',
      'x'.repeat(65),
    ];
    for (const [index, name] of bad.entries()) {
      const answer = await channel.request('device.rename', {
        commandId: `cmd-rename-bad-${String(index).padStart(4, '0')}`,
        deviceId: phone.deviceId,
        name,
      });
      expect(answer, JSON.stringify(name)).toMatchObject({
        ok: false,
        error: { code: 'invalid_request' },
      });
      if (!answer.ok) expect(answer.error.message).toContain('name');
    }
    expect(await nameOf(channel, phone.deviceId)).toBe(before);
    expect(renamed().filter((e) => e.payload['deviceId'] === phone.deviceId)).toEqual([]);
    // Sixty-four characters is the limit, and a name may rename the device asking.
    const longest = 'é'.repeat(64);
    await channel.call('device.rename', {
      commandId: 'cmd-rename-self-00001',
      deviceId: phone.deviceId,
      name: longest,
    });
    expect(await nameOf(channel, phone.deviceId)).toBe(longest);
  });

  it('refuses an unknown or revoked device', async () => {
    await using channel = await RawChannel.open(phone);
    const unknown = await channel.request('device.rename', {
      commandId: 'cmd-rename-unknown-001',
      deviceId: 'AAAAAAAAAAAAAAAAAAAAAA',
      name: 'Ghost',
    });
    expect(unknown).toMatchObject({ ok: false, error: { code: 'not_found' } });
    const gone = (await pairDevice(await host.pairLink())).host;
    await channel.call('device.revoke', {
      commandId: 'cmd-revoke-gone-00001',
      deviceId: gone.deviceId,
    });
    const revoked = await channel.request('device.rename', {
      commandId: 'cmd-rename-revoked-001',
      deviceId: gone.deviceId,
      name: 'Ghost',
    });
    expect(revoked).toMatchObject({
      ok: false,
      error: { code: 'invalid_state', details: { state: 'revoked' } },
    });
  });

  it('renames through the admin API, recorded as by "admin"; a bad name there changes nothing', async () => {
    const path = `/admin/api/devices/${tablet.deviceId}/rename`;
    const refused = await host.admin('POST', path, { name: 'a\u0000b' });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(await refused.json())).toContain('control characters');
    const answer = await host.admin('POST', path, { name: 'Kitchen iPad' });
    expect(answer.status).toBe(200);
    await using channel = await RawChannel.open(phone);
    expect(await nameOf(channel, tablet.deviceId)).toBe('Kitchen iPad');
    expect(renamed().at(-1)?.payload).toMatchObject({ name: 'Kitchen iPad', by: 'admin' });
  });
});
