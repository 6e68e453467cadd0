#!/usr/bin/env node
// Entry point of the `tether` command: runs the built code (npm run build makes dist/).
// `tether remote …` is a remote (the client core); everything else is the host.
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
// The host runs from its bundle (scripts/bundle-host.js, part of npm run build) when there is one.
const hostBundle = new URL('../dist/host/cli/main.bundle.js', import.meta.url);
const entry =
  args[0] === 'remote'
    ? new URL('../dist/remote/cli/main.js', import.meta.url)
    : existsSync(hostBundle)
      ? hostBundle
      : new URL('../dist/host/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  // `npm install -g .` and `npm link` link the clone as it is: nothing installed or built.
  const clone = dirname(dirname(fileURLToPath(import.meta.url)));
  const installed = existsSync(new URL('../node_modules', import.meta.url));
  const steps = installed ? 'npm run build' : 'npm install && npm run build';
  process.stderr.write(`tether: not built yet; run: cd '${clone}' && ${steps}\n`);
  process.exit(1);
}
const { main } = await import(entry.href);
process.exitCode = await main(args[0] === 'remote' ? args.slice(1) : args);
