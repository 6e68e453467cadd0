/**
 * Issue 23: Tether's own data directory and config file are denied to every tool, reads
 * and writes, even inside a workspace (a home folder as workspace), and the search tools'
 * walk never enters them; a workspace inside the data directory (the demo's) stays usable.
 */
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PolicyConfig } from '../../host/policy/index.js';
import { compileReadProtection, decidePolicy } from '../../host/policy/testing.js';
import { createFindFilesTool, createSearchFilesTool } from '../../host/tools/testing.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';
import { policyCall } from '../support/policy-call.js';

let temp: TempDir;
/** A home folder used as the workspace, holding the data directory and the config file. */
let home: string;
let dataDir: string;
let configFile: string;

beforeAll(async () => {
  temp = tempDir('tether-host-paths-');
  home = path.join(temp.path, 'home');
  dataDir = path.join(home, '.tether');
  configFile = path.join(home, 'tether.json');
  await mkdir(path.join(dataDir, 'outputs'), { recursive: true });
  await mkdir(path.join(dataDir, 'demo-workspace'));
  await writeFile(path.join(dataDir, 'host-key.json'), '{"needle": "host key"}\n');
  await writeFile(path.join(dataDir, 'outputs', 'call.out'), 'needle in an output\n');
  await writeFile(path.join(dataDir, 'demo-workspace', 'README.md'), 'needle in the demo\n');
  await writeFile(configFile, '{"needle": "config"}\n');
  await writeFile(path.join(home, 'notes.txt'), 'needle in notes\n');
  await symlink(dataDir, path.join(home, 'data-link'));
});
afterAll(() => temp.remove());

async function decide(name: string, input: unknown, workspace = home) {
  // Reads and writes of files do not depend on the machine's sandbox.
  const ctx = {
    workspace,
    policy: PolicyConfig.parse({}),
    homedir: path.join(temp.path, 'elsewhere'),
    hostPaths: [dataDir, configFile],
    sandbox: { available: true, kind: 'bwrap', program: 'bwrap' } as const,
  };
  return decidePolicy(policyCall(name, input), ctx);
}
const decisionOf = async (name: string, input: unknown, workspace?: string) =>
  (await decide(name, input, workspace)).decision;

describe("Tether's data directory and config file in a workspace", () => {
  it('are denied to read_file, naming why', async () => {
    expect(await decide('read_file', { path: '.tether/host-key.json' })).toEqual({
      decision: 'deny',
      reason: `.tether/host-key.json is a protected path (${dataDir}: Tether's own data directory or config file), so read_file may not read it.`,
    });
    expect(await decisionOf('read_file', { path: 'tether.json' })).toBe('deny');
    expect(await decisionOf('read_file', { path: '.TETHER/outputs/call.out' })).toBe('deny');
    expect(await decisionOf('read_file', { path: 'data-link/host-key.json' })).toBe('deny');
    expect(await decisionOf('read_file', { path: 'notes.txt' })).toBe('allow');
  });

  it('are denied to list_directory, search_files, find_files, write_file and edit_file', async () => {
    expect(await decisionOf('list_directory', { path: '.tether' })).toBe('deny');
    expect(await decisionOf('search_files', { pattern: 'needle', path: '.tether' })).toBe('deny');
    expect(await decisionOf('find_files', { glob: '*', path: 'data-link' })).toBe('deny');
    for (const file of ['.tether/host-key.json', '.tether/new.txt', 'tether.json']) {
      expect(
        await decisionOf('write_file', { path: file, content: 'x', expectedSha256: null }),
      ).toBe('deny');
      expect(await decisionOf('edit_file', { path: file, oldText: 'a', newText: 'b' })).toBe(
        'deny',
      );
    }
  });

  it('are skipped by the search tools walking the workspace', async () => {
    const options = {
      protectedPaths: (workspace: string) =>
        compileReadProtection([], workspace, path.join(temp.path, 'elsewhere'), {
          hostPaths: [dataDir, configFile],
        }),
    };
    const ctx = { workspace: home, signal: new AbortController().signal };
    const searched = await createSearchFilesTool(options).execute({ pattern: 'needle' }, ctx);
    expect(searched.content.split('\n').slice(1, -1)).toEqual(['notes.txt:1: needle in notes']);
    const found = await createFindFilesTool(options).execute({ glob: '**' }, ctx);
    expect(found.content.split('\n').slice(1, -1)).toEqual(['notes.txt']);
  });
});

describe('a workspace inside the data directory (the demo)', () => {
  const demo = () => path.join(dataDir, 'demo-workspace');

  it('is usable, while the rest of the data directory is denied', async () => {
    expect(await decisionOf('read_file', { path: 'README.md' }, demo())).toBe('allow');
    expect(await decisionOf('list_directory', { path: '.' }, demo())).toBe('allow');
    expect(await decisionOf('search_files', { pattern: 'needle' }, demo())).toBe('allow');
    expect(await decisionOf('read_file', { path: '../host-key.json' }, demo())).toBe('deny');
    expect(await decisionOf('list_directory', { path: '../outputs' }, demo())).toBe('deny');
  });
});
