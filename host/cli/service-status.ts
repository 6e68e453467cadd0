/**
 * What `tether service status` and `tether doctor` say about the service: the manager's
 * state, and when the host is not running, the last error of its own output and, for a
 * port or data directory in use, which process holds it.
 */
import { existsSync } from 'node:fs';
import { readAdminFile } from '../server/index.js';
import { tetherCommand } from '../../common/cli/index.js';
import { isAlive } from './admin-client.js';
import { findPortHolder, type PortHolder } from './port-holder.js';
import { lastErrorLine, readLastLines, takenResource } from './service-log.js';
import { serviceOutputPath, type ServiceManager, type ServiceState } from './service-spec.js';

/** What the host could not take (its port, its data directory), and who has it. */
interface Conflict {
  /** `port 8787`, `the data directory /…` */
  resource: string;
  /** The holding process, when this user may see it. */
  holder: PortHolder | null;
  /** The holder is the Tether host of this data directory's admin file: one started outside the service. */
  tetherHost: boolean;
}

/** The service's state with what explains it. */
interface ServiceReport extends ServiceState {
  name: string;
  kind: ServiceManager['kind'];
  /** The data directory the service runs on. */
  dataDir: string;
  /** Where the running host answers. */
  url: string | null;
  /** The last error line of `<dataDir>/logs/service.log`, while the host is not running. */
  lastError: string | null;
  conflict: Conflict | null;
}

/** How many lines at the end of the service's output are searched for its last error. */
const ERROR_SEARCH_LINES = 200;

/**
 * The data directory to read: `--data` when given, else the installed service's, else the
 * default one (`resolve(undefined)`).
 */
export function serviceDataDir(
  manager: ServiceManager,
  name: string,
  flag: string | undefined,
  resolve: (flag: string | undefined) => string,
): string {
  return flag !== undefined
    ? resolve(flag)
    : (manager.installedDataDir(name) ?? resolve(undefined));
}

/** The service `name`'s state, its host's URL, and why it is not running when it is not. */
export async function serviceReport(
  manager: ServiceManager,
  name: string,
  dataDir: string,
): Promise<ServiceReport> {
  const state = await manager.status(name);
  const admin = readAdminFile(dataDir);
  const report: ServiceReport = {
    ...state,
    name,
    kind: manager.kind,
    dataDir,
    url: state.running ? (admin?.url ?? null) : null,
    lastError: null,
    conflict: null,
  };
  const output = serviceOutputPath(dataDir);
  if (state.running || !state.installed || !existsSync(output)) return report;
  report.lastError = lastErrorLine(readLastLines(output, ERROR_SEARCH_LINES));
  const taken = report.lastError === null ? null : takenResource(report.lastError);
  if (taken === null) return report;
  const tetherHost = admin !== undefined && isAlive(admin.pid) ? admin.pid : null;
  if ('port' in taken) {
    const holder = await findPortHolder(taken.port);
    report.conflict = {
      resource: `port ${taken.port}`,
      holder,
      tetherHost: holder !== null && holder.pid === tetherHost,
    };
  } else {
    report.conflict = {
      resource: `the data directory ${taken.dataDir}`,
      holder: tetherHost === null ? null : { pid: tetherHost, command: '' },
      tetherHost: tetherHost !== null,
    };
  }
  return report;
}

/** Who holds it, in a few words: `a Tether host started outside the service (pid 7)`. */
export function describeHolder(conflict: Conflict): string {
  const { holder } = conflict;
  if (holder === null) return 'another program (one this user cannot see)';
  if (conflict.tetherHost) return `a Tether host started outside the service (pid ${holder.pid})`;
  const command = holder.command.length > 80 ? `${holder.command.slice(0, 77)}...` : holder.command;
  return `pid ${holder.pid}${command === '' ? '' : ` (${command})`}`;
}

/** How to cure it: stop the holder, then restart the service (installing again would not help). */
export function conflictFix(conflict: Conflict): string {
  const { holder } = conflict;
  const stop =
    holder === null
      ? `stop the program that holds ${conflict.resource}`
      : conflict.tetherHost
        ? `stop the Tether host started outside the service (Ctrl-C in its terminal, or kill ${holder.pid})`
        : `stop pid ${holder.pid} (kill ${holder.pid}), which holds ${conflict.resource}`;
  return `${stop}, then: ${tetherCommand()} service restart`;
}
