/**
 * Fake `launchctl` and `systemctl` on PATH: shell scripts that record their arguments,
 * one call a line, and keep a loaded/not-loaded flag in a file, as the real ones would.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface FakeTools {
  /** Prepend to PATH. */
  bin: string;
  /** Every call so far, `launchctl bootstrap gui/…` style. */
  calls(): string[];
}

const LAUNCHCTL = `#!/bin/sh
echo "launchctl $*" >> "$FAKE_DIR/calls"
case "$1" in
  print)
    if [ -f "$FAKE_DIR/loaded" ]; then
      printf '%s = {\\n\\tstate = running\\n\\tpid = 4242\\n\\tlast exit code = (never exited)\\n}\\n' "$2"
    else
      echo "Could not find service \\"$2\\" in domain for user" >&2; exit 113
    fi ;;
  bootstrap) touch "$FAKE_DIR/loaded" ;;
  bootout)
    if [ -f "$FAKE_DIR/loaded" ]; then rm "$FAKE_DIR/loaded"; else echo "Boot-out failed: 3: No such process" >&2; exit 3; fi ;;
esac
`;

const SYSTEMCTL = `#!/bin/sh
echo "systemctl $*" >> "$FAKE_DIR/calls"
case "$2" in
  restart) touch "$FAKE_DIR/loaded" ;;
  disable) rm -f "$FAKE_DIR/loaded" ;;
  show)
    if [ -f "$FAKE_DIR/loaded" ]; then
      printf 'LoadState=loaded\\nActiveState=active\\nSubState=running\\nMainPID=4343\\nExecMainCode=0\\nExecMainStatus=0\\n'
    else
      printf 'LoadState=not-found\\nActiveState=inactive\\nSubState=dead\\nMainPID=0\\nExecMainCode=0\\nExecMainStatus=0\\n'
    fi ;;
esac
`;

/** Writes the fakes into `<root>/fake-bin`, their state into `<root>/fake-state`. */
export function writeFakeTools(root: string): FakeTools & { env: Record<string, string> } {
  const bin = join(root, 'fake-bin');
  const state = join(root, 'fake-state');
  mkdirSync(bin);
  mkdirSync(state);
  for (const [name, script] of [
    ['launchctl', LAUNCHCTL],
    ['systemctl', SYSTEMCTL],
  ] as const) {
    writeFileSync(join(bin, name), script);
    chmodSync(join(bin, name), 0o755);
  }
  const file = join(state, 'calls');
  return {
    bin,
    env: { FAKE_DIR: state, PATH: `${bin}:${process.env['PATH'] ?? ''}` },
    calls: () => (existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n') : []),
  };
}
