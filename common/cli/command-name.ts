/**
 * How hints name the `tether` command: `tether` when that name on PATH is this very
 * installation (`npm link` or `npm install -g .` from the clone), else the full
 * `node …/bin/tether.js` that works from anywhere. Never `npx tether`: outside the clone
 * that runs an unrelated npm package.
 */
import { accessSync, constants, existsSync, realpathSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

function realpath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/**
 * `bin/tether.js` of the clone this file is in: three folders up from the built
 * `dist/common/cli/`, two from the sources (`common/cli/`, as tests run them).
 */
function cloneBin(): string {
  const built = fileURLToPath(new URL('../../../bin/tether.js', import.meta.url));
  const source = fileURLToPath(new URL('../../bin/tether.js', import.meta.url));
  return existsSync(built) ? built : source;
}

/** `tether`, or `node '/path/to/clone/bin/tether.js'` when `tether` is not this one on PATH. */
export function tetherCommand(env: NodeJS.ProcessEnv = process.env): string {
  if (cached !== undefined) return cached;
  const bin = cloneBin();
  const ours = realpath(bin);
  for (const dir of (env['PATH'] ?? '').split(delimiter).filter(Boolean)) {
    const candidate = join(dir, 'tether');
    try {
      accessSync(candidate, constants.X_OK);
    } catch {
      continue;
    }
    cached = realpath(candidate) === ours ? 'tether' : `node '${bin}'`;
    return cached;
  }
  cached = `node '${bin}'`;
  return cached;
}
