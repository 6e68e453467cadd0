/**
 * No child process after the run was stopped (issue 7, "no new side effect after a failed
 * commit"): when the host stops a run (a cancel, or the store closing its gate after a
 * failed commit) while `run_command` is still opening its output file, the command must not
 * be spawned at all. The abort is made to land exactly in that window: after the tool's
 * first look at the signal, while it prepares the output file.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseToolInput } from '../../host/tools/index.js';
import { createRunCommandTool } from '../../host/tools/testing.js';
import type { ToolContext } from '../../host/tools/index.js';
import type { ToolOutputSink } from '../../host/tools/testing.js';
import { tempDir } from '../support/temp-dir.js';
import { machineSandbox } from '../support/sandbox.js';

describe('run_command stopped while it prepares', () => {
  it('spawns nothing when the signal aborts while the output file is being opened', async () => {
    await using temp = tempDir('tether-abort-spawn-');
    const root = temp.path;
    const controller = new AbortController();
    const sink: ToolOutputSink = {
      path: join(root, 'call.out'),
      capBytes: 1024 * 1024,
      onChunk: () => undefined,
    };
    const groups: number[] = [];
    const ctx: ToolContext = {
      workspace: root,
      signal: controller.signal,
      // The tool reads its sink right after it last looked at the signal: the store's
      // gate closes (and every executing run is stopped) at that moment.
      get output() {
        controller.abort();
        return sink;
      },
      onProcessGroup: (pgid) => groups.push(pgid),
    };
    const tool = createRunCommandTool({ sandbox: machineSandbox(), graceMs: 100 });
    const input = parseToolInput(tool, JSON.stringify({ command: 'touch spawned-marker' }));
    if (!input.ok) throw new Error('the input should parse');
    const result = await tool.execute(input.input, ctx);
    expect(controller.signal.aborted).toBe(true);
    expect(groups).toEqual([]);
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('cancelled');
    // Give a (wrongly) spawned shell time to act before looking for its trace.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(existsSync(join(root, 'spawned-marker'))).toBe(false);
  });
});
