/**
 * The app's push logic (remote/app/src/logic): the notification the service worker shows
 * for a host's payload and where its click leads, the open message, and why push can be
 * unavailable here with the next step for each.
 */
import { describe, expect, it } from 'vitest';
import {
  browserPushBlocker,
  hostPushKey,
  pushBlockerText,
  type PushEnvironment,
} from '../../remote/app/src/logic/push-availability.js';
import {
  notificationHash,
  openMessageHash,
  pushNotification,
} from '../../remote/app/src/logic/push-notification.js';

const approval = {
  v: 1,
  kind: 'approval',
  hostId: 'host/1',
  hostName: 'mac-mini',
  runId: 'run_1',
  approvalId: 'apr_1',
  title: 'Approval needed on mac-mini',
  body: 'run_command in app',
  tag: 'approval:host/1:apr_1',
  at: 1767225600000,
};

describe('the notification for a push', () => {
  it('shows the payload tagged per approval and leads to its run', () => {
    expect(pushNotification(approval)).toEqual({
      title: 'Approval needed on mac-mini',
      options: {
        body: 'run_command in app',
        tag: 'approval:host/1:apr_1',
        data: { hash: '#/run/host%2F1/run_1', hostId: 'host/1', approvalId: 'apr_1' },
      },
    });
  });

  it('leads a test push (no run) to the devices screen', () => {
    const shown = pushNotification({
      ...approval,
      kind: 'test',
      runId: null,
      approvalId: undefined,
    });
    expect(shown.options.data).toEqual({
      hash: '#/devices',
      hostId: 'host/1',
      approvalId: undefined,
    });
  });

  it('still shows something for a push that is not a payload (iOS revokes silent pushes)', () => {
    for (const payload of [undefined, null, 'text', 42, { title: '' }]) {
      const shown = pushNotification(payload);
      expect(shown.title).toBe('Tether');
      expect(shown.options).toEqual({
        body: '',
        tag: undefined,
        data: { hash: '#/runs', hostId: undefined, approvalId: undefined },
      });
    }
    expect(pushNotification({ hostName: 'mac-mini' }).title).toBe('Tether on mac-mini');
  });

  it('opens only app hashes from a notification and from the open message', () => {
    expect(notificationHash({ hash: '#/run/h/r' })).toBe('#/run/h/r');
    expect(notificationHash({ hash: 'https://elsewhere.example/' })).toBe('#/runs');
    expect(notificationHash(null)).toBe('#/runs');
    expect(openMessageHash({ type: 'tether.open', hash: '#/approvals' })).toBe('#/approvals');
    expect(openMessageHash({ type: 'other', hash: '#/approvals' })).toBeUndefined();
    expect(openMessageHash('tether.open')).toBeUndefined();
  });
});

describe('why push is unavailable', () => {
  const ok: PushEnvironment = {
    secureContext: true,
    pushSupported: true,
    ios: false,
    standalone: false,
    permission: 'default',
  };

  it('names the first thing in the way', () => {
    expect(browserPushBlocker(ok)).toBeUndefined();
    expect(browserPushBlocker({ ...ok, permission: 'granted' })).toBeUndefined();
    expect(browserPushBlocker({ ...ok, secureContext: false, pushSupported: false })).toBe(
      'insecure',
    );
    expect(browserPushBlocker({ ...ok, ios: true, pushSupported: false })).toBe(
      'ios-not-installed',
    );
    expect(browserPushBlocker({ ...ok, ios: true, standalone: true })).toBeUndefined();
    expect(browserPushBlocker({ ...ok, pushSupported: false })).toBe('unsupported');
    expect(browserPushBlocker({ ...ok, permission: 'denied' })).toBe('denied');
  });

  it("takes a host's key only when it lists the push capability", () => {
    const push = { vapidPublicKey: 'B'.repeat(87) };
    expect(hostPushKey({ capabilities: ['runs', 'push'], push })).toBe(push.vapidPublicKey);
    expect(hostPushKey({ capabilities: ['runs'], push })).toBeUndefined();
    expect(hostPushKey({ capabilities: ['push'] })).toBeUndefined();
    expect(hostPushKey(undefined)).toBeUndefined();
  });

  it('says what to do for each reason', () => {
    const context = { origin: 'http://192.168.1.20:8787', hostName: 'mac-mini' };
    expect(pushBlockerText('insecure', context).why).toContain('http://192.168.1.20:8787');
    expect(pushBlockerText('insecure', context).next).toMatch(/--https[\s\S]*--tailscale/);
    expect(pushBlockerText('ios-not-installed', context).next).toContain('Add to Home Screen');
    expect(pushBlockerText('denied', context).next).toContain('Settings');
    expect(pushBlockerText('host-without-push', context).why).toContain('mac-mini');
  });
});
