/**
 * The name and platform a device pairs under: what the user set, else a guess from the
 * user agent ("iPhone", "iPad", "Mac", ...) that the host's device list shows.
 */

/** Where a test or the user may set the device's name before pairing. */
export const DEVICE_NAME_KEY = 'tether.deviceName';

const MAX_NAME = 64;
const MAX_PLATFORM = 32;

/** The platform as the user would name it, from a user-agent string. */
export function platformOf(userAgent: string, maxTouchPoints = 0): string {
  if (/iPhone|iPod/.test(userAgent)) return 'iPhone';
  if (/iPad/.test(userAgent)) return 'iPad';
  // iPadOS asks for desktop sites by default and calls itself a Mac with a touch screen.
  if (/Macintosh/.test(userAgent)) return maxTouchPoints > 1 ? 'iPad' : 'Mac';
  if (/Android/.test(userAgent)) return 'Android';
  if (/Windows/.test(userAgent)) return 'Windows';
  if (/CrOS/.test(userAgent)) return 'ChromeOS';
  if (/Linux/.test(userAgent)) return 'Linux';
  return 'Browser';
}

/** The name to pair under: the stored one when set (trimmed, at most 64 characters), else the platform. */
export function deviceNameOf(stored: string | null, platform: string): string {
  const name = (stored ?? '').trim();
  return (name === '' ? platform : name).slice(0, MAX_NAME);
}

/** Name and platform within the protocol's bounds. */
export function pairingDevice(
  stored: string | null,
  userAgent: string,
  maxTouchPoints = 0,
): { name: string; platform: string } {
  const platform = platformOf(userAgent, maxTouchPoints).slice(0, MAX_PLATFORM);
  return { name: deviceNameOf(stored, platform), platform };
}
