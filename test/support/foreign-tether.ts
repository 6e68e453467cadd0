/**
 * A PATH on which `tether` is not this clone, whatever the machine has installed (the
 * README's `npm link` puts this clone's `tether` on PATH): a `tether` that is someone
 * else's comes first, so hints name the clone's `node …/bin/tether.js` every time.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './temp-dir.js';

let bin: string | undefined;

/** `process.env.PATH` with a folder holding a foreign `tether` in front (made once per file). */
export function pathWithForeignTether(): string {
  if (bin === undefined) {
    const dir = tempDir('tether-foreign-bin-');
    process.once('exit', dir.remove);
    writeFileSync(join(dir.path, 'tether'), '#!/bin/sh\nexit 127\n', { mode: 0o755 });
    bin = dir.path;
  }
  return `${bin}:${process.env['PATH'] ?? ''}`;
}
