#!/usr/bin/env node
// Entry point of the `tether` command: runs the built host (npm run build makes dist/).
import { existsSync } from 'node:fs';

const entry = new URL('../dist/host/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write(
    'tether: the host is not built yet; run `npm run build` (npm start builds it)\n',
  );
  process.exit(1);
}
const { main } = await import(entry.href);
process.exitCode = await main(process.argv.slice(2));
