/**
 * The macOS form of a {@link SandboxPlan}: a Seatbelt (SBPL) profile for `sandbox-exec`,
 * generated per call. Closed by default; it opens what ordinary command-line tools need
 * (after OpenAI Codex's and Chromium's base policies), reads everywhere, writes in the
 * plan's folders, and ends with the plan's denies, since in SBPL a later rule wins.
 *
 * No path or pattern is ever written into the profile text: each one travels as a
 * `-D NAME=value` parameter and the profile names it with `(param "NAME")`, so a path
 * holding quotes, backslashes, parentheses or a newline is a value, never syntax. The
 * profile text depends only on the plan's shape (how many of each), its network flag and
 * its proxy's port, a number.
 *
 * Seatbelt matches the real path of what is opened (`/private/tmp/x`, never `/tmp/x`):
 * the plan's paths are real paths already, and rules on a symlinked spelling would
 * match nothing.
 */
import { dirname } from 'node:path';
import type { SandboxPlan, WrappedCommand } from './types.js';

/** Only this one: a `sandbox-exec` found on PATH could be anyone's. */
const SANDBOX_EXEC = '/usr/bin/sandbox-exec';

/** What every command gets, whatever the plan: processes, system facts, devices. */
const BASE_RULES = `(version 1)
(deny default)

; Processes: children inherit this profile; signals and process info stay inside it.
(allow process-exec process-fork)
(allow signal (target same-sandbox))
(allow process-info* (target same-sandbox))
; host_processor_info: Node's os.cpus(), which test runners size their pools by.
(allow mach-host*)

; System facts. No kern.proc.all, kern.procargs*: other processes' tables and arguments.
(allow sysctl-read
  (sysctl-name "hw.activecpu") (sysctl-name "hw.busfrequency_compat")
  (sysctl-name "hw.byteorder") (sysctl-name "hw.cacheconfig")
  (sysctl-name "hw.cachelinesize_compat") (sysctl-name "hw.cpufamily")
  (sysctl-name "hw.cpufrequency") (sysctl-name "hw.cpufrequency_compat")
  (sysctl-name "hw.cputype") (sysctl-name "hw.l1dcachesize_compat")
  (sysctl-name "hw.l1icachesize_compat") (sysctl-name "hw.l2cachesize_compat")
  (sysctl-name "hw.l3cachesize_compat") (sysctl-name "hw.logicalcpu")
  (sysctl-name "hw.logicalcpu_max") (sysctl-name "hw.machine") (sysctl-name "hw.memsize")
  (sysctl-name "hw.model") (sysctl-name "hw.ncpu") (sysctl-name "hw.nperflevels")
  (sysctl-name "hw.packages") (sysctl-name "hw.pagesize") (sysctl-name "hw.pagesize_compat")
  (sysctl-name "hw.physicalcpu") (sysctl-name "hw.physicalcpu_max")
  (sysctl-name "hw.tbfrequency_compat") (sysctl-name "hw.vectorunit")
  (sysctl-name "kern.argmax") (sysctl-name "kern.hostname") (sysctl-name "kern.maxfiles")
  (sysctl-name "kern.maxfilesperproc") (sysctl-name "kern.maxproc")
  (sysctl-name "kern.ngroups") (sysctl-name "kern.osproductversion")
  (sysctl-name "kern.osrelease") (sysctl-name "kern.ostype")
  (sysctl-name "kern.osvariant_status") (sysctl-name "kern.osversion")
  (sysctl-name "kern.secure_kernel") (sysctl-name "kern.usrstack64")
  (sysctl-name "kern.version") (sysctl-name "machdep.cpu.brand_string")
  (sysctl-name "machdep.ptrauth_enabled") (sysctl-name "sysctl.proc_cputype")
  (sysctl-name "vm.loadavg")
  (sysctl-name-prefix "hw.optional.") (sysctl-name-prefix "hw.perflevel")
  (sysctl-name-prefix "kern.proc.pgrp.") (sysctl-name-prefix "kern.proc.pid.")
  (sysctl-name-prefix "machdep.cpu.") (sysctl-name-prefix "net.routetable."))
; Reads through a write call: the JVM's CPU probe and V8's thread setup.
(allow sysctl-write (sysctl-name "kern.grade_cputype") (sysctl-name "kern.tcsm_enable"))

; Services a plain command needs: user and group lookups, temporary-folder paths,
; notifications, logging, preferences, power state. Not the Keychain
; (com.apple.SecurityServer, securityd): items the security command made read back
; without a dialog, and the host keeps its own key there.
(allow mach-lookup
  (global-name "com.apple.bsd.dirhelper")
  (global-name "com.apple.cfprefsd.agent")
  (global-name "com.apple.cfprefsd.daemon")
  (global-name "com.apple.logd")
  (global-name "com.apple.PowerManagement.control")
  (global-name "com.apple.system.logger")
  (global-name "com.apple.system.notification_center")
  (global-name "com.apple.system.opendirectoryd.libinfo")
  (global-name "com.apple.system.opendirectoryd.membership")
  (local-name "com.apple.cfprefsd.agent"))
(allow user-preference-read)
(allow ipc-posix-shm-read*
  (ipc-posix-name-prefix "apple.cfprefs.")
  (ipc-posix-name "apple.shm.notification_center"))
; Python's multiprocessing locks; libomp's registration (PyTorch, NumPy builds).
(allow ipc-posix-sem)
(allow ipc-posix-shm-read-data ipc-posix-shm-write-create ipc-posix-shm-write-unlink
  (ipc-posix-name-regex #"^/__KMP_REGISTERED_LIB_[0-9]+$"))
(allow iokit-open (iokit-registry-entry-class "RootDomainUserClient"))

; Reads: everything; the hidden paths are denied at the end.
(allow file-read*)

; Devices. Other terminals' ttys stay shut (reading one takes the keys typed there);
; a pty the command opens itself carries the sandbox's pty extension.
(allow file-write-data file-ioctl
  (literal "/dev/null") (literal "/dev/zero") (literal "/dev/tty")
  (literal "/dev/dtracehelper"))
(allow file-write-data (subpath "/dev/fd"))
(deny file-read* file-write* file-ioctl (regex #"^/dev/ttys[0-9]+$"))
(allow pseudo-tty)
(allow file-read* file-write* file-ioctl (literal "/dev/ptmx"))
(allow file-read* file-write* file-ioctl
  (require-all (regex #"^/dev/ttys[0-9]+$") (extension "com.apple.sandbox.pty")))
`;

/**
 * With the network: IP to anywhere both ways (loopback included: a project's tests start
 * servers), and name resolution, which goes through mDNSResponder. No other unix socket:
 * the SSH and GPG agents and Docker's socket act with the user's keys and rights.
 */
const NETWORK_RULES = `
; Network: IP both ways, DNS through mDNSResponder, TLS trust and proxy settings.
(allow network-outbound (remote ip "*:*"))
(allow network-bind network-inbound (local ip "*:*"))
(allow network-outbound (remote unix-socket (subpath "/private/var/run/mDNSResponder")))
(allow system-socket)
(allow mach-lookup
  (global-name "com.apple.dnssd.service")
  (global-name "com.apple.networkd")
  (global-name "com.apple.ocspd")
  (global-name "com.apple.SystemConfiguration.configd")
  (global-name "com.apple.SystemConfiguration.DNSConfiguration")
  (global-name "com.apple.trustd")
  (global-name "com.apple.trustd.agent"))
`;

/**
 * Without the network but with the host's proxy to some hosts (./network-proxy.ts): the
 * one loopback port it listens on, and nothing else; the proxy resolves names itself.
 */
function proxyRules(port: number): string {
  if (!Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new Error(`not a proxy port: ${port}`);
  }
  return `
; Network: only the host's proxy to the allowed hosts, on loopback.
(allow network-outbound (remote ip "localhost:${port}"))
`;
}

/** A protected path's rule cannot be escaped by hard-linking or cloning it elsewhere. */
const HIDE = 'file-read* file-write* file-link file-clone';

/**
 * The SBPL text of one call's sandbox. Every path and pattern in it is a `(param …)`
 * that {@link seatbeltCommand} defines; on its own it is for reading and testing.
 */
export function seatbeltProfile(plan: SandboxPlan): string {
  return compileProfile(plan).profile;
}

/**
 * `sandbox-exec -p <profile> -D<NAME>=<path>… -- <argv>`: the command line that runs
 * `argv` inside {@link seatbeltProfile}'s sandbox, the plan's paths passed as
 * parameters. Throws for an empty `argv` or a path that is not absolute.
 */
export function seatbeltCommand(plan: SandboxPlan, argv: readonly string[]): WrappedCommand {
  if (argv.length === 0) throw new Error('seatbeltCommand needs a command to run');
  const { profile, parameters } = compileProfile(plan);
  const definitions = [...parameters].map(([name, value]) => `-D${name}=${value}`);
  return { file: SANDBOX_EXEC, args: ['-p', profile, ...definitions, '--', ...argv] };
}

function compileProfile(plan: SandboxPlan): {
  profile: string;
  parameters: Map<string, string>;
} {
  const parameters = new Map<string, string>();
  const param = (prefix: string, value: string): string => {
    if (value.includes('\0')) throw new Error(`a sandbox path or pattern holds a NUL byte`);
    const name = `${prefix}_${parameters.size}`;
    parameters.set(name, value);
    return `(param "${name}")`;
  };
  const path = (prefix: string, value: string): string => {
    if (!value.startsWith('/')) throw new Error(`sandbox paths are absolute: ${value}`);
    return param(prefix, value);
  };

  const writable = [
    ...plan.writable.map((folder) => `(subpath ${path('WRITABLE', folder)})`),
    `(subpath ${path('TEMP_DIR', plan.tempDir)})`,
  ];
  const denies = [
    ...plan.readOnly.map(
      (readOnly) => `(deny file-write* file-link (subpath ${path('READ_ONLY', readOnly)}))`,
    ),
    ...plan.hidden.map(({ path: hidden, type }) => {
      const filter = type === 'dir' ? 'subpath' : 'literal';
      return `(deny ${HIDE} (${filter} ${path('HIDDEN', hidden)}))`;
    }),
    // Seatbelt cannot show a file with other content: a replaced file is hidden.
    ...plan.replaced.map(
      ({ path: replaced }) => `(deny ${HIDE} (literal ${path('REPLACED', replaced)}))`,
    ),
    ...plan.hiddenPatterns.map(
      (pattern) => `(deny ${HIDE} (regex ${param('HIDDEN_PATTERN', pattern)}))`,
    ),
  ];
  // Renaming a folder that holds a protected path moves the path out from under its
  // rule (`mv .git g; echo x > g/hooks/pre-commit; mv g .git`): no folder above one
  // may be renamed or removed.
  const protectedPaths = [
    ...plan.readOnly,
    ...plan.hidden.map((hidden) => hidden.path),
    ...plan.replaced.map((replaced) => replaced.path),
  ];
  const pinned = new Set<string>();
  for (const protectedPath of protectedPaths) {
    let folder = dirname(protectedPath);
    while (folder !== dirname(folder)) {
      pinned.add(folder);
      folder = dirname(folder);
    }
  }
  const pins = [...pinned].map((folder) => `(literal ${path('PINNED', folder)})`);

  const sections = [
    BASE_RULES,
    "; Writes: the workspace, approved folders, the call's temporary folder.\n",
    `(allow file-write*\n  ${writable.join('\n  ')})\n`,
    plan.network
      ? NETWORK_RULES
      : plan.proxyPort !== null
        ? proxyRules(plan.proxyPort)
        : '\n; Network: none, loopback and unix sockets included.\n',
    '\n; Last, so they win: read-only, hidden and replaced paths, the secret patterns.\n',
    ...denies.map((deny) => `${deny}\n`),
    pins.length > 0 ? `(deny file-write-unlink\n  ${pins.join('\n  ')})\n` : '',
  ];
  return { profile: sections.join(''), parameters };
}
