/**
 * How a stdio MCP server's process starts: inside the OS sandbox (docs/operations.md, "MCP
 * servers"), changing only a folder of its own, its temporary folder and its `writable`
 * paths, with its network as configured; or as configured, with the host's rights, when
 * its config says `sandbox: false` or the machine has no sandbox. And what the sandbox
 * holds of it, in the approval card's terms.
 */
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CommandSandbox } from '../../protocol/index.js';
import {
  configuredRequest,
  removeTree,
  type PreparedSandbox,
  type Sandbox,
} from '../sandbox/index.js';
import type { GroupStdioOptions } from './group-stdio-transport.js';
import type { McpServerSpec } from './types.js';

type StdioSpec = Extract<McpServerSpec, { transport: 'stdio' }>;

/** The process part of a stdio transport's options. */
export type ServerStart = Pick<
  GroupStdioOptions,
  'launch' | 'env' | 'cwd' | 'sandboxed' | 'onStopped'
>;

export interface ServerStartHooks {
  /** A `host:port` the proxy to its `network` hosts refused. */
  onRefusedHost(target: string): void;
  /** Protected paths (secrets, what makes git run code) it changed in a writable folder. */
  onChangedProtected(paths: string[]): void;
  /** Looking for what it changed failed after it stopped (its folders are removed all the same). */
  onCleanupFailed(error: unknown): void;
}

/** What the sandbox holds of the stdio server `spec`, in the approval card's terms. */
export function serverSandboxScope(spec: StdioSpec, sandbox: Sandbox): CommandSandbox {
  if (spec.sandbox === null) {
    return { contained: false, reason: `mcp.servers.${spec.name}.sandbox is false` };
  }
  return sandbox.scope(null, configuredRequest(spec.sandbox));
}

/**
 * How to start `spec` now. Sandboxed, it gets a new folder of its own (the sandbox's
 * workspace, where it starts unless `cwd` says otherwise), removed with the sandbox's
 * temporary folder by `onStopped`. Throws when the sandbox cannot be prepared.
 */
export async function serverStart(
  spec: StdioSpec,
  sandbox: Sandbox,
  hooks: ServerStartHooks,
): Promise<ServerStart> {
  const allowed = spec.sandbox;
  if (allowed === null || !sandbox.status.available) {
    return {
      launch: { file: spec.command, args: [...spec.args] },
      env: spec.env,
      cwd: spec.cwd ?? process.cwd(),
      sandboxed: false,
    };
  }
  const own = realpathSync(mkdtempSync(path.join(tmpdir(), `tether-mcp-${spec.name}-`)));
  const removeOwn = () => removeTree(own);
  let prepared: PreparedSandbox;
  try {
    prepared = await sandbox.prepare(own, configuredRequest(allowed), (target) =>
      hooks.onRefusedHost(target),
    );
  } catch (error) {
    removeOwn();
    throw error;
  }
  if (prepared.capped) {
    prepared.finish();
    removeOwn();
    throw new Error(
      'its writable and readable folders hold too many files to look for secrets in: name ' +
        `narrower ones in mcp.servers.${spec.name}, or set sandbox: false`,
    );
  }
  const cwd = spec.cwd ?? own;
  return {
    launch: prepared.wrap([spec.command, ...spec.args], cwd),
    env: { ...spec.env, TMPDIR: prepared.plan.tempDir },
    cwd,
    sandboxed: sandbox.status.kind === 'bwrap',
    // Never throws: it runs when the server's group is gone, from its exit as well.
    onStopped: () => {
      let changed: string[] = [];
      try {
        changed = prepared.finish().changed;
      } catch (error) {
        hooks.onCleanupFailed(error);
      }
      removeOwn();
      if (changed.length > 0) hooks.onChangedProtected(changed);
    },
  };
}
