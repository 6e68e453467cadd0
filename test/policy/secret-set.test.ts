/**
 * Issue 23, "Secrets are never read unasked": the built-in secret set (`.envrc`, private
 * keys, `.npmrc`, `.netrc`, every repository's `.git/config`, the home folder's stores) is
 * denied to the file tools, reads and writes; find_files and search_files neither name
 * such a file nor show what it holds; `policy.allowSecretPaths` lets one exact path through.
 */
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PolicyConfig } from '../../host/policy/index.js';
import { compileReadProtection, decidePolicy } from '../../host/policy/testing.js';
import type { PolicyConfigInput } from '../../host/policy/testing.js';
import { createFindFilesTool, createSearchFilesTool } from '../../host/tools/testing.js';
import { tempDir, type TempDir } from '../support/temp-dir.js';
import { policyCall } from '../support/policy-call.js';

let temp: TempDir;
let workspace: string;
let home: string;

/** Each file holds `needle` and its own name, so any leak of it shows in a result. */
const SECRETS = [
  '.envrc',
  'id_rsa',
  'keys/id_ed25519',
  '.npmrc',
  '.netrc',
  '.pypirc',
  'certs/server.pem',
  'certs/site.key',
  'config/credentials.json',
];
const PLAIN = ['id_rsa.pub', 'src/a.ts', 'config/settings.json'];

beforeAll(async () => {
  temp = tempDir('tether-secret-set-');
  workspace = path.join(temp.path, 'workspace');
  home = path.join(temp.path, 'home');
  const files = [
    ...[...SECRETS, ...PLAIN, '.git/config', '.git/HEAD', 'sub/.git/config'].map((file) =>
      path.join(workspace, file),
    ),
    ...['.aws/credentials', '.kube/config', '.config/gh/hosts.yml'].map((file) =>
      path.join(home, file),
    ),
  ];
  for (const file of files) {
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, `needle in ${path.basename(file)}\n`);
  }
  await writeFile(path.join(workspace, 'config/credentials.example.json'), '{"token": ""}\n');
});
afterAll(() => temp.remove());

// Reads and writes of files do not depend on the machine's sandbox.
const context = (policy: PolicyConfigInput) => ({
  workspace,
  policy: PolicyConfig.parse(policy),
  homedir: home,
  sandbox: { available: true, kind: 'bwrap', program: 'bwrap' } as const,
});

async function decisionOf(name: string, input: unknown, policy: PolicyConfigInput = {}) {
  const ctx = context(policy);
  return (await decidePolicy(policyCall(name, input), ctx)).decision;
}

const read = (file: string, policy?: PolicyConfigInput) =>
  decisionOf('read_file', { path: file }, policy);
const write = (file: string, policy?: PolicyConfigInput) =>
  decisionOf('write_file', { path: file, content: 'x', expectedSha256: null }, policy);

describe('the secret set under policy', () => {
  it('denies reading and writing .envrc, private keys, .npmrc, .netrc and credentials', async () => {
    for (const file of [...SECRETS, 'ID_RSA', '.NPMRC', 'Credentials.json']) {
      expect(await read(file), file).toBe('deny');
      expect(await write(file), file).toBe('deny');
      expect(await decisionOf('edit_file', { path: file, oldText: 'a', newText: 'b' })).toBe(
        'deny',
      );
    }
  });

  it('allows a public key and ordinary files', async () => {
    for (const file of [...PLAIN, 'ID_RSA.PUB']) expect(await read(file), file).toBe('allow');
  });

  it("denies every repository's .git/config, nested ones too, and still reads HEAD", async () => {
    for (const file of ['.git/config', '.GIT/Config', 'sub/.git/config']) {
      expect(await read(file), file).toBe('deny');
      expect(await write(file), file).toBe('deny');
    }
    expect(await read('.git/HEAD')).toBe('allow');
    expect(await write('.git/HEAD')).toBe('deny');
  });

  it('denies the stores of the home folder, before asking about a path outside', async () => {
    for (const file of ['.aws/credentials', '.kube/config', '.config/gh/hosts.yml']) {
      expect(await read(path.join(home, file)), file).toBe('deny');
    }
    expect(await decisionOf('list_directory', { path: path.join(home, '.aws') })).toBe('deny');
  });

  it('denies a plain name that is a symlink to a secret', async () => {
    await symlink(path.join(workspace, 'id_rsa'), path.join(workspace, 'notes.txt'));
    expect(await read('notes.txt')).toBe('deny');
  });
});

describe('policy.allowSecretPaths', () => {
  const allowExample = { allowSecretPaths: ['config/credentials.example.json'] };

  it('lets exactly the path it names through', async () => {
    expect(await read('config/credentials.example.json')).toBe('deny');
    expect(await read('config/credentials.example.json', allowExample)).toBe('allow');
    expect(await read('CONFIG/Credentials.Example.json', allowExample)).toBe('allow');
    expect(await write('config/credentials.example.json', allowExample)).toBe('ask');
    expect(await read('config/credentials.json', allowExample)).toBe('deny');
  });

  it('takes ~/ and absolute paths, and never lifts the .git write rule or the policy list', async () => {
    const allowed = {
      allowSecretPaths: ['~/.kube/config', path.join(workspace, '.git/config')],
      protectedPaths: ['config/**'],
    };
    expect(await read(path.join(home, '.kube/config'), allowed)).toBe('ask');
    expect(await read('.git/config', allowed)).toBe('allow');
    expect(await write('.git/config', allowed)).toBe('deny');
    const listed = { ...allowExample, protectedPaths: ['config/**'] };
    expect(await read('config/credentials.example.json', listed)).toBe('deny');
  });

  it('does not let through what an allowed name links to', async () => {
    const link = path.join(workspace, 'config', 'credentials.link.json');
    await symlink(path.join(home, '.aws', 'credentials'), link);
    expect(await read(link, { allowSecretPaths: [link] })).toBe('deny');
  });

  it('is validated, naming the setting', () => {
    const parsed = PolicyConfig.safeParse({
      allowSecretPaths: ['config/*.json', '~root/.netrc', '', 7],
    });
    expect(parsed.success).toBe(false);
    expect(
      parsed.error?.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`),
    ).toEqual([
      'allowSecretPaths.0: expected one exact path, not a pattern: write it without * or ?',
      'allowSecretPaths.1: only ~/ is understood: write ~/… for your home folder, or an absolute path',
      'allowSecretPaths.2: expected a path',
      'allowSecretPaths.3: expected a path',
    ]);
  });
});

describe('find_files and search_files', () => {
  const options = {
    protectedPaths: (root: string) => compileReadProtection([], root, home),
  };
  const ctx = () => ({ workspace, signal: new AbortController().signal });

  it('never show what a secret holds', async () => {
    const result = await createSearchFilesTool(options).execute({ pattern: 'needle' }, ctx());
    expect(result.status).toBe('succeeded');
    const lines = result.content.split('\n');
    expect(lines.slice(1, -1).sort()).toEqual([
      'config/settings.json:1: needle in settings.json',
      'id_rsa.pub:1: needle in id_rsa.pub',
      'src/a.ts:1: needle in a.ts',
    ]);
    expect(lines.at(-1)).toMatch(/^skipped: .*11 protected/);
  });

  it('never name a secret', async () => {
    const result = await createFindFilesTool(options).execute({ glob: '*' }, ctx());
    expect(result.status).toBe('succeeded');
    const lines = result.content.split('\n');
    expect(lines.slice(1, -1).sort()).toEqual(['config/settings.json', 'id_rsa.pub', 'src/a.ts']);
    expect(lines.at(-1)).toMatch(/^skipped: .*11 protected/);
  });

  it('refuse to search a secret by name', async () => {
    const result = await createSearchFilesTool(options).execute(
      { pattern: 'needle', path: '.npmrc' },
      ctx(),
    );
    expect(result.status).toBe('failed');
    expect(result.error?.code).toBe('permission_denied');
    expect(result.content).not.toContain('needle');
  });
});
