/**
 * Screens are addressed by the URL hash (`#/runs`, `#/run/<hostId>/<runId>`, ...), except
 * `#pair=…`, which is a pairing link opened on the host's origin.
 */

/** One screen of the app. */
export type Route =
  | { screen: 'runs' }
  | { screen: 'run'; hostId: string; runId: string }
  | { screen: 'changes'; hostId: string; runId: string }
  | { screen: 'submit' }
  | { screen: 'approvals' }
  | { screen: 'devices' }
  | { screen: 'rules' }
  | { screen: 'tools' }
  | { screen: 'pair' };

/** The screen a hash names; `runs` for an empty or unknown hash. */
export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/').map(decodePart);
  switch (parts[0]) {
    case 'run': {
      const [, hostId, runId, view] = parts;
      if (hostId && runId && view === 'changes') return { screen: 'changes', hostId, runId };
      if (hostId && runId) return { screen: 'run', hostId, runId };
      return { screen: 'runs' };
    }
    case 'submit':
    case 'approvals':
    case 'devices':
    case 'rules':
    case 'tools':
    case 'pair':
      return { screen: parts[0] };
    default:
      return { screen: 'runs' };
  }
}

/** The hash of a screen, e.g. `#/run/<hostId>/<runId>` or `#/run/<hostId>/<runId>/changes`. */
export function routeHash(route: Route): string {
  if (route.screen === 'run' || route.screen === 'changes') {
    const run = `#/run/${encodeURIComponent(route.hostId)}/${encodeURIComponent(route.runId)}`;
    return route.screen === 'changes' ? `${run}/changes` : run;
  }
  return `#/${route.screen}`;
}

/**
 * The pairing link when the app was opened at `<origin>/#pair=…`, rebuilt as the host
 * printed it; undefined for any other location.
 */
export function pairLinkAt(location: { origin: string; hash: string }): string | undefined {
  if (!location.hash.startsWith('#pair=')) return undefined;
  return `${location.origin}/${location.hash}`;
}

function decodePart(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return '';
  }
}
