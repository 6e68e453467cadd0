/**
 * A screen in its own chunk, loaded by `import()` the first time it is shown: the first
 * load (pair, then the runs list) fetches none of them. Meanwhile it shows the app's
 * loading placeholder; once loaded it renders at once, every later time too.
 */
import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';

/** `load` resolves with the screen; it runs once, again only after it failed. */
export function lazyScreen<P extends object>(
  load: () => Promise<ComponentType<P>>,
): ComponentType<P> {
  let loaded: ComponentType<P> | undefined;
  let loading: Promise<ComponentType<P>> | undefined;
  return function LazyScreen(props: P) {
    const [, setShown] = useState(loaded);
    const [failed, setFailed] = useState(false);
    useEffect(() => {
      if (loaded !== undefined) return;
      let current = true;
      loading ??= load().then((screen) => (loaded = screen));
      loading.then(
        (screen) => current && setShown(() => screen),
        () => {
          loading = undefined;
          if (current) setFailed(true);
        },
      );
      return () => {
        current = false;
      };
    }, []);
    if (loaded !== undefined) {
      const Screen = loaded;
      return <Screen {...props} />;
    }
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
  };
}
