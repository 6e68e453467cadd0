/**
 * The protocol's schemas are zod/mini (tree-shakable: the app's first load carries only
 * what they use). zod/mini loads no error messages; these are the English ones zod
 * classic sets, so an issue reads the same on the host, in the CLI and in the browser.
 */
import { z } from 'zod/mini';
import { en } from 'zod/locales';

z.config(en());
