/**
 * A per-user launchd LaunchAgent: `~/Library/LaunchAgents/<label>.plist`, loaded with
 * `launchctl bootstrap gui/<uid>` and removed with `launchctl bootout`.
 */
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { lastLine, runTool } from './run-tool.js';
import type { ServiceManager, ServiceSpec, ServiceState } from './service-spec.js';

/** Seconds launchd waits before starting a host that exited again. */
const THROTTLE_SECONDS = 10;

function escapeXml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

const string = (text: string) => `<string>${escapeXml(text)}</string>`;

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
    },
    async uninstall(name) {
      const path = file(name);
      const installed = existsSync(path);
      await bootout(name);
      rmSync(path, { force: true });
      return installed;
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
      };
      if (!state.loaded) return state;
      const field = (key: string) =>
        new RegExp(`^\\s*${key} = (.+)$`, 'm').exec(printed.stdout)?.[1]?.trim();
      state.running = field('state') === 'running';
      const pid = Number(field('pid'));
      state.pid = Number.isInteger(pid) && pid > 0 ? pid : null;
      const exit = field('last exit code');
      state.lastExit = exit === undefined || exit.startsWith('(never') ? null : exit;
      return state;
    },
  };
}
