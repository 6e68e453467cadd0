/**
 * find_files and search_files under policy: allowed inside the workspace with or without a
 * path (they skip protected files themselves), and otherwise judged like read_file: a
 * protected path is denied, one outside asks for read access, tools settings apply.
 */
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PolicyConfig } from '../../host/policy/index.js';
import { decidePolicy } from '../../host/policy/testing.js';
import type { PolicyConfigInput } from '../../host/policy/testing.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';
import { SANDBOXED } from '../support/sandbox.js';
import { policyCall } from '../support/policy-call.js';

let temp: TempDir;
let workspace: string;
let outside: string;

beforeAll(async () => {
  temp = tempDir('tether-search-policy-');
  workspace = path.join(temp.path, 'workspace');
  outside = path.join(temp.path, 'outside');
  await mkdir(path.join(workspace, 'src'), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(workspace, '.env'), 'TOKEN=secret\n');
  await symlink(outside, path.join(workspace, 'out'));
});
afterAll(() => temp.remove());

const decide = (name: string, input: unknown, policy: PolicyConfigInput = {}) =>
  decidePolicy(policyCall(name, input), {
    workspace,
    policy: PolicyConfig.parse(policy),
    homedir: temp.path,
    sandbox: SANDBOXED,
  });

describe.each(['find_files', 'search_files'])('%s', (name) => {
  const input = (fields: Record<string, unknown> = {}) =>
    name === 'find_files' ? { glob: '*.ts', ...fields } : { pattern: 'TODO', ...fields };

  it('is allowed inside the workspace, also with no path and over a folder holding .env', async () => {
    for (const fields of [{}, { path: '.' }, { path: 'src' }]) {
      expect(await decide(name, input(fields))).toEqual({
        decision: 'allow',
        reason: `${name} only reads inside the workspace.`,
      });
    }
  });

  it('is denied a protected path and asks for read access outside the workspace', async () => {
    expect(await decide(name, input({ path: '.env' }))).toMatchObject({ decision: 'deny' });
    for (const where of ['out', '../outside', outside]) {
      expect(await decide(name, input({ path: where }))).toMatchObject({
        decision: 'ask',
        access: { path: outside, kind: 'read' },
      });
    }
    expect(
      await decide(name, input({ path: '../outside' }), { outsideWorkspace: 'deny' }),
    ).toMatchObject({ decision: 'deny' });
  });

  it('follows its tools setting, and is denied an input it cannot check', async () => {
    expect(await decide(name, input(), { tools: { [name]: 'ask' } })).toMatchObject({
      decision: 'ask',
    });
    expect(await decide(name, input(), { tools: { [name]: 'deny' } })).toMatchObject({
      decision: 'deny',
    });
    expect(() => policyCall(name, input({ path: 7 }))).toThrow(/refuses this input/);
    expect(await decide(name, input({ path: 'src\0' }))).toMatchObject({ decision: 'deny' });
  });
});
