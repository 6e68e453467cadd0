/**
 * The current screen from the URL hash, and navigation.
 */
import { useEffect, useState } from 'preact/hooks';
import { parseRoute, type Route, routeHash } from '../logic/route.js';

/** The route named by `location.hash`, following `hashchange`. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const update = () => setRoute(parseRoute(location.hash));
    window.addEventListener('hashchange', update);
    return () => window.removeEventListener('hashchange', update);
  }, []);
  return route;
}

/** Goes to a screen (a new history entry). */
export function navigate(route: Route): void {
  location.hash = routeHash(route);
}
