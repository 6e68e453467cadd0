/**
 * `tether remote …` as child processes against the real host process and the scripted
 * model: pairing with a 0600 state file, submit --wait, runs --json, watch following a
 * tool call to session.idle, cancel, the approval error path, and strict flags.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Run } from '../../protocol/index.js';
import type { HostProcess } from '../support/host-process.js';
import { startModelHost, type ModelHost } from '../support/model-host.js';
import {
  errorReply,
  textTurn,
  toolCallTurn,
  type ScriptedModelServer,
} from '../support/scripted-model-server.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';
import { runTether, startTether } from './run-cli.js';

let served: ModelHost;
let host: HostProcess;
let model: ScriptedModelServer;
let homeDir: TempDir;
let home: string;
let state: string;
/** The run `submit --wait` finished. */
let answered: Run;

const RunsJson = z.strictObject({ runs: z.array(Run) });

/** `tether remote <command> --state <the paired state file> <args>`. */
const remote = (command: string, ...args: string[]) =>
  runTether(['remote', command, '--state', state, ...args], home);

/** The runId `submit` printed. */
function submittedRunId(stdout: string): string {
  const match = /^run (run_\S+) (queued|running) \(session ses_\S+\)$/m.exec(stdout);
  if (match === null) throw new Error(`no run id in:\n${stdout}`);
  return match[1]!;
}

async function runsJson(): Promise<Run[]> {
  const result = await remote('runs', '--json');
  expect(result.code).toBe(0);
  return RunsJson.parse(JSON.parse(result.stdout)).runs;
}

beforeAll(async () => {
  served = await startModelHost();
  ({ model, host } = served);
  homeDir = tempDir('tether-remote-cli-', { realpath: false });
  home = homeDir.path;
  state = join(home, 'state', 'remote.json');
});

afterAll(async () => {
  await served?.dispose();
  homeDir.remove();
});

describe('tether remote', () => {
  it('pairs from a link, keeps its state in a 0600 file, and lists the host', async () => {
    const link = await host.pairLink();
    const paired = await remote('pair', link, '--name', 'CLI test');
    expect(paired.code).toBe(0);
    expect(paired.stdout).toMatch(/^Paired with \S+ \(host [\w-]{22}\) as CLI test\.$/m);
    expect(paired.stdout).toMatch(/^Check that the host shows the same code: \d{3} \d{3}$/m);
    expect(statSync(state).mode & 0o777).toBe(0o600);

    const hosts = await remote('hosts');
    expect(hosts.code).toBe(0);
    expect(hosts.stdout).toMatch(/^HOST ID +NAME +ORIGIN +THIS DEVICE$/m);
    expect(hosts.stdout).toContain(host.url);
  });

  it('submit --wait follows the run and prints its final state and answer', async () => {
    model.push(textTurn(['The answer ', 'is 42.']));
    const result = await remote('submit', 'What is the answer?', '--wait');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const runId = submittedRunId(result.stdout);
    // Streamed as watch shows it, then the final state.
    expect(result.stdout).toContain('» The answer is 42.\n');
    expect(result.stdout.endsWith(`run ${runId} succeeded\n`)).toBe(true);
    expect(result.stdout.indexOf('» The answer')).toBeLessThan(
      result.stdout.indexOf(`run ${runId} succeeded`),
    );
    expect(model.chatBodies().at(-1)?.messages.at(-1)).toMatchObject({
      role: 'user',
      content: 'What is the answer?',
    });

    const [runs, table] = await Promise.all([runsJson(), remote('runs')]);
    answered = runs.find((run) => run.id === runId)!;
    expect(answered).toMatchObject({ state: 'succeeded', input: { text: 'What is the answer?' } });
    expect(table.stdout).toMatch(new RegExp(`^${runId} +succeeded .*What is the answer\\?$`, 'm'));
  });

  it('runs --query finds a run by its answer; changes says what it changed', async () => {
    const found = await remote('runs', '--query', 'ANSWER IS 42');
    expect(found.code).toBe(0);
    expect(found.stdout).toMatch(new RegExp(`^${answered.id} +succeeded `, 'm'));
    expect(found.stdout.trimEnd().split('\n')).toHaveLength(2);
    const none = await remote('runs', '--query', 'no such words');
    expect(none.stdout).toBe('No runs match "no such words".\n');
    const changes = await remote('changes', answered.id);
    expect(changes.stderr).toBe('');
    expect(changes.stdout).toBe(
      'No files written.\n\nNo commands run.\n\nusage: not reported by the model provider\n',
    );
  });

  it('submit --wait exits 1 when the run fails', async () => {
    model.push(errorReply(401, 'invalid api key'));
    const result = await remote(
      'submit',
      'No answer for this one',
      '--wait',
      '--model',
      'scripted-model',
    );
    expect(result.code).toBe(1);
    const runId = submittedRunId(result.stdout);
    expect(result.stdout).toMatch(new RegExp(`^run ${runId} failed \\(auth: .+\\)$`, 'm'));
  });

  it('watch <runId> shows the tool call and the final state, and ends at session.idle', async () => {
    // The model answers once the watch has shown the run: it follows a live run however
    // slowly the watch starts.
    let release = (): void => undefined;
    const heldUntil = new Promise<void>((resolve) => (release = resolve));
    model.push(
      toolCallTurn([{ id: 'call_1', name: 'list_directory', arguments: '{"path":"."}' }], {
        heldUntil,
      }),
      textTurn(['The workspace ', 'holds README.md.'], { delayMs: 100 }),
    );
    const submitted = await remote('submit', 'What is in the workspace?');
    expect(submitted.code).toBe(0);
    const runId = submittedRunId(submitted.stdout);

    const watching = startTether(['remote', 'watch', runId, '--state', state], home);
    await watching.waitFor(/^running: What is in the workspace\?$/m);
    release();
    const watched = await watching.exit;
    expect(watched.code).toBe(0);
    const lines = watched.stdout.trimEnd().split('\n');
    const tool = lines.findIndex((line) => /^tool list_directory\b.*: succeeded/.test(line));
    expect(tool).toBeGreaterThanOrEqual(0);
    expect(watched.stdout).toContain('» The workspace holds README.md.\n');
    expect(lines.at(-1)).toBe('succeeded');
    expect(lines.findIndex((line) => line.includes('holds README.md'))).toBeGreaterThan(tool);
  });

  it('watch <runId> of a finished run keeps the order: the message, its tool call, the answer', async () => {
    model.push(
      {
        kind: 'stream',
        items: [
          { delta: { role: 'assistant', content: 'Let me look.' } },
          {
            delta: {
              tool_calls: [
                {
                  index: 0,
                  id: 'call_order',
                  type: 'function',
                  function: { name: 'list_directory', arguments: '{"path":"."}' },
                },
              ],
            },
          },
        ],
        finishReason: 'tool_calls',
      },
      textTurn('It holds README.md.'),
    );
    const submitted = await remote('submit', 'Look around', '--wait');
    expect(submitted.code).toBe(0);
    const runId = submittedRunId(submitted.stdout);
    const watched = await remote('watch', runId);
    expect(watched.code).toBe(0);
    const lines = watched.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('succeeded: Look around');
    expect(lines.slice(1)).toEqual([
      '» Let me look.',
      expect.stringMatching(/^tool list_directory .*: succeeded$/),
      '» It holds README.md.',
    ]);
  });

  it('watch <runId> of a finished run prints it and ends at once', async () => {
    const watched = await remote('watch', answered.id);
    expect(watched.code).toBe(0);
    expect(watched.stdout).toBe('succeeded: What is the answer?\n» The answer is 42.\n');
  });

  it('watch without a runId follows every run, each line led by its id, until Ctrl-C', async () => {
    const watching = startTether(['remote', 'watch', '--state', state], home);
    await watching.waitFor(/^watching .+: 0 active run\(s\)$/m);
    model.push(textTurn(['Hello ', 'there.'], { delayMs: 50 }));
    const runId = submittedRunId((await remote('submit', 'Say hello')).stdout);
    await watching.waitFor(new RegExp(`^${runId} {2}succeeded$`, 'm'));
    watching.signal('SIGINT');
    const result = await watching.exit;
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\n');
    const queued = lines.indexOf(`${runId}  queued: Say hello`);
    expect(queued).toBeGreaterThan(0);
    expect(lines.indexOf(`${runId}  » Hello there.`)).toBeGreaterThan(queued);
  });

  it('cancel stops a running run', async () => {
    model.push(textTurn(['Thinking', ' hard', ' forever'], { stallAfter: 2 }));
    const submitted = await remote('submit', 'Take your time');
    const runId = submittedRunId(submitted.stdout);
    const cancelled = await remote('cancel', runId);
    expect(cancelled.code).toBe(0);
    expect(cancelled.stdout).toMatch(new RegExp(`^run ${runId} (cancelling|cancelled)\\n$`));
    const watched = await remote('watch', runId);
    expect(watched.code).toBe(0);
    expect(watched.stdout.trimEnd().split('\n').at(-1)).toMatch(/^cancelled/);

    const again = await remote('cancel', runId);
    expect(again).toMatchObject({ code: 0, stdout: `run ${runId} cancelled\n` });
  });

  it('approve and deny refuse an approval the host does not have', async () => {
    const results = await Promise.all([remote('approve', 'apr_nope'), remote('deny', 'apr_nope')]);
    for (const result of results) {
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(
        /^tether remote \w+: no pending approval apr_nope on .* \[not_found\]\n$/,
      );
    }
  });

  it('fails clearly for an unknown run', async () => {
    const result = await remote('watch', 'run_nope');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('[not_found]');
  });

  it('says how to pair when no host is paired', async () => {
    const result = await runTether(['remote', 'runs'], home, {
      TETHER_REMOTE_STATE: join(home, 'empty.json'),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'not paired with any host: pair with tether remote pair <link>',
    );
  });

  it.concurrent.for([
    [
      ['submit', 'task', '--bogus'],
      'tether remote submit: unknown option --bogus',
      'Usage: tether remote submit',
    ],
    [['submit'], 'tether remote submit: missing "<task>"', 'Usage: tether remote submit'],
    [
      ['runs', 'extra'],
      'tether remote runs: unexpected argument extra',
      'Usage: tether remote runs',
    ],
    [
      ['watch', 'run_a', 'run_b'],
      'tether remote watch: unexpected argument run_b',
      'Usage: tether remote watch',
    ],
    [['pair'], 'tether remote pair: missing <link>', 'Usage: tether remote pair'],
    [
      ['deny', 'apr_1', '--note'],
      "tether remote deny: Option '--note <value>' argument missing",
      'Usage: tether remote deny',
    ],
    [['frobnicate'], 'tether remote: unknown command frobnicate', 'Usage: tether remote <command>'],
  ] as const)('%j exits 2 with the usage', async ([args, message, usage], { expect }) => {
    const [command, ...rest] = args;
    const result = await remote(command, ...rest);
    expect(result.code).toBe(2);
    expect(result.stderr.startsWith(message)).toBe(true);
    expect(result.stderr).toContain(usage);
  });
});
