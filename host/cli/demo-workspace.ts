/**
 * The sample workspace of `tether start --demo`: a small folder inside the demo's data
 * directory, so the demo never reads or runs anything in the user's own folders.
 */
import { existsSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HostConfig, Workspace } from '../config/index.js';

const SAMPLE_FILES: Readonly<Record<string, string>> = {
  'README.md': `# Demo workspace

This folder was made by \`tether start --demo\`. The demo model lists it, finds and
searches its files, reads this file, and asks to run a command, so you can try approving
from your phone.

- Runs are recorded on the host and shown live on every paired device.
- Commands ask for approval before they run.
- Nothing here is sent anywhere: the demo model is a script on this computer.
`,
  'notes.txt': 'Ideas for later:\n- pair a second device\n- deny a command and see what happens\n',
  'hello.sh': '#!/bin/sh\necho "hello from the demo workspace"\n',
};

/** `<dataDir>/demo-workspace`, made with the sample files the first time. */
function ensureDemoWorkspace(dataDir: string): Workspace {
  const path = join(dataDir, 'demo-workspace');
  if (!existsSync(path)) {
    mkdirSync(path, { recursive: true, mode: 0o700 });
    for (const [name, text] of Object.entries(SAMPLE_FILES)) {
      writeFileSync(join(path, name), text, { mode: 0o644 });
    }
  }
  return { name: 'demo-workspace', path: realpathSync(path) };
}

/** The workspaces runs may work in: the config's, or the demo's sample one when it names none. */
export function hostWorkspaces(config: HostConfig): Workspace[] {
  if (config.demo && config.workspaces.length === 0) return [ensureDemoWorkspace(config.dataDir)];
  return config.workspaces;
}
