/**
 * A host's workspace made a real git repository, for runs in their own worktree
 * (docs/worktrees.md): one commit on `main`, and git run in it as the user would.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** `git -C folder …`'s output, trimmed. */
export function gitIn(folder: string, ...args: string[]): string {
  return execFileSync('git', ['-C', folder, ...args], { encoding: 'utf8' }).trim();
}

/** Makes `workspace` a repository on `main` whose one commit holds `files` (name → text). */
export function makeRepository(
  workspace: string,
  files: Record<string, string> = { 'notes.txt': 'one\ntwo\n' },
): void {
  gitIn(workspace, 'init', '--quiet', '--initial-branch=main');
  gitIn(workspace, 'config', 'user.email', 'user@example.com');
  gitIn(workspace, 'config', 'user.name', 'User');
  for (const [name, text] of Object.entries(files)) writeFileSync(join(workspace, name), text);
  gitIn(workspace, 'add', '.');
  gitIn(workspace, 'commit', '--quiet', '-m', 'first');
}
