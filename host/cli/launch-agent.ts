/**
 * A per-user launchd LaunchAgent: `~/Library/LaunchAgents/<label>.plist`, loaded with
 * `launchctl bootstrap gui/<uid>` and removed with `launchctl bootout`.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { lastLine, runTool } from './run-tool.js';
import type { ServiceManager, ServiceSpec, ServiceState } from './service-spec.js';

/** Seconds launchd waits before starting a host that exited again. */
const THROTTLE_SECONDS = 10;

/** Whether `text` holds a character XML 1.0, and so a plist, cannot hold at all. */
function notXml(text: string): boolean {
  return [...text].some((char) => {
    const code = char.codePointAt(0) ?? 0;
    return (
      (code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) ||
      code === 0xfffe ||
      code === 0xffff
    );
  });
}

function escapeXml(text: string): string {
  if (notXml(text)) {
    throw new Error(
      `${JSON.stringify(text)} cannot be written in a plist (it holds a control character): ` +
        'choose a path without one (--data, --workspace)',
    );
  }
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

const string = (text: string) => `<string>${escapeXml(text)}</string>`;

const XML_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/**
 * A top-level field of `launchctl print`: those are indented with one tab, the fields of
 * nested blocks (endpoints, environment) with more.
 */
function printedField(printed: string, key: string): string | undefined {
  return new RegExp(`^\\t${key} = (.+)$`, 'm').exec(printed)?.[1]?.trim();
}

/**
 * The plist: `RunAtLoad` starts it at login, `KeepAlive.SuccessfulExit: false` restarts
 * it after a crash but not after a clean stop (SIGTERM exits 0), `ThrottleInterval`
 * spaces restarts, and its output goes to the data directory.
 */
function launchAgentPlist(spec: ServiceSpec): string {
  const env = Object.entries(spec.environment)
    .map(([key, value]) => `\t\t<key>${escapeXml(key)}</key>\n\t\t${string(value)}`)
    .join('\n');
  const args = spec.programArguments.map((arg) => `\t\t${string(arg)}`).join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
\t<key>Label</key>
\t${string(spec.name)}
\t<key>ProgramArguments</key>
\t<array>
${args}
\t</array>
\t<key>EnvironmentVariables</key>
\t<dict>
${env}
\t</dict>
\t<key>WorkingDirectory</key>
\t${string(spec.dataDir)}
\t<key>RunAtLoad</key>
\t<true/>
\t<key>KeepAlive</key>
\t<dict>
\t\t<key>SuccessfulExit</key>
\t\t<false/>
\t</dict>
\t<key>ThrottleInterval</key>
\t<integer>${THROTTLE_SECONDS}</integer>
\t<key>ProcessType</key>
\t<string>Interactive</string>
\t<key>StandardOutPath</key>
\t${string(spec.outputPath)}
\t<key>StandardErrorPath</key>
\t${string(spec.outputPath)}
</dict>
</plist>
`;
}

/** launchd for the user `uid`, with plists in `<home>/Library/LaunchAgents`. */
export function launchAgents(home: string, uid: number): ServiceManager {
  const domain = `gui/${uid}`;
  const file = (name: string) => join(home, 'Library', 'LaunchAgents', `${name}.plist`);
  const bootout = (name: string) => runTool('launchctl', ['bootout', `${domain}/${name}`]);
  // bootout returns before launchd has let go of the job; a bootstrap then fails (error 5).
  const untilGone = async (name: string) => {
    for (let tries = 0; tries < 50; tries++) {
      if ((await runTool('launchctl', ['print', `${domain}/${name}`])).code !== 0) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  return {
    kind: 'launchd',
    file,
    async install(spec) {
      const path = file(spec.name);
      mkdirSync(join(home, 'Library', 'LaunchAgents'), { recursive: true });
      // Installing again replaces: the loaded job goes first (it may not be loaded).
      if ((await bootout(spec.name)).code === 0) await untilGone(spec.name);
      const temp = `${path}.tmp`;
      writeFileSync(temp, launchAgentPlist(spec), { mode: 0o644 });
      renameSync(temp, path);
      const loaded = await runTool('launchctl', ['bootstrap', domain, path]);
      if (loaded.code !== 0) {
        throw new Error(
          `launchctl bootstrap ${domain} ${path} failed (${loaded.code ?? 'not run'}): ` +
            `${lastLine(loaded)}. Check the plist with: plutil -lint "${path}"`,
        );
      }
      return [];
    },
    async uninstall(name) {
      const path = file(name);
      const installed = existsSync(path);
      await bootout(name);
      rmSync(path, { force: true });
      return { removed: installed, notes: [] };
    },
    async restart(name) {
      const path = file(name);
      const loaded = (await runTool('launchctl', ['print', `${domain}/${name}`])).code === 0;
      // kickstart -k kills the running instance first; a job not loaded is bootstrapped.
      const args = loaded ? ['kickstart', '-k', `${domain}/${name}`] : ['bootstrap', domain, path];
      const outcome = await runTool('launchctl', args);
      if (outcome.code !== 0) {
        throw new Error(
          `launchctl ${args.join(' ')} failed (${outcome.code ?? 'not run'}): ${lastLine(outcome)}`,
        );
      }
    },
    async status(name) {
      const path = file(name);
      const printed = await runTool('launchctl', ['print', `${domain}/${name}`]);
      const state: ServiceState = {
        file: path,
        installed: existsSync(path),
        loaded: printed.code === 0,
        running: false,
        pid: null,
        lastExit: null,
        managerState: null,
        notes: [],
      };
      if (!state.loaded) return state;
      const field = (key: string) => printedField(printed.stdout, key);
      const managerState = field('state') ?? null;
      state.running = managerState === 'running';
      state.managerState = state.running ? null : managerState;
      const pid = Number(field('pid'));
      state.pid = Number.isInteger(pid) && pid > 0 ? pid : null;
      // A job killed by a signal has no `last exit code`, only `last terminating signal`.
      const signal = field('last terminating signal');
      const exit = field('last exit code');
      state.lastExit =
        signal !== undefined
          ? `signal ${signal}`
          : exit === undefined || exit.startsWith('(never') || exit === '0'
            ? null
            : exit;
      return state;
    },
    installedDataDir(name) {
      const path = file(name);
      if (!existsSync(path)) return null;
      const text = readFileSync(path, 'utf8');
      const value = /<key>WorkingDirectory<\/key>\s*<string>([^<]*)<\/string>/.exec(text)?.[1];
      return value === undefined
        ? null
        : value.replace(
            /&(amp|lt|gt|quot|apos);/g,
            (_, entity: string) => XML_ENTITIES[entity] ?? '',
          );
    },
  };
}
