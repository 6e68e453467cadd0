/**
 * A sandbox plan as bubblewrap's arguments (Linux). bubblewrap builds a new mount, PID,
 * IPC, UTS and (without network) network namespace. The root it shows is built from an
 * allowlist: the system's folders (programs, libraries, `/etc`) read-only, the folders
 * programs run from (`PATH`), the workspace and what else the call may write read-write,
 * the home folder emptied but for its toolchains; nothing of `/home`, `/root`, `/srv`,
 * `/mnt`, `/media`, `/var` or any other folder, where other projects and their secrets
 * live. Over the writable folders: each git folder pinned (bound onto itself, so it
 * cannot be renamed), what makes git run code read-only, secrets covered by an empty file
 * or folder. The order matters: a later mount covers an earlier one.
 */
import { existsSync, readdirSync, realpathSync } from 'node:fs';
import type { Dirent } from 'node:fs';
import type { SandboxPlan, WrappedCommand } from './types.js';
import { isInside } from './path-inside.js';

/** Top-level folders of the system shown read-only: programs, libraries, settings. */
const SYSTEM_FOLDERS: ReadonlySet<string> = new Set([
  'usr',
  'bin',
  'sbin',
  'lib',
  'lib32',
  'lib64',
  'libx32',
  'etc',
  'opt',
  'nix',
  'snap',
  'sys',
]);

/**
 * Folders given an empty tmpfs: `/tmp` and `/var/tmp` (the command gets private ones;
 * writes there vanish with the sandbox) and `/run`, where other programs' sockets live
 * (the user's D-Bus, which could ask systemd to start a program outside; docker.sock;
 * ssh-agent): a socket on a read-only mount still accepts connections.
 */
const EMPTIED_FOLDERS: readonly string[] = ['/tmp', '/var/tmp', '/run'];

/**
 * Folders inside the system's shown ones where a daemon listens, emptied where they exist:
 * the Nix daemon's socket (`/nix` is shown for its programs), a daemon that builds and
 * fetches whatever it is asked, over the network, outside the sandbox.
 */
const DAEMON_SOCKET_FOLDERS: readonly string[] = ['/nix/var/nix/daemon-socket'];

/**
 * bubblewrap's command line for `argv` under `plan`, in `cwd`. `replacedFiles` names, for
 * each of `plan.replaced`, a file on the host holding its content (bubblewrap binds files,
 * not strings); `seccompFile` the seccomp filter the command gets as its descriptor 3
 * (keyring-filter.ts), or null for none.
 */
export function bwrapCommand(
  program: string,
  plan: SandboxPlan,
  argv: readonly string[],
  cwd: string,
  replacedFiles: readonly string[],
  seccompFile: string | null,
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
  ];
  for (const entry of rootEntries()) {
    const top = `/${entry.name}`;
    if (entry.isSymbolicLink()) {
      // /bin -> usr/bin on merged-/usr systems: the same link inside.
      const target = linkTarget(top);
      if (target !== null) args.push('--symlink', target, top);
    } else if (entry.isDirectory() && SYSTEM_FOLDERS.has(entry.name)) {
      args.push('--ro-bind', top, top);
    }
  }
  const emptied = [
    ...EMPTIED_FOLDERS,
    ...DAEMON_SOCKET_FOLDERS.filter((folder) => existsSync(folder)),
    ...(plan.home === null ? [] : [plan.home.path]),
  ];
  const readable = [...plan.programFolders, ...(plan.home?.readable ?? []), ...plan.gitReadOnly];
  const bound = [...plan.writable, plan.tempDir];
  // The sandbox's own /dev and /proc, and the emptied folders, after the shown folders
  // that hold them (a config's readable "/" or "/home"), so those do not show the host's
  // processes, /run's sockets or the home folder again; then what is shown inside an
  // emptied folder (the call's /tmp folder, a toolchain in the home).
  const inEmptied = (folder: string) => emptied.some((empty) => isInside(folder, empty));
  const showReadable = (folder: string) => args.push('--ro-bind', folder, folder);
  const showWritable = (folder: string) => args.push('--bind', folder, folder);
  readable.filter((folder) => !inEmptied(folder)).forEach(showReadable);
  bound.filter((folder) => !inEmptied(folder)).forEach(showWritable);
  args.push('--dev', '/dev', '--proc', '/proc');
  for (const folder of emptied) args.push('--tmpfs', folder);
  readable.filter(inEmptied).forEach(showReadable);
  bound.filter(inEmptied).forEach(showWritable);
  for (const gitDir of plan.pinned) args.push('--bind', gitDir, gitDir);
  const shown = [...bound, ...readable];
  const visible = (target: string): boolean =>
    shown.some((folder) => isInside(target, folder)) ||
    (SYSTEM_FOLDERS.has(target.split('/')[1] ?? '') &&
      !emptied.some((folder) => isInside(target, folder)));
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
  // The root bubblewrap built the rest on is a tmpfs: read-only, so a write to a folder
  // that is not shown fails instead of vanishing.
  args.push('--remount-ro', '/');
  // The kernel keyring is shared with the login session: its calls are refused (fd 3).
  if (seccompFile !== null) args.push('--seccomp', '3');
  args.push('--chdir', cwd, '--', ...argv);
  return { file: program, args, ...(seccompFile === null ? {} : { fd3: seccompFile }) };
}

function rootEntries(): Dirent[] {
  try {
    return readdirSync('/', { withFileTypes: true });
  } catch {
    return [];
  }
}

/** Where a top-level link points, when it points into a system folder. */
function linkTarget(link: string): string | null {
  try {
    const real = realpathSync(link);
    return SYSTEM_FOLDERS.has(real.split('/')[1] ?? '') ? real : null;
  } catch {
    return null;
  }
}
