/**
 * What a run in its own worktree cannot do with the commands it runs unasked, through the
 * real host and its real sandbox: change the repository's git data (the worktree's own
 * record in `.git/worktrees/`, objects, branches, config), rewrite or move the worktree's
 * `.git` file, touch the user's checkout, or leave a process running past its end.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startFaultHost } from '../support/fault-host.js';
import { textTurn, toolCallTurn } from '../support/scripted-model-server.js';
import { until } from '../support/wait.js';

function gitIn(folder: string, ...args: string[]): string {
  return execFileSync('git', ['-C', folder, ...args], { encoding: 'utf8' }).trim();
}

/**
 * Each attempt prints a line only when it succeeds. `$1` is the user's checkout, which the
 * sandbox does not show: a write to it lands, if anywhere, in the sandbox's own emptied
 * `/tmp` or home folder, so only the checkout itself tells.
 */
const ATTEMPTS = `
for f in "$1"/.git/worktrees/*/gitdir; do echo /tmp/elsewhere > "$f" && echo DID write gitdir; done
echo "gitdir: /tmp" > .git && echo DID rewrite .git
mv .git moved && echo DID move .git
rm -f .git && echo DID remove .git
echo x > "$1/.git/objects/planted" && echo DID write objects
echo x > "$1/notes.txt"
git branch planted && echo DID make a branch
git update-ref refs/heads/main HEAD && echo DID move main
git config core.hooksPath /tmp && echo DID write config
setsid sleep 3217 > /dev/null 2>&1 &
nohup sleep 3218 > /dev/null 2>&1 &
echo attempts done
`;

function processesRunning(command: string): number {
  let count = 0;
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const line = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
      if (line === command) count += 1;
    } catch {
      // Gone meanwhile.
    }
  }
  return count;
}

describe.runIf(process.platform === 'linux')(
  "a worktree run's commands",
  { timeout: 120_000 },
  () => {
    it("change neither the repository's git data nor the checkout, and end with the run", async () => {
      await using host = await startFaultHost();
      const repository = host.host.workspace;
      gitIn(repository, 'init', '--quiet', '--initial-branch=main');
      gitIn(repository, 'config', 'user.email', 'user@example.com');
      gitIn(repository, 'config', 'user.name', 'User');
      writeFileSync(join(repository, 'notes.txt'), 'one\n');
      writeFileSync(join(repository, 'attempts.sh'), ATTEMPTS);
      gitIn(repository, 'add', 'notes.txt', 'attempts.sh');
      gitIn(repository, 'commit', '--quiet', '-m', 'first');
      const head = gitIn(repository, 'rev-parse', 'HEAD');
      const config = readFileSync(join(repository, '.git', 'config'), 'utf8');
      const status = gitIn(repository, 'status', '--porcelain');

      host.model.push(
        toolCallTurn([
          {
            id: `call_${randomUUID()}`,
            name: 'run_command',
            arguments: JSON.stringify({ command: `sh attempts.sh ${repository}` }),
          },
        ]),
        textTurn('Done.'),
      );
      const submitted = await host.channel.call('run.submit', {
        commandId: randomUUID(),
        input: { text: 'try' },
        isolation: 'worktree',
      });
      const runId = String(submitted['runId']);
      const sessionId = String(submitted['sessionId']);
      await until('run.result', () =>
        host.events().some((e) => e.type === 'run.result' && e.runId === runId) ? true : undefined,
      );

      const output = host.query(
        (db) =>
          db
            .prepare(
              "SELECT model_content FROM tool_calls WHERE run_id = ? AND name = 'run_command'",
            )
            .get(runId) as { model_content: string },
      ).model_content;
      expect(output).toContain('attempts done');
      expect(output).not.toContain('DID');
      const worktree = join(host.host.dataDir, 'worktrees', sessionId);
      const record = join(repository, '.git', 'worktrees', sessionId);
      expect(readFileSync(join(record, 'gitdir'), 'utf8').trim()).toBe(join(worktree, '.git'));
      expect(readFileSync(join(worktree, '.git'), 'utf8').trim()).toBe(`gitdir: ${record}`);
      expect(existsSync(join(repository, '.git', 'objects', 'planted'))).toBe(false);
      expect(readFileSync(join(repository, 'notes.txt'), 'utf8')).toBe('one\n');
      expect(gitIn(repository, 'status', '--porcelain')).toBe(status);
      expect(gitIn(repository, 'branch', '--list', 'planted')).toBe('');
      expect(gitIn(repository, 'rev-parse', 'main')).toBe(head);
      expect(readFileSync(join(repository, '.git', 'config'), 'utf8')).toBe(config);
      expect(processesRunning('sleep 3217') + processesRunning('sleep 3218')).toBe(0);
    });
  },
);
