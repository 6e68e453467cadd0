/**
 * `approvalView` (remote/client): what every approval card shows. A run_command shows its
 * command, where it runs (the preview's `sandbox`, or that an older host did not say) and
 * its folder whatever the preview's kind (an old row's `path` preview too), a write its
 * real path, any preview's `outside` (an old row's path outside the workspace).
 */
import { describe, expect, it } from 'vitest';
import type { ApprovalPreview, CommandSandbox } from '../../protocol/index.js';
import { approvalView } from '../../remote/client/index.js';
import { workspacePath } from '../../remote/client/testing.js';

const WORKSPACE = '/Users/me/project';
const SHA = 'a'.repeat(64);
/** A command from a host that sends no `sandbox`: honest that it may have full access. */
const NOT_REPORTED = {
  line: 'sandbox: not reported by this host (an older version): assume full access',
  contained: false,
  network: true,
};

function view(name: string, input: unknown, preview: ApprovalPreview) {
  return approvalView({ name, input, preview, workspace: WORKSPACE });
}

describe('approvalView', () => {
  it('shows a command and its folder from the input, and the real folder when it differs', () => {
    expect(
      view(
        'run_command',
        { command: 'npm test' },
        { kind: 'command', command: 'npm test', cwd: WORKSPACE },
      ),
    ).toEqual({ command: 'npm test', folder: WORKSPACE, sandbox: NOT_REPORTED });
    expect(
      view(
        'run_command',
        { command: 'ls', cwd: 'link' },
        {
          kind: 'command',
          command: 'ls',
          cwd: '/etc',
          outside: { path: '/etc', access: 'read' },
        },
      ),
    ).toEqual({
      command: 'ls',
      folder: `${WORKSPACE}/link`,
      sandbox: NOT_REPORTED,
      realPath: '/etc',
      outside: { path: '/etc', access: 'read' },
    });
  });

  it('shows the command of a run_command whose old row has only a path preview', () => {
    expect(
      view(
        'run_command',
        { command: 'rm -rf build', cwd: '/tmp' },
        { kind: 'path', path: '/private/tmp', access: 'write' },
      ),
    ).toEqual({
      command: 'rm -rf build',
      folder: '/tmp',
      sandbox: NOT_REPORTED,
      realPath: '/private/tmp',
      outside: expect.objectContaining({ path: '/private/tmp', access: 'write' }) as object,
    });
    expect(
      view('run_command', { command: 'ls' }, { kind: 'path', path: WORKSPACE, access: 'read' }),
    ).toEqual({ command: 'ls', folder: WORKSPACE, sandbox: NOT_REPORTED });
  });

  it('shows where a command runs: sandboxed, with network, outside the sandbox, or not said', () => {
    const where = (sandbox: CommandSandbox | undefined) =>
      view(
        'run_command',
        { command: 'npm test' },
        { kind: 'command', command: 'npm test', cwd: WORKSPACE, ...(sandbox && { sandbox }) },
      ).sandbox;
    expect(
      where({ contained: true, kind: 'bwrap', writable: [WORKSPACE], network: false }),
    ).toEqual({
      line: `sandboxed: may change files in ${WORKSPACE}, no network, cannot read your secrets`,
      contained: true,
      network: false,
    });
    expect(
      where({ contained: true, kind: 'seatbelt', writable: [WORKSPACE, '/tmp/x'], network: true }),
    ).toEqual({
      line: `sandboxed: may change files in ${WORKSPACE}, /tmp/x, WITH network access, cannot read your secrets`,
      contained: true,
      network: true,
    });
    expect(
      where({
        contained: true,
        kind: 'bwrap',
        writable: [WORKSPACE],
        network: true,
        networkHosts: ['api.anthropic.com', '*.sentry.io'],
      }),
    ).toEqual({
      line: `sandboxed: may change files in ${WORKSPACE}, network only to api.anthropic.com, *.sentry.io, cannot read your secrets`,
      contained: true,
      network: true,
    });
    expect(where({ contained: false, reason: 'bwrap is not installed' })).toEqual({
      line: 'outside the sandbox: full access, because bwrap is not installed',
      contained: false,
      network: true,
    });
    expect(where(undefined)).toEqual(NOT_REPORTED);
  });

  it('shows a write with its real path: the preview’s, else the path in the workspace', () => {
    const write = {
      kind: 'write',
      path: 'a.txt',
      diff: '+a',
      baseSha256: null,
      newSha256: SHA,
    } as const;
    expect(view('write_file', { path: 'a.txt' }, write)).toEqual({
      path: 'a.txt',
      realPath: `${WORKSPACE}/a.txt`,
      diff: '+a',
    });
    const outside = { path: '/Users/me/.zshrc', access: 'write' } as const;
    expect(
      view(
        'write_file',
        { path: '../.zshrc' },
        { ...write, path: '../.zshrc', realPath: '/Users/me/.zshrc', outside },
      ),
    ).toEqual({ path: '../.zshrc', realPath: '/Users/me/.zshrc', diff: '+a', outside });
  });

  it('shows a path with its access, and one that is not the workspace as outside', () => {
    expect(
      view('list_directory', { path: 'src' }, { kind: 'path', path: WORKSPACE, access: 'read' }),
    ).toEqual({ path: 'src', access: 'read' });
    expect(
      view(
        'read_file',
        { path: '../secret' },
        { kind: 'path', path: '/Users/me/secret', access: 'read' },
      ),
    ).toEqual({
      path: '../secret',
      access: 'read',
      outside: expect.objectContaining({ path: '/Users/me/secret', access: 'read' }) as object,
    });
  });

  it('joins relative paths to the workspace and keeps absolute ones', () => {
    expect(workspacePath('/w', '.')).toBe('/w');
    expect(workspacePath('/w', './a/b')).toBe('/w/./a/b');
    expect(workspacePath('/w', '../x')).toBe('/w/../x');
    expect(workspacePath('/w', '/etc')).toBe('/etc');
  });

  it('an MCP tool: server, tool, description, the hint as a claim, and the arguments with long values cut', () => {
    const input = { query: 'q'.repeat(2500), nested: { n: 1, list: ['a'] } };
    const shown = view('mcp__github__search', input, {
      kind: 'mcp',
      server: 'github',
      tool: 'search',
      description: 'Searches issues.',
      readOnlyHint: true,
    });
    expect(shown.mcp).toMatchObject({
      server: 'github',
      tool: 'search',
      description: 'Searches issues.',
      readOnlyHint: true,
    });
    expect(shown.mcp?.arguments).toContain(`${'q'.repeat(2000)} [… 500 more characters]`);
    expect(shown.mcp?.arguments).toContain('"list": [\n');
    expect(shown.command).toBeUndefined();
    expect(shown.sandbox).toBeUndefined();
  });

  it("an agent's request: its title, kind and locations, its raw input, and where the agent runs, its network said", () => {
    const input = {
      title: 'Write marker.txt',
      kind: 'edit',
      locations: [{ path: `${WORKSPACE}/marker.txt`, line: null }],
      rawInput: { path: `${WORKSPACE}/marker.txt`, content: 'marked' },
    };
    const sandbox: CommandSandbox = {
      contained: true,
      kind: 'bwrap',
      writable: [WORKSPACE, '/Users/me/.claude'],
      network: true,
    };
    const shown = view('agent:edit', input, { kind: 'agent', agent: 'claude', sandbox });
    expect(shown.mcp).toMatchObject({
      agent: true,
      server: 'claude',
      tool: 'Write marker.txt',
      description: `edit [{"path":"${WORKSPACE}/marker.txt","line":null}]`,
    });
    expect(shown.sandbox).toEqual({
      line: `sandboxed: may change files in ${WORKSPACE}, /Users/me/.claude, WITH network access, cannot read your secrets`,
      contained: true,
      network: true,
    });
    // From a host that did not say where its agent runs: assume full access.
    expect(view('agent:edit', input, { kind: 'agent', agent: 'claude' }).sandbox).toEqual(
      NOT_REPORTED,
    );
  });
});
