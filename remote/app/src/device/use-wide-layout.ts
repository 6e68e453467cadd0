/**
 * Whether the window is wide enough for two panes (an iPad or a laptop: 900 CSS pixels or
 * more), following it as the window is resized or the tablet turned.
 */
import { useEffect, useState } from 'preact/hooks';

/** Kept equal to the `min-width` of the two-pane media query in styles.css. */
const WIDE = '(min-width: 900px)';

export function useWideLayout(): boolean {
  const [wide, setWide] = useState(() => matchMedia(WIDE).matches);
  useEffect(() => {
    const query = matchMedia(WIDE);
    const changed = () => setWide(query.matches);
    query.addEventListener('change', changed);
    changed();
    return () => query.removeEventListener('change', changed);
  }, []);
  return wide;
}
