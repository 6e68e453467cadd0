import { readFileSync } from 'node:fs';
import { z } from 'zod';

/** Tether's version, from package.json (two folders up from host/ in source and in dist/). */
export const VERSION: string = (() => {
  for (const path of ['../package.json', '../../package.json']) {
    try {
      const text = readFileSync(new URL(path, import.meta.url), 'utf8');
      const parsed = z
        .object({ name: z.literal('tether'), version: z.string() })
        .safeParse(JSON.parse(text));
      if (parsed.success) return parsed.data.version;
    } catch {
      // not at this depth: try the next
    }
  }
  return '0.0.0-unknown';
})();
