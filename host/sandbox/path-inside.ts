/**
 * Whether a path is a folder or lies inside it: the one test every containment decision of
 * the host makes (what a sandbox shows or lets a command write, what policy reads as inside
 * a workspace, which PATH entries an unattended command keeps). Both paths are absolute and
 * already resolved (real paths where links matter): this compares names, it reads nothing.
 */
import path from 'node:path';

/** Whether `candidate` is `folder` or inside it (`folder/..x` is inside, `folder/../x` not). */
export function isInside(candidate: string, folder: string): boolean {
  const relative = path.relative(folder, candidate);
  return !(relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative));
}
