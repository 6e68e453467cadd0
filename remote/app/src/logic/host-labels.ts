/**
 * The name each host goes by in the app. Hosts are often named alike (a demo host and the
 * real one on the same computer are both "vm"): a name another paired host shares gets
 * its address added (`vm (192.168.1.5:8787)`), or, when the addresses match too, the start
 * of its host id (`vm (h3Kx9a)`).
 */

/** What a label is made from. */
export interface HostNaming {
  hostId: string;
  hostName: string;
  origin: string;
}

/** How many characters of a host id tell two hosts at one address apart. */
const ID_PREFIX = 6;

/** Each host's label by host id. */
export function hostLabels(hosts: readonly HostNaming[]): Map<string, string> {
  const labels = new Map<string, string>();
  for (const host of hosts) {
    const namesakes = hosts.filter((other) => other.hostName === host.hostName);
    if (namesakes.length === 1) {
      labels.set(host.hostId, host.hostName);
      continue;
    }
    const address = addressOf(host.origin);
    const sameAddress = namesakes.filter((other) => addressOf(other.origin) === address);
    const suffix = sameAddress.length === 1 ? address : host.hostId.slice(0, ID_PREFIX);
    labels.set(host.hostId, `${host.hostName} (${suffix})`);
  }
  return labels;
}

/** `host:port` of an origin; the origin itself when it does not parse. */
function addressOf(origin: string): string {
  try {
    return new URL(origin).host;
  } catch {
    return origin;
  }
}
