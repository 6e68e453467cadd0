/**
 * An ACP agent written for the tests with the official SDK's agent side, run by the host
 * as a real child process (inside its sandbox). What it does in a turn is named by the
 * task's first word, `script:<name>`:
 * - `text`: two message chunks, a plan and a usage update, then `end_turn`;
 * - `permission`: a tool call that asks (`request_permission`, allow once / allow always /
 *   reject once); allowed once, it writes `marker.txt` in its folder and says it did;
 *   rejected, it does not. It leaves a `sleep` child in its group meanwhile;
 * - `fs-protected`: asks the host to write `.env` through `fs/write_text_file`, and says
 *   how that ended;
 * - `outside`: writes $AGENT_OUTSIDE itself (outside the workspace), and says how that ended;
 * - `cancel`: a chunk, then waits for `session/cancel` and answers `cancelled`;
 * - `crash`: a tool call in progress, a line on stderr with $AGENT_TOKEN, then exits 7;
 * - `fs-fifo`: makes a FIFO in its folder and asks the host to write it, then to write
 *   /dev/zero, through `fs/write_text_file`, and says how each ended.
 * - `flood-text`: 1,100,000 characters of message text in 100,000-character chunks;
 * - `many-calls`: 1,001 tool calls, pending; `big-raw`: one tool call whose raw input
 *   is 300,000 characters; `big-plan`: a plan of 201 entries;
 * - `many-permissions`: nine permission requests at once, each answer logged;
 * - `bidi-title`: a permission request whose title has bidi and control characters and
 *   whose kind is not one of ACP's.
 * - `git`: reads its branch with git in its folder (a worktree), then tries to write a
 *   file into the repository's git folder, and says how each ended.
 * - `terminal`: through the host's terminals (run_command calls, each asked on a card):
 *   one that exits 3, its exit and output; one that runs until killed, its output's end
 *   within 2 bytes; one the user denies; each result logged;
 * - `terminal-orphan`: starts a terminal and ends its turn without waiting for it;
 * - `terminal-flood`: twenty terminals at once, none released, then one whose variable's
 *   name is an option of env's; logs what each create answered;
 * - `login`: a line on stderr, then answers the prompt with ACP's "Authentication
 *   required" error, as an adapter without credentials does.
 * After a bound is passed, the scripts go on sending until the host cancels them.
 * Every request it gets is appended to $ACP_LOG (one JSON line each).
 */
import { execFileSync, spawn } from 'node:child_process';
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout } from 'node:timers';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';

const logFile = process.env['ACP_LOG'];

function log(entry) {
  if (logFile) appendFileSync(logFile, `${JSON.stringify({ pid: process.pid, ...entry })}\n`);
}

let cwd = process.cwd();
const cancelled = new Map();

function update(client, sessionId, value) {
  return client.notify(acp.methods.client.session.update, { sessionId, update: value });
}

function say(client, sessionId, text) {
  return update(client, sessionId, {
    sessionUpdate: 'agent_message_chunk',
    content: { type: 'text', text },
  });
}

const scripts = {
  async text(client, sessionId) {
    await say(client, sessionId, 'Hello ');
    await update(client, sessionId, {
      sessionUpdate: 'plan',
      entries: [{ content: 'Say hello', priority: 'high', status: 'completed' }],
    });
    await update(client, sessionId, { sessionUpdate: 'usage_update', used: 1200, size: 200000 });
    await say(client, sessionId, 'from the agent.');
    return 'end_turn';
  },

  async permission(client, sessionId) {
    const sleeper = spawn('sleep', ['300'], { stdio: 'ignore' });
    log({ method: 'sleeper', sleeperPid: sleeper.pid });
    await say(client, sessionId, 'I will write the marker.');
    const target = join(cwd, 'marker.txt');
    const toolCall = {
      toolCallId: 'call-1',
      title: 'Write marker.txt',
      kind: 'edit',
      status: 'pending',
      locations: [{ path: target }],
      rawInput: { path: target, content: 'marked\n' },
    };
    await update(client, sessionId, { sessionUpdate: 'tool_call', ...toolCall });
    const answer = await client.request(acp.methods.client.session.requestPermission, {
      sessionId,
      toolCall: {
        toolCallId: 'call-1',
        title: toolCall.title,
        kind: 'edit',
        locations: toolCall.locations,
        rawInput: toolCall.rawInput,
      },
      options: [
        { optionId: 'once', name: 'Allow once', kind: 'allow_once' },
        { optionId: 'always', name: 'Allow always', kind: 'allow_always' },
        { optionId: 'no', name: 'Reject', kind: 'reject_once' },
      ],
    });
    log({ method: 'permission-answer', answer });
    const allowed = answer.outcome.outcome === 'selected' && answer.outcome.optionId === 'once';
    if (allowed) {
      await update(client, sessionId, {
        sessionUpdate: 'tool_call_update',
        toolCallId: 'call-1',
        status: 'in_progress',
      });
      writeFileSync(target, 'marked\n');
      await update(client, sessionId, {
        sessionUpdate: 'tool_call_update',
        toolCallId: 'call-1',
        status: 'completed',
        content: [{ type: 'content', content: { type: 'text', text: 'wrote marker.txt' } }],
      });
      await say(client, sessionId, 'Marker written.');
    } else {
      await say(client, sessionId, `Not allowed: ${JSON.stringify(answer.outcome)}.`);
    }
    sleeper.kill();
    return answer.outcome.outcome === 'cancelled' ? 'cancelled' : 'end_turn';
  },

  async 'fs-protected'(client, sessionId) {
    try {
      await client.request(acp.methods.client.fs.writeTextFile, {
        sessionId,
        path: join(cwd, '.env'),
        content: 'SECRET=1\n',
      });
      await say(client, sessionId, 'fs write: done');
    } catch (error) {
      await say(client, sessionId, `fs write refused: ${error.message}`);
    }
    return 'end_turn';
  },

  async terminal(client, sessionId) {
    const { terminal } = acp.methods.client;
    // One that exits by itself: its exit code and its whole output.
    const first = await client.request(terminal.create, {
      sessionId,
      command: 'sh',
      args: ['-c', 'echo out; echo é >&2; exit 3'],
      cwd,
    });
    const exited = await client.request(terminal.waitForExit, { sessionId, ...first });
    const output = await client.request(terminal.output, { sessionId, ...first });
    log({ method: 'terminal-exited', exited, output });
    await client.request(terminal.release, { sessionId, ...first });
    // One that runs until killed; its output's end within 2 bytes, cut at a character.
    const second = await client.request(terminal.create, {
      sessionId,
      command: 'sh',
      args: ['-c', 'printf éa; sleep 30'],
      outputByteLimit: 2,
    });
    let running = await client.request(terminal.output, { sessionId, ...second });
    for (let tries = 0; running.output === '' && tries < 200; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      running = await client.request(terminal.output, { sessionId, ...second });
    }
    await client.request(terminal.kill, { sessionId, ...second });
    const killed = await client.request(terminal.waitForExit, { sessionId, ...second });
    log({ method: 'terminal-killed', running, killed });
    await client.request(terminal.release, { sessionId, ...second });
    // One the user denies: terminal/create fails, and nothing ran.
    try {
      await client.request(terminal.create, { sessionId, command: 'touch denied.txt' });
      log({ method: 'terminal-denied', error: null });
    } catch (error) {
      log({ method: 'terminal-denied', error: error.message });
    }
    await say(client, sessionId, 'Terminals done.');
    return 'end_turn';
  },

  async 'terminal-orphan'(client, sessionId) {
    // Started and not waited for: the turn ends at once, as an agent that forgets it.
    client
      .request(acp.methods.client.terminal.create, {
        sessionId,
        command: 'sh',
        args: ['-c', 'sleep 1; echo late > late.txt; sleep 30'],
      })
      .then(
        (created) => log({ method: 'terminal-orphan', created }),
        (error) => log({ method: 'terminal-orphan', error: error.message }),
      );
    await new Promise((resolve) => setTimeout(resolve, 50));
    return 'end_turn';
  },

  async 'terminal-flood'(client, sessionId) {
    // Twenty at once, none released, and a name that is an option of env's.
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        client.request(acp.methods.client.terminal.create, { sessionId, command: 'sleep 30' }).then(
          () => 'created',
          (error) => error.message,
        ),
      ),
    );
    const option = await client
      .request(acp.methods.client.terminal.create, {
        sessionId,
        command: 'true',
        env: [{ name: '--split-string', value: 'touch split.txt' }],
      })
      .then(
        () => 'created',
        (error) => error.message,
      );
    log({ method: 'terminal-flood', answers, option });
    return 'end_turn';
  },

  async 'fs-fifo'(client, sessionId) {
    const fifo = join(cwd, 'pipe');
    execFileSync('mkfifo', [fifo]);
    for (const path of [fifo, '/dev/zero']) {
      try {
        await client.request(acp.methods.client.fs.writeTextFile, {
          sessionId,
          path,
          content: 'x\n',
        });
        await say(client, sessionId, `fs write ${path}: done. `);
      } catch (error) {
        await say(client, sessionId, `fs write ${path} refused: ${error.message}. `);
      }
    }
    return 'end_turn';
  },

  async outside(client, sessionId) {
    const target = process.env['AGENT_OUTSIDE'];
    try {
      writeFileSync(target, 'escaped\n');
      await say(client, sessionId, 'outside write: done');
    } catch (error) {
      await say(client, sessionId, `outside write failed: ${error.code}`);
    }
    try {
      writeFileSync(join(cwd, 'inside.txt'), 'inside\n');
      await say(client, sessionId, ' inside write: done');
    } catch (error) {
      await say(client, sessionId, ` inside write failed: ${error.code}`);
    }
    return 'end_turn';
  },

  async cancel(client, sessionId) {
    await say(client, sessionId, 'Working for a long time…');
    await new Promise((resolve) => cancelled.set(sessionId, resolve));
    return 'cancelled';
  },

  async 'flood-text'(client, sessionId) {
    for (let i = 0; i < 11; i += 1) await say(client, sessionId, String(i % 10).repeat(100_000));
    return 'end_turn';
  },

  async 'many-calls'(client, sessionId) {
    for (let i = 0; i < 1_001; i += 1) {
      await update(client, sessionId, {
        sessionUpdate: 'tool_call',
        toolCallId: `many-${i}`,
        title: `Step ${i}`,
        kind: 'read',
        status: 'pending',
      });
    }
    return 'end_turn';
  },

  async 'big-raw'(client, sessionId) {
    await update(client, sessionId, {
      sessionUpdate: 'tool_call',
      toolCallId: 'big',
      title: 'A big call',
      kind: 'edit',
      status: 'in_progress',
      rawInput: { content: 'r'.repeat(300_000) },
    });
    await say(client, sessionId, 'after the big call');
    return 'end_turn';
  },

  async 'big-plan'(client, sessionId) {
    const entries = Array.from({ length: 201 }, (_, i) => ({
      content: `Step ${i}`,
      priority: 'low',
      status: 'pending',
    }));
    await update(client, sessionId, { sessionUpdate: 'plan', entries });
    await say(client, sessionId, 'after the big plan');
    return 'end_turn';
  },

  async 'many-permissions'(client, sessionId) {
    const ask = async (i) => {
      const answer = await client.request(acp.methods.client.session.requestPermission, {
        sessionId,
        toolCall: { toolCallId: `ask-${i}`, title: `Ask ${i}`, kind: 'edit', rawInput: { i } },
        options: [
          { optionId: 'once', name: 'Allow once', kind: 'allow_once' },
          { optionId: 'no', name: 'Reject', kind: 'reject_once' },
        ],
      });
      log({ method: 'permission-answer', params: { i }, answer });
    };
    await Promise.all(Array.from({ length: 9 }, (_, i) => ask(i)));
    return 'cancelled';
  },

  async 'bidi-title'(client, sessionId) {
    const answer = await client.request(acp.methods.client.session.requestPermission, {
      sessionId,
      toolCall: {
        toolCallId: 'bidi',
        title: 'Read notes\u202Etxt.exe\u0007\u200B',
        kind: 'edit\u202Ex',
        rawInput: { path: 'notes\u202Etxt' },
      },
      options: [
        { optionId: 'once', name: 'Allow once', kind: 'allow_once' },
        { optionId: 'no', name: 'Reject', kind: 'reject_once' },
      ],
    });
    log({ method: 'permission-answer', answer });
    return 'end_turn';
  },

  async git(client, sessionId) {
    try {
      const branch = execFileSync('git', ['rev-parse', '--abbrev-ref', 'HEAD'], { cwd });
      await say(client, sessionId, `git branch: ${String(branch).trim()}. `);
    } catch (error) {
      await say(client, sessionId, `git failed: ${String(error.stderr ?? error.message)}. `);
    }
    try {
      const common = String(
        execFileSync('git', ['rev-parse', '--path-format=absolute', '--git-common-dir'], { cwd }),
      ).trim();
      writeFileSync(join(common, 'planted'), 'x\n');
      await say(client, sessionId, 'git folder write: done');
    } catch (error) {
      await say(client, sessionId, `git folder write failed: ${error.code ?? 'git'}`);
    }
    return 'end_turn';
  },

  async crash(client, sessionId) {
    await update(client, sessionId, {
      sessionUpdate: 'tool_call',
      toolCallId: 'call-crash',
      title: 'Run the build',
      kind: 'execute',
      status: 'in_progress',
      rawInput: { command: 'make' },
    });
    process.stderr.write(`agent: about to fail, token=${process.env['AGENT_TOKEN']}\n`);
    // The token across the 500th character of a line: never shown in part.
    process.stderr.write(`${'x'.repeat(490)}${process.env['AGENT_TOKEN']} and more\n`);
    process.stderr.write('agent: boom\n');
    setTimeout(() => process.exit(7), 50);
    await new Promise(() => undefined);
  },
};

const stream = acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin));
acp
  .agent({ name: 'scripted-acp-agent' })
  .onRequest(acp.methods.agent.initialize, ({ params }) => {
    log({ method: 'initialize', params });
    return {
      protocolVersion: acp.PROTOCOL_VERSION,
      agentCapabilities: { loadSession: true, promptCapabilities: { image: true } },
      authMethods: [
        { id: 'scripted-login', name: 'Log in with Scripted', description: 'Run `scripted login`' },
      ],
    };
  })
  .onRequest(acp.methods.agent.session.new, ({ params }) => {
    cwd = params.cwd;
    const sessionId = `s-${process.pid}-${Date.now()}`;
    log({ method: 'session/new', params, sessionId });
    return { sessionId };
  })
  .onRequest(acp.methods.agent.session.load, async ({ params, client }) => {
    cwd = params.cwd;
    log({ method: 'session/load', params });
    // The history replayed, as the protocol says: not the run's new text.
    await client.notify(acp.methods.client.session.update, {
      sessionId: params.sessionId,
      update: {
        sessionUpdate: 'agent_message_chunk',
        content: { type: 'text', text: 'OLD HISTORY' },
      },
    });
    return {};
  })
  .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
    const text = params.prompt
      .map((block) => (block.type === 'text' ? block.text : `[${block.type}]`))
      .join(' ');
    log({ method: 'session/prompt', params: { sessionId: params.sessionId, text } });
    const match = /script:([a-z-]+)/.exec(text);
    if (match?.[1] === 'login') {
      process.stderr.write('[session/query] resume=none\n');
      throw acp.RequestError.authRequired();
    }
    const script = scripts[match?.[1] ?? 'text'] ?? scripts.text;
    const stopReason = await script(client, params.sessionId);
    log({ method: 'stop', stopReason });
    return { stopReason };
  })
  .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
    log({ method: 'session/cancel', params });
    cancelled.get(params.sessionId)?.();
  })
  .connect(stream);
