import { describe, expect, it } from 'vitest';
import { parseToolInput, readOnlyTools } from '../../host/tools/index.js';
import { createSearchTools } from '../../host/tools/testing.js';
import { readFileTool } from '../../host/tools/testing.js';
import { getTool, listDirectoryTool } from '../../host/tools/testing.js';

describe('parseToolInput', () => {
  it('returns the validated input', () => {
    expect(parseToolInput(readFileTool, '{"path":"src/a.ts","offset":10,"limit":5}')).toEqual({
      ok: true,
      input: { path: 'src/a.ts', offset: 10, limit: 5 },
    });
    expect(parseToolInput(listDirectoryTool, '{"path":"."}')).toEqual({
      ok: true,
      input: { path: '.' },
    });
  });

  it('rejects unknown keys', () => {
    expect(parseToolInput(readFileTool, '{"path":"a","encoding":"latin1"}')).toEqual({
      ok: false,
      message: 'invalid input for read_file: (root): Unrecognized key: "encoding"',
    });
  });

  it('lists every issue with its field', () => {
    expect(parseToolInput(readFileTool, '{"path":7,"offset":0,"limit":1.5}')).toEqual({
      ok: false,
      message:
        'invalid input for read_file: path: Invalid input: expected string, received number; ' +
        'offset: Too small: expected number to be >=1; limit: Invalid input: expected int, received number',
    });
  });

  it('rejects a depth above 3', () => {
    expect(parseToolInput(listDirectoryTool, '{"path":".","depth":4}')).toEqual({
      ok: false,
      message: 'invalid input for list_directory: depth: Too big: expected number to be <=3',
    });
  });

  it('rejects text that is not JSON, or JSON that is not an object', () => {
    const notJson = parseToolInput(readFileTool, '{"path": "a"');
    expect(notJson.ok).toBe(false);
    expect(!notJson.ok && notJson.message).toMatch(
      /^invalid input for read_file: not valid JSON \(/,
    );
    expect(parseToolInput(readFileTool, '["a"]')).toEqual({
      ok: false,
      message:
        'invalid input for read_file: (root): Invalid input: expected object, received array',
    });
  });

  it('treats empty argument text as an empty object, so the missing field is named', () => {
    expect(parseToolInput(readFileTool, '  ')).toEqual({
      ok: false,
      message:
        'invalid input for read_file: path: Invalid input: expected string, received undefined',
    });
  });
});

describe('tool JSON schemas for the model', () => {
  it('describes read_file as an object with path required', () => {
    expect(readFileTool.parameters).toMatchObject({
      type: 'object',
      properties: {
        path: { type: 'string', minLength: 1 },
        offset: { type: 'integer', minimum: 1 },
        limit: { type: 'integer', minimum: 1 },
      },
      required: ['path'],
      additionalProperties: false,
    });
    expect(readFileTool.parameters).not.toHaveProperty('$schema');
  });

  it('describes list_directory with depth between 1 and 3', () => {
    expect(listDirectoryTool.parameters).toMatchObject({
      type: 'object',
      properties: {
        path: { type: 'string' },
        depth: { type: 'integer', minimum: 1, maximum: 3 },
      },
      required: ['path'],
      additionalProperties: false,
    });
  });

  it('gives every field a description', () => {
    for (const tool of readOnlyTools) {
      const properties = Object.values(tool.parameters.properties as object) as object[];
      for (const property of properties) expect(property).toHaveProperty('description');
    }
  });
});

describe('the search tools', () => {
  it('show the model their fields, each described, and require only glob or pattern', () => {
    const tools = createSearchTools({ protectedPaths: () => Promise.resolve(() => false) });
    expect(
      tools.map((tool) => [
        tool.name,
        tool.access({ glob: '*', pattern: 'x' }),
        Object.keys(tool.parameters.properties as object),
        tool.parameters.required,
      ]),
    ).toEqual([
      ['find_files', { kind: 'read', path: '.' }, ['glob', 'path', 'maxResults'], ['glob']],
      [
        'search_files',
        { kind: 'read', path: '.' },
        ['pattern', 'path', 'glob', 'caseSensitive', 'maxResults'],
        ['pattern'],
      ],
    ]);
    for (const tool of tools) {
      const properties = Object.values(tool.parameters.properties as object) as object[];
      for (const property of properties) expect(property).toHaveProperty('description');
    }
  });
});

describe('the read-only tool set', () => {
  it('holds list_directory and read_file, found by name', () => {
    expect(readOnlyTools.map((tool) => [tool.name, tool.access({ path: 'src' })])).toEqual([
      ['list_directory', { kind: 'read', path: 'src' }],
      ['read_file', { kind: 'read', path: 'src' }],
    ]);
    expect(getTool('read_file')).toBe(readFileTool);
    expect(getTool('write_file')).toBeUndefined();
  });
});
