import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { readOnlyTools, type ToolDefinition } from '../../host/tools/index.js';
import { defineTool } from '../../host/tools/testing.js';
import { textTurn, toolCallTurn } from '../support/scripted-model-server.js';
import { commandId, startHarness } from './harness.js';

const FIVE_MB = 5 * 1024 * 1024;

/** Produces 5 MB of numbered lines: the head and tail are recognisable. */
const dumpTool = defineTool({
  name: 'dump',
  description: 'prints a lot',
  input: z.strictObject({}),
  access: () => ({ kind: 'read' as const, path: '.' }),
  execute: () => {
    const lines: string[] = [];
    let size = 0;
    for (let i = 0; size < FIVE_MB; i++) {
      const line = `line ${String(i).padStart(7, '0')} ${'x'.repeat(48)}\n`;
      lines.push(line);
      size += line.length;
    }
    const content = lines.join('');
    return Promise.resolve({ status: 'succeeded' as const, summary: 'dumped', content });
  },
}) as ToolDefinition<unknown>;

describe('context bounds', () => {
  it('gives the model a 5 MB tool result capped head+tail, the full output readable from its file', async () => {
    await using harness = await startHarness({ runtime: { tools: [...readOnlyTools, dumpTool] } });
    harness.model.push(toolCallTurn([{ id: 'd', name: 'dump', arguments: '{}' }]), textTurn('ok'));
    const { runId } = harness.runtime.submit(
      { commandId: commandId(), input: { text: 'x' } },
      'dev',
    );
    await harness.runtime.whenIdle();

    const call = harness.runtime.getRun(runId).toolCalls[0]!;
    const sent = harness.model.chatBodies()[1]!.messages.find((m) => m.role === 'tool');
    const content = String(sent?.['content']);
    expect(content.length).toBeLessThanOrEqual(harness.runtime.limits.toolResultMaxChars);
    expect(content.startsWith('line 0000000')).toBe(true);
    expect(content).toContain(`output ${call.id}`);
    expect(content).toMatch(/\d+ bytes\) in all/);
    expect(content.trimEnd().endsWith('x'.repeat(10))).toBe(true);

    let offset = 0;
    let total = '';
    for (;;) {
      const page = harness.runtime.readOutput({ toolCallId: call.id, offset, limit: 262_144 });
      total += page.text;
      expect(page.totalBytes).toBeGreaterThanOrEqual(FIVE_MB);
      if (page.eof) break;
      offset = page.nextOffset;
    }
    expect(total.length).toBeGreaterThanOrEqual(FIVE_MB);
    expect(total.split('\n').at(-2)).toMatch(/^line \d{7} x+$/);
    const finished = harness.events.find(
      (e) => e.type === 'tool.finished' && e.toolCallId === call.id,
    );
    expect(finished?.payload).toMatchObject({ status: 'succeeded', bytes: total.length });
  });

  it('pages a multi-byte output without splitting a character', async () => {
    const emoji = defineTool({
      name: 'emoji',
      description: 'prints emoji',
      input: z.strictObject({}),
      access: () => ({ kind: 'read' as const, path: '.' }),
      execute: () =>
        Promise.resolve({
          status: 'succeeded' as const,
          summary: 'e',
          content: '😀é'.repeat(1000),
        }),
    }) as ToolDefinition<unknown>;
    await using harness = await startHarness({ runtime: { tools: [emoji] } });
    harness.model.push(toolCallTurn([{ id: 'e', name: 'emoji', arguments: '{}' }]), textTurn('ok'));
    const { runId } = harness.runtime.submit(
      { commandId: commandId(), input: { text: 'x' } },
      'dev',
    );
    await harness.runtime.whenIdle();
    const id = harness.runtime.getRun(runId).toolCalls[0]!.id;
    let offset = 0;
    let text = '';
    for (
      let page;
      !(page = harness.runtime.readOutput({ toolCallId: id, offset, limit: 333 })).eof;
    ) {
      text += page.text;
      offset = page.nextOffset;
      expect(page.text).not.toContain('\uFFFD');
    }
    text += harness.runtime.readOutput({ toolCallId: id, offset, limit: 333 }).text;
    expect(text).toBe('😀é'.repeat(1000));
  });
});
