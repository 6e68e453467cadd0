import { readFileSync } from 'node:fs';
import { z } from 'zod';

/**
 * Tether's version, from package.json: one folder up from host/ in source, two in dist/,
 * three from the host's bundle in dist/host/cli/.
 */
export const VERSION: string = (() => {
  for (const path of ['../package.json', '../../package.json', '../../../package.json']) {
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
