/**
 * What the command sandbox hides for one workspace (host/sandbox `SecretSet`), from the
 * same protected paths every tool is held to: the secret set, the policy's
 * `protectedPaths`, and Tether's own data directory and config file.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import type { PolicyConfig } from './policy-config.js';
import { compileReadProtection, secretPathRegexes } from './protected-paths.js';
import { homeSecretStores } from './secret-set.js';

/**
 * A repository's config is in the secret set, but git cannot run without reading it: the
 * sandbox shows it without its credentials (Linux) or hides it only when it holds some
 * (macOS), instead of hiding it by name.
 */
const GIT_CONFIG_PATTERN = '**/.git/**/config';

/** The secrets of one workspace as the sandbox takes them (host/sandbox `SecretSet`). */
export interface SandboxSecrets {
  isSecret(absolute: string): boolean;
  fixedPaths: readonly string[];
  patterns: readonly string[];
}

/**
 * The sandbox's secrets for `workspace` (a real path). `hostPaths` are the real paths of
 * the data directory and the config file; one that holds the workspace (the demo's, in
 * `<data>/demo`) is hidden entry by entry, but for the way down to the workspace.
 */
export async function sandboxSecrets(
  policy: PolicyConfig,
  workspace: string,
  homedir: string,
  hostPaths: readonly string[],
): Promise<SandboxSecrets> {
  const isProtected = await compileReadProtection(policy.protectedPaths, workspace, homedir, {
    hostPaths,
    allowSecretPaths: policy.allowSecretPaths,
  });
  // The walk asks for every entry of the workspace: one pass of all the patterns at once
  // rules out almost every path, and only a candidate is asked rule by rule.
  const anyPattern = new RegExp(
    secretPathRegexes(policy.protectedPaths, workspace, homedir, hostPaths)
      .map((source) => `(?:${source})`)
      .join('|'),
    'iu',
  );
  return {
    isSecret: (absolute) => anyPattern.test(absolute.normalize('NFC')) && isProtected(absolute),
    fixedPaths: [
      ...homeSecretStores(homedir),
      ...hostPaths.flatMap((hostPath) => hostPathCovers(hostPath, workspace)),
    ],
    patterns: secretPathRegexes(policy.protectedPaths, workspace, homedir, hostPaths, [
      GIT_CONFIG_PATTERN,
    ]),
  };
}

/** What to hide of `hostPath`: itself, or its entries but the one holding `workspace`. */
function hostPathCovers(hostPath: string, workspace: string): string[] {
  const relative = path.relative(hostPath, workspace);
  const holds = relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
  if (!holds) return [hostPath];
  const way = relative.split(path.sep)[0];
  let names: string[];
  try {
    names = readdirSync(hostPath);
  } catch {
    return [];
  }
  return names.filter((name) => name !== way).map((name) => path.join(hostPath, name));
}
