/**
 * The built-in secret set (docs/policy.md, "Protected paths"): files and folders that hold
 * keys, tokens and passwords, which no tool reads or writes and the sandbox hides.
 */
import path from 'node:path';

/** A pattern of the secret set, and why it is there. */
export interface SecretRule {
  /** A protected-path pattern (path-regex.ts). */
  pattern: string;
  why: string;
  /** Names ending in this are not secret: `id_*`, but not the public key `id_*.pub`. */
  unlessSuffix?: string;
}

const BROWSER_PROFILES = 'browser profiles (cookies, saved passwords)';

/** The secret set: the stores of the home folder, then names anywhere. */
export const SECRET_RULES: readonly SecretRule[] = [
  { pattern: '~/.ssh', why: 'SSH keys' },
  { pattern: '~/.aws', why: 'AWS credentials' },
  { pattern: '~/.config/gh', why: 'GitHub CLI tokens' },
  { pattern: '~/.docker/config.json', why: 'Docker registry credentials' },
  { pattern: '~/.kube', why: 'Kubernetes credentials' },
  { pattern: '~/.gnupg', why: 'GnuPG keys' },
  { pattern: '~/Library/Keychains', why: 'macOS keychains' },
  { pattern: '~/.git-credentials', why: 'Git credentials' },
  { pattern: '~/.config/git/credentials', why: 'Git credentials' },
  { pattern: '~/Library/Application Support/Google/Chrome', why: BROWSER_PROFILES },
  { pattern: '~/Library/Application Support/Firefox', why: BROWSER_PROFILES },
  { pattern: '~/Library/Safari', why: BROWSER_PROFILES },
  { pattern: '~/Library/Cookies', why: BROWSER_PROFILES },
  { pattern: '~/.config/google-chrome', why: BROWSER_PROFILES },
  { pattern: '~/.config/chromium', why: BROWSER_PROFILES },
  { pattern: '~/.mozilla', why: BROWSER_PROFILES },
  { pattern: '.env*', why: 'environment files hold secrets' },
  { pattern: 'id_*', why: 'SSH private keys', unlessSuffix: '.pub' },
  { pattern: '*.pem', why: 'private keys and certificates' },
  { pattern: '*.key', why: 'private keys' },
  { pattern: '*.p12', why: 'certificates with their private keys' },
  { pattern: '*.keystore', why: 'Java key stores' },
  { pattern: '.npmrc', why: 'npm tokens' },
  { pattern: '.pypirc', why: 'PyPI tokens' },
  { pattern: '.netrc', why: 'passwords for servers' },
  // Submodules keep theirs in `.git/modules/<name>/config`.
  { pattern: '**/.git/**/config', why: 'Git config: remote URLs and headers may hold tokens' },
  { pattern: '**/.git/credentials', why: 'Git credentials' },
  { pattern: 'credentials*', why: 'credential files' },
  { pattern: '*.keychain*', why: 'keychain files' },
];

/**
 * Absolute paths of the secret stores in `homedir` (`~/.ssh`, `~/.aws`, `~/.kube`, the
 * browser profiles…), whether they exist or not: what a sandbox hides by path.
 */
export function homeSecretStores(homedir: string): string[] {
  return SECRET_RULES.flatMap(({ pattern }) =>
    pattern.startsWith('~/') ? [path.join(homedir, pattern.slice(2))] : [],
  );
}
