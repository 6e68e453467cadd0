/**
 * What a `run_command` call starts: its argv (its own words when it runs unattended, else
 * `/bin/sh -c`), and what more of the sandbox it asks for, as real paths.
 */
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import type { SandboxRequest } from '../sandbox/index.js';
import { commandWords } from './command-words.js';
import { expectErrnoCode } from './expect-errno.js';
import type { ToolContext } from './types.js';

/**
 * The program and arguments to start: an unattended command's own words when it has
 * plain ones (no shell: an assignment, alias or `$VAR` in it means nothing), else
 * `/bin/sh -c command` (approved by a person, or `tools.run_command: "allow"`).
 */
export function commandArgv(command: string, unattended: boolean): string[] {
  if (unattended) {
    const words = commandWords(command);
    if (words.ok) return words.argv;
  }
  return ['/bin/sh', '-c', command];
}

type RequestCheck = { ok: true; request: SandboxRequest } | { ok: false; reason: string };

/**
 * The call's `sandbox` input with its write paths as real paths (relative ones from the
 * workspace), and the approved folder outside the workspace the command runs in: each
 * must exist. Its `hosts` (validated patterns) hold its network to them.
 */
export async function sandboxRequest(
  input:
    | {
        network?: boolean | undefined;
        hosts?: readonly string[] | undefined;
        write?: readonly string[] | undefined;
      }
    | undefined,
  ctx: Pick<ToolContext, 'workspace' | 'outsideAccess' | 'gitReadOnly'>,
): Promise<RequestCheck> {
  const named = [...(input?.write ?? [])];
  if (ctx.outsideAccess?.kind === 'write') named.push(ctx.outsideAccess.path);
  const write: string[] = [];
  for (const name of named) {
    try {
      write.push(await realpath(path.resolve(ctx.workspace, name)));
    } catch (error) {
      return {
        ok: false,
        reason: `sandbox.write names ${name}, which cannot be used (${expectErrnoCode(error)}); name an existing folder or file`,
      };
    }
  }
  const gitReadOnly = ctx.gitReadOnly ?? [];
  return {
    ok: true,
    request: {
      network: input?.network === true,
      ...(input?.hosts === undefined ? {} : { hosts: input.hosts }),
      write,
      ...(gitReadOnly.length === 0 ? {} : { gitReadOnly }),
    },
  };
}
