/**
 * Which process listens on a TCP port: on Linux from `/proc` (the listening socket's inode,
 * then the process holding it), elsewhere from `lsof`. Processes of other users are
 * usually hidden from both.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { runTool } from './run-tool.js';

/** The process listening on a port. */
export interface PortHolder {
  pid: number;
  /** Its command line (Linux, `ps`), or its name. */
  command: string;
}

/** `/proc/net/tcp*` state of a listening socket. */
const TCP_LISTEN = '0A';

function listeningInodes(port: number): Set<string> {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode …
    for (const line of text.split('\n').slice(1)) {
      const columns = line.trim().split(/\s+/);
      const local = columns[1]?.split(':')[1];
      if (local === undefined || columns[3] !== TCP_LISTEN) continue;
      if (parseInt(local, 16) === port && columns[9] !== undefined) inodes.add(columns[9]);
    }
  }
  return inodes;
}

function fromProc(port: number): PortHolder | null {
  const inodes = listeningInodes(port);
  if (inodes.size === 0) return null;
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    const holds = fds.some((fd) => {
      try {
        return inodes.has(
          /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1] ?? '',
        );
      } catch {
        return false;
      }
    });
    if (!holds) continue;
    let command = '';
    try {
      command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
    } catch {
      // It exited meanwhile: the pid is all there is.
    }
    return { pid: Number(pid), command };
  }
  return null;
}

async function fromLsof(port: number): Promise<PortHolder | null> {
  const listed = await runTool('lsof', ['-nP', `-iTCP:${port}`, '-sTCP:LISTEN', '-Fpc']);
  if (listed.code !== 0) return null;
  const pid = Number(/^p(\d+)$/m.exec(listed.stdout)?.[1]);
  if (!Number.isInteger(pid) || pid <= 0) return null;
  const name = /^c(.+)$/m.exec(listed.stdout)?.[1] ?? '';
  const ps = await runTool('ps', ['-o', 'command=', '-p', String(pid)]);
  return { pid, command: (ps.code === 0 ? ps.stdout.trim() : '') || name };
}

/** The process listening on TCP `port`, or null when none (or none this user may see). */
export function findPortHolder(
  port: number,
  platform: NodeJS.Platform = process.platform,
): Promise<PortHolder | null> {
  return platform === 'linux' ? Promise.resolve(fromProc(port)) : fromLsof(port);
}
