import { describe, expect, it } from 'vitest';
import { digest } from '../../protocol/index.js';
import { createModelAdapter } from '../../host/model/index.js';
import { textTurn, toolCallTurn } from '../support/scripted-model-server.js';
import { commandId, startHarness } from './harness.js';

describe('a run that lists, reads and answers', () => {
  it('records the exact event sequence and sends tool results back with their ids', async () => {
    await using harness = await startHarness();
    harness.model.push(
      toolCallTurn([{ id: 'call_list', name: 'list_directory', arguments: '{"path":"."}' }], {
        reasoning: ['Let me ', 'look.'],
      }),
      toolCallTurn([{ id: 'call_read', name: 'read_file', arguments: '{"path":"README.md"}' }]),
      textTurn(['The project ', 'is a demo.'], {
        usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
      }),
    );
    const submitted = harness.runtime.submit(
      { commandId: commandId(), input: { text: 'What is this project?' } },
      'local',
    );
    expect(submitted).toMatchObject({ state: 'queued', deduplicated: false });
    await harness.runtime.whenIdle();

    expect(harness.typesOf(submitted.runId)).toEqual([
      'run.queued',
      'run.started',
      'model.request',
      'message.completed',
      'tool.proposed',
      'tool.started',
      'tool.finished',
      'model.request',
      'message.completed',
      'tool.proposed',
      'tool.started',
      'tool.finished',
      'model.request',
      'message.completed',
      'run.finished',
      'session.idle',
    ]);
    const seqs = harness.events.map((event) => event.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);

    const run = harness.runtime.getRun(submitted.runId);
    expect(run.run.state).toBe('succeeded');
    expect(run.messages.map((message) => message.text)).toEqual(['', '', 'The project is a demo.']);
    expect(run.messages[0]?.reasoning).toBe('Let me look.');
    expect(run.messages[2]?.usage).toMatchObject({ promptTokens: 10, completionTokens: 5 });
    expect(run.toolCalls.map((call) => [call.name, call.state])).toEqual([
      ['list_directory', 'succeeded'],
      ['read_file', 'succeeded'],
    ]);
    expect(run.toolCalls[1]?.inputDigest).toBe(
      digest({ tool: 'read_file', input: { path: 'README.md' }, workspace: harness.workspace }),
    );

    const bodies = harness.model.chatBodies();
    expect(bodies).toHaveLength(3);
    const second = bodies[1]!.messages;
    const toolMessage = second.find((message) => message.role === 'tool');
    expect(toolMessage).toMatchObject({ tool_call_id: 'call_list' });
    expect(String(toolMessage?.['content'])).toContain('README.md');
    const third = bodies[2]!.messages;
    const toolMessages = third.filter((message) => message.role === 'tool');
    expect(toolMessages.map((message) => message['tool_call_id'])).toEqual([
      'call_list',
      'call_read',
    ]);
    expect(String(toolMessages[1]?.['content'])).toContain('A small project.');
    const session = harness.store.runs.getSession(submitted.sessionId);
    expect(session?.activeRunId).toBeNull();
  });

  it('hands an invalid tool input back to the model as a failed call and goes on', async () => {
    await using harness = await startHarness();
    harness.model.push(
      toolCallTurn([{ id: 'bad', name: 'read_file', arguments: '{"path": 3, "extra": true}' }]),
      textTurn('Sorry.'),
    );
    const { runId } = harness.runtime.submit(
      { commandId: commandId(), input: { text: 'go' } },
      'local',
    );
    await harness.runtime.whenIdle();
    const run = harness.runtime.getRun(runId);
    expect(run.run.state).toBe('succeeded');
    expect(run.toolCalls[0]).toMatchObject({ state: 'failed', startedAt: null });
    const toolMessage = harness.model.chatBodies()[1]!.messages.find((m) => m.role === 'tool');
    expect(String(toolMessage?.['content'])).toMatch(/invalid_input.*path/);
  });

  it('fails at once with model_not_configured when no model is set up', async () => {
    await using harness = await startHarness({ withModel: false });
    const { runId } = harness.runtime.submit(
      { commandId: commandId(), input: { text: 'go' } },
      'local',
    );
    await harness.runtime.whenIdle();
    const run = harness.runtime.getRun(runId).run;
    expect(run.state).toBe('failed');
    expect(run.error?.code).toBe('model_not_configured');
    expect(harness.model.requests).toHaveLength(0);
    expect(harness.typesOf(runId).slice(-2)).toEqual(['run.finished', 'session.idle']);
  });

  it('refuses paths that escape the workspace and says why to the model', async () => {
    await using harness = await startHarness();
    harness.model.push(
      toolCallTurn([
        { id: 'c1', name: 'read_file', arguments: '{"path":"../data/tether.db"}' },
        { id: 'c2', name: 'read_file', arguments: '{"path":"/etc/passwd"}' },
      ]),
      textTurn('I cannot.'),
    );
    const { runId } = harness.runtime.submit(
      { commandId: commandId(), input: { text: 'go' } },
      'local',
    );
    await harness.runtime.whenIdle();
    const calls = harness.runtime.getRun(runId).toolCalls;
    expect(calls.map((call) => call.state)).toEqual(['failed', 'failed']);
    const tools = harness.model.chatBodies()[1]!.messages.filter((m) => m.role === 'tool');
    for (const message of tools)
      expect(String(message['content'])).toMatch(/outside the workspace/);
    expect(String(tools[1]?.['content'])).not.toContain('root:');
  });

  it("sends DeepSeek's reasoning back to DeepSeek only, never to another provider", async () => {
    await using harness = await startHarness({ adapter: { provider: 'deepseek' } });
    harness.model.push(
      toolCallTurn([{ id: 'l', name: 'list_directory', arguments: '{}' }], {
        reasoning: ['think'],
      }),
      textTurn('done'),
    );
    const { sessionId } = harness.runtime.submit(
      { commandId: commandId(), input: { text: 'a' } },
      'dev',
    );
    await harness.runtime.whenIdle();
    const assistant = harness.model.chatBodies()[1]!.messages.find((m) => m.role === 'assistant');
    expect(assistant?.['reasoning_content']).toBe('think');

    await harness.restart({
      model: {
        adapter: createModelAdapter({ baseUrl: harness.model.baseUrl, provider: 'openai' }),
        name: 'scripted-model',
        available: ['scripted-model'],
      },
    });
    harness.model.push(textTurn('ok'));
    harness.runtime.submit({ commandId: commandId(), sessionId, input: { text: 'b' } }, 'dev');
    await harness.runtime.whenIdle();
    const replay = harness.model.chatBodies()[2]!.messages.filter((m) => m.role === 'assistant');
    expect(replay).toHaveLength(2);
    for (const message of replay) expect(message).not.toHaveProperty('reasoning_content');
  });
});
