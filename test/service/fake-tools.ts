/**
 * Fake `launchctl`, `systemctl` and `loginctl` on PATH: shell scripts that record their
 * arguments, one call a line, keep their state in files, and print what the real ones
 * print for it: `launchctl print` with its one-tab top-level fields (`state`, `pid`,
 * `last exit code` or `last terminating signal`) under nested blocks, `systemctl show`'s
 * properties, and systemctl's own error when it cannot reach the user bus.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** What the service's process does once started. */
export type FakeJob = 'running' | 'crashed' | 'killed';

export interface FakeTools {
  /** Prepend to PATH. */
  bin: string;
  /** FAKE_DIR and PATH for the child. */
  env: Record<string, string>;
  /** Every call so far, `launchctl bootstrap gui/…` style. */
  calls(): string[];
  /** From now on the loaded job runs, keeps exiting with status 1, or was killed by SIGKILL. */
  setJob(job: FakeJob): void;
  /** Whether systemctl reaches the user instance (without a login session it does not). */
  setBus(reachable: boolean): void;
  /** Whether `loginctl` says the user lingers. */
  setLinger(on: boolean): void;
}

// Real `launchctl print` output has top-level fields at one tab and nested blocks (here the
// environment, with an endpoint-like `state` of its own) at two, before `state`.
const LAUNCHCTL = `#!/bin/sh
echo "launchctl $*" >> "$FAKE_DIR/calls"
job=$(cat "$FAKE_DIR/job" 2>/dev/null || echo running)
case "$1" in
  print)
    if [ ! -f "$FAKE_DIR/loaded" ]; then
      echo "Could not find service \\"$2\\" in domain for user gui: 501" >&2; exit 113
    fi
    printf '%s = {\\n\\tactive count = 1\\n\\ttype = LaunchAgent\\n' "$2"
    printf '\\tenvironment = {\\n\\t\\tstate = active\\n\\t\\tpid = 1\\n\\t\\tTETHER_KEY_STORE => file\\n\\t}\\n\\n'
    case "$job" in
      running) printf '\\tstate = running\\n\\truns = 1\\n\\tpid = 4242\\n\\tlast exit code = (never exited)\\n' ;;
      crashed) printf '\\tstate = spawn scheduled\\n\\truns = 3\\n\\tlast exit code = 1\\n' ;;
      killed) printf '\\tstate = not running\\n\\truns = 1\\n\\tlast terminating signal = Killed: 9\\n' ;;
    esac
    printf '}\\n' ;;
  bootstrap) touch "$FAKE_DIR/loaded" ;;
  bootout)
    if [ -f "$FAKE_DIR/loaded" ]; then rm "$FAKE_DIR/loaded"; else echo "Boot-out failed: 3: No such process" >&2; exit 3; fi ;;
  kickstart)
    if [ ! -f "$FAKE_DIR/loaded" ]; then echo "Could not find service \\"$3\\" in domain for user gui: 501" >&2; exit 113; fi ;;
esac
`;

const SYSTEMCTL = `#!/bin/sh
echo "systemctl $*" >> "$FAKE_DIR/calls"
if [ -f "$FAKE_DIR/no-bus" ]; then
  echo "Failed to connect to bus: No medium found" >&2; exit 1
fi
job=$(cat "$FAKE_DIR/job" 2>/dev/null || echo running)
units="$HOME/.config/systemd/user"
case "$2" in
  enable) mkdir -p "$units/default.target.wants" && ln -sf "$units/$3" "$units/default.target.wants/$3" ;;
  restart)
    if [ ! -f "$units/$3" ]; then echo "Failed to restart $3: Unit $3 not found." >&2; exit 5; fi
    touch "$FAKE_DIR/loaded" ;;
  disable) rm -f "$FAKE_DIR/loaded" "$units/default.target.wants/$4" ;;
  show)
    if [ ! -f "$FAKE_DIR/loaded" ]; then
      printf 'LoadState=not-found\\nActiveState=inactive\\nSubState=dead\\nMainPID=0\\nExecMainCode=0\\nExecMainStatus=0\\n'
    else case "$job" in
      running) printf 'LoadState=loaded\\nActiveState=active\\nSubState=running\\nMainPID=4343\\nExecMainCode=0\\nExecMainStatus=0\\n' ;;
      crashed) printf 'LoadState=loaded\\nActiveState=activating\\nSubState=auto-restart\\nMainPID=0\\nExecMainCode=1\\nExecMainStatus=1\\n' ;;
      killed) printf 'LoadState=loaded\\nActiveState=failed\\nSubState=failed\\nMainPID=0\\nExecMainCode=2\\nExecMainStatus=9\\n' ;;
    esac fi ;;
esac
`;

const LOGINCTL = `#!/bin/sh
echo "loginctl $*" >> "$FAKE_DIR/calls"
if [ -f "$FAKE_DIR/linger" ]; then echo yes; else echo no; fi
`;

/** Writes the fakes into `<root>/fake-bin`, their state into `<root>/fake-state`. */
export function writeFakeTools(root: string): FakeTools {
  const bin = join(root, 'fake-bin');
  const state = join(root, 'fake-state');
  mkdirSync(bin);
  mkdirSync(state);
  for (const [name, script] of [
    ['launchctl', LAUNCHCTL],
    ['systemctl', SYSTEMCTL],
    ['loginctl', LOGINCTL],
  ] as const) {
    writeFileSync(join(bin, name), script);
    chmodSync(join(bin, name), 0o755);
  }
  const file = join(state, 'calls');
  const flag = (name: string, on: boolean) =>
    on ? writeFileSync(join(state, name), '') : rmSync(join(state, name), { force: true });
  return {
    bin,
    env: { FAKE_DIR: state, PATH: `${bin}:${process.env['PATH'] ?? ''}` },
    calls: () => (existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n') : []),
    setJob: (job) => writeFileSync(join(state, 'job'), job),
    setBus: (reachable) => flag('no-bus', !reachable),
    setLinger: (on) => flag('linger', on),
  };
}
