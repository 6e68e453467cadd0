/**
 * A screen in its own chunk, loaded by `import()` the first time it is shown: the first
 * load (pair, then the runs list) fetches none of them. Meanwhile it shows the app's
 * loading placeholder; once loaded it renders at once, every later time too.
 */
import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';

/**
 * `load` resolves with the screen; it runs once, again only after it failed. `preload()`
 * starts it ahead of the screen being shown. `part`: a piece of a screen rather than a
 * screen, shown as nothing until it came (and if it cannot come).
 */
export function lazyScreen<P extends object>(
  load: () => Promise<ComponentType<P>>,
  { part = false }: { part?: boolean } = {},
): ComponentType<P> & { preload: () => void } {
  let loaded: ComponentType<P> | undefined;
  let loading: Promise<unknown> | undefined;
  const start = () =>
    (loading ??= load().then(
      (screen) => (loaded = screen),
      (error: unknown) => {
        loading = undefined;
        throw error;
      },
    ));
  function LazyScreen(props: P) {
    // Set once the chunk came, to render again (not the screen itself: useState would
    // call a function as its initializer).
    const [, setArrived] = useState(false);
    const [failed, setFailed] = useState(false);
    useEffect(() => {
      if (loaded !== undefined) return;
      let current = true;
      start().then(
        () => current && setArrived(true),
        () => current && setFailed(true),
      );
      return () => {
        current = false;
      };
      // A part asks again at each render until it came: a fetch that failed while the host
      // serving the page was down comes once it is back.
    }, [part ? props : null]);
    if (loaded !== undefined) {
      const Screen = loaded;
      return <Screen {...props} />;
    }
    if (part) return null;
    if (!failed) return <main class="screen loading" aria-busy="true" />;
    // The chunk did not come: out of reach with nothing cached, or the host now serves a
    // newer build whose chunks have other names. A reload gets the build the host serves.
    return (
      <main class="screen">
        <p class="error" role="alert">
          This screen could not be loaded: the host may be out of reach, or it was updated.
        </p>
        <button type="button" class="button primary" onClick={() => location.reload()}>
          Reload Tether
        </button>
      </main>
    );
  }
  return Object.assign(LazyScreen, { preload: () => void start().catch(() => undefined) });
}
