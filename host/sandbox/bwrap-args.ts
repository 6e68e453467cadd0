/**
 * A sandbox plan as bubblewrap's arguments (Linux). bubblewrap builds a new mount, PID,
 * IPC, UTS and (without network) network namespace: the root file system read-only, the
 * writable folders bound read-write over it, the `.git` internals bound read-only again,
 * secrets covered by an empty file or folder. The order matters: a later mount covers an
 * earlier one, so the covers come last.
 */
import { realpathSync } from 'node:fs';
import path from 'node:path';
import type { SandboxPlan, WrappedCommand } from './types.js';

/**
 * Folders replaced by an empty tmpfs: `/tmp` (the command gets a private one; writes there
 * vanish with the sandbox) and `/run`, where the sockets of other programs live (the
 * user's D-Bus, which could ask systemd to start a program outside; docker.sock;
 * ssh-agent): a socket on a read-only mount still accepts connections.
 */
const EMPTIED_FOLDERS: readonly string[] = [
  // /var/run is a symlink to /run on most systems: mounted once, at its real path.
  ...new Set(['/tmp', '/run', '/var/run'].flatMap((folder) => realFolder(folder))),
];

function realFolder(folder: string): string[] {
  try {
    return [realpathSync(folder)];
  } catch {
    return [];
  }
}

/**
 * bubblewrap's command line for `argv` under `plan`, in `cwd`. `replacedFiles` names, for
 * each of `plan.replaced`, a file on the host holding its content (bubblewrap binds files,
 * not strings).
 */
export function bwrapCommand(
  program: string,
  plan: SandboxPlan,
  argv: readonly string[],
  cwd: string,
  replacedFiles: readonly string[],
): WrappedCommand {
  const args: string[] = [
    '--die-with-parent',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    ...(plan.network ? [] : ['--unshare-net']),
    // As root (a container, CI) bubblewrap keeps capabilities unless told: with them a
    // command could mount over what is read-only.
    '--cap-drop',
    'ALL',
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
  ];
  const emptied = [...EMPTIED_FOLDERS, ...(plan.home === null ? [] : [plan.home.path])];
  for (const folder of emptied) args.push('--tmpfs', folder);
  for (const readable of plan.home?.readable ?? []) args.push('--ro-bind', readable, readable);
  const bound = [...plan.writable, plan.tempDir];
  for (const writable of bound) args.push('--bind', writable, writable);
  const shown = [...bound, ...(plan.home?.readable ?? [])];
  const visible = (target: string): boolean =>
    !emptied.some((folder) => isInside(target, folder)) ||
    shown.some((folder) => isInside(target, folder));
  for (const readOnly of plan.readOnly) {
    if (visible(readOnly)) args.push('--ro-bind', readOnly, readOnly);
  }
  plan.replaced.forEach((file, i) => {
    const source = replacedFiles[i];
    if (source !== undefined && visible(file.path)) args.push('--ro-bind', source, file.path);
  });
  for (const hidden of plan.hidden) {
    if (!visible(hidden.path)) continue;
    if (hidden.type === 'dir') {
      args.push('--perms', '0000', '--tmpfs', hidden.path, '--remount-ro', hidden.path);
    } else {
      args.push('--ro-bind', '/dev/null', hidden.path);
    }
  }
  args.push('--chdir', cwd, '--', ...argv);
  return { file: program, args };
}

function isInside(candidate: string, folder: string): boolean {
  const relative = path.relative(folder, candidate);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}
