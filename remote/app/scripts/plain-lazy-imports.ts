/**
 * Vite wraps every `import()` of a client build in its preload helper, which fetches a lazy
 * chunk's CSS and `modulepreload`s its imports first (about 0.7 KB gzip in the first load,
 * whatever `build.modulePreload` says). The app has neither: its one stylesheet comes with
 * the entry, and a lazy chunk's own imports load when it runs (from the service worker's
 * cache once installed). This plugin makes the helper a plain call of the `import()`, and
 * fails the build if a lazy chunk ever brings CSS of its own, which would then not load.
 */
import type { Plugin } from 'vite';

/** The virtual module vite's import analysis imports the helper from. */
const PRELOAD_HELPER_ID = '\0vite/preload-helper.js';

export function plainLazyImports(): Plugin {
  return {
    name: 'tether-plain-lazy-imports',
    apply: 'build',
    enforce: 'pre',
    load(id) {
      if (id !== PRELOAD_HELPER_ID) return undefined;
      return 'export const __vitePreload = (load) => load();';
    },
    generateBundle(_options, bundle) {
      const styles = Object.values(bundle).filter((file) => file.fileName.endsWith('.css'));
      if (styles.length > 1) {
        this.error(
          `the app has ${styles.length} stylesheets (${styles.map((file) => file.fileName).join(', ')}): ` +
            'a lazy chunk imports CSS, which plainLazyImports does not preload; ' +
            'put its rules in remote/app/src/styles.css',
        );
      }
    },
  };
}
