/**
 * Security review: find_files and search_files match the model's glob on the host's event
 * loop, unasked. Each `*` of a name is a loop over its characters, so a glob of eleven
 * (`*a*a*a*a*a*a*a*a*a*a*a*b`) took 80 s on one 40-character name, with the host
 * answering nothing: a glob holds at most 3 in one name.
 */
import { describe, expect, it } from 'vitest';
import { parseToolInput, type ToolDefinition } from '../../host/tools/index.js';
import { createFindFilesTool, createSearchFilesTool } from '../../host/tools/testing.js';
import { searchOptions } from './search-tree.js';

const tools = [
  createFindFilesTool(searchOptions()),
  createSearchFilesTool(searchOptions()),
] as ToolDefinition<unknown>[];

/** The tool's input with `glob`: search_files needs a pattern too. */
function inputOf(tool: (typeof tools)[number], glob: string): string {
  return JSON.stringify(tool.name === 'search_files' ? { pattern: 'x', glob } : { glob });
}

describe('a glob that would backtrack on the host', () => {
  it.each(tools)('is refused by $name, saying why', (tool) => {
    const parsed = parseToolInput(tool, inputOf(tool, `src/${'*a'.repeat(11)}*b`));
    expect(parsed).toMatchObject({ ok: false });
    expect(!parsed.ok && parsed.message).toContain('at most 3 * in one name');
  });

  it.each(tools)('while $name takes globstars and up to 3 * a name', (tool) => {
    for (const glob of ['**/*.{ts,tsx}', 'src/**/**/*a*b*', '*.test.*']) {
      expect(parseToolInput(tool, inputOf(tool, glob)), glob).toMatchObject({ ok: true });
    }
  });
});
