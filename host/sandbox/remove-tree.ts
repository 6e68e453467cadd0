/**
 * Removing a folder a sandboxed process had to itself, whatever it left there: a folder
 * without permissions, or one nested deeper than a path can name (rmSync fails with
 * ENAMETOOLONG where `rm` goes folder by folder). Never throws: what cannot be removed
 * stays in the machine's temporary folder, which the system empties.
 */
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';

export function removeTree(folder: string): void {
  try {
    rmSync(folder, { recursive: true, force: true });
  } catch {
    try {
      execFileSync('chmod', ['-R', 'u+rwx', '--', folder], { stdio: 'ignore' });
    } catch {
      // A part it cannot change: rm says what it can remove.
    }
    try {
      execFileSync('rm', ['-rf', '--', folder], { stdio: 'ignore' });
    } catch {
      // Left for the system.
    }
  }
}
