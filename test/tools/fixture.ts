// Real temporary directories for the tool tests: a workspace and a sibling outside it.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ToolContext } from '../../host/tools/index.js';
import { tempDir } from '../support/temp-dir.js';

export interface Fixture {
  /** Real path of the temporary root holding both folders. */
  root: string;
  /** Real path of the workspace: `root/workspace`. */
  workspace: string;
  /** Real path of a folder beside the workspace: `root/outside`. */
  outside: string;
  /** A context for the workspace, with a signal that never aborts unless given one. */
  context(signal?: AbortSignal): ToolContext;
  /** Writes `content` at `relative` inside the workspace, making parent folders. */
  write(relative: string, content: string | Buffer): Promise<string>;
  remove(): Promise<void>;
}

export async function createFixture(): Promise<Fixture> {
  // tmpdir may itself be a symlink (/var -> /private/var on macOS): tempDir keeps real paths.
  const temp = tempDir('tether-tools-');
  const root = temp.path;
  const workspace = path.join(root, 'workspace');
  const outside = path.join(root, 'outside');
  await mkdir(workspace);
  await mkdir(outside);
  await writeFile(path.join(outside, 'secret.txt'), 'secret\n');
  return {
    root,
    workspace,
    outside,
    context: (signal = new AbortController().signal) => ({ workspace, signal }),
    async write(relative, content) {
      const file = path.join(workspace, relative);
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, content);
      return file;
    },
    remove: () => temp[Symbol.asyncDispose](),
  };
}
