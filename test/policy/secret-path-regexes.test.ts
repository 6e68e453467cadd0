/**
 * The secret set as regular expressions for the sandbox (Seatbelt's `regex` takes POSIX
 * extended ones): each must be valid and mean the same in JavaScript and in a POSIX ERE
 * engine (`grep -E`, case-sensitive, so the `[Ee]` classes do the case work), and match
 * what policy denies and nothing it allows.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { homeSecretStores, secretPathRegexes } from '../../host/policy/testing.js';

const home = '/home/ann';
const workspace = '/work/app';

/** The paths of `paths` that some regex of `sources` matches, by `grep -E` (POSIX ERE). */
function matchedByGrep(sources: readonly string[], paths: readonly string[]): string[] {
  const args = sources.flatMap((source) => ['-e', source]);
  const grep = spawnSync('grep', ['-E', ...args], { input: paths.join('\n'), encoding: 'utf8' });
  expect(grep.stderr).toBe('');
  return grep.stdout.split('\n').filter((line) => line !== '');
}

function matchedByJs(sources: readonly string[], paths: readonly string[]): string[] {
  const regexes = sources.map((source) => new RegExp(source, 'u'));
  return paths.filter((candidate) => regexes.some((regex) => regex.test(candidate)));
}

const SECRET = [
  `${workspace}/.env`,
  `${workspace}/.envrc`,
  `${workspace}/config/.ENV.production`,
  `${workspace}/id_rsa`,
  `${workspace}/keys/ID_ED25519`,
  `${workspace}/id_rsa.bak`,
  `${workspace}/certs/server.pem`,
  `${workspace}/tls/site.KEY`,
  `${workspace}/cert.p12`,
  `${workspace}/release.keystore`,
  `${workspace}/.npmrc`,
  `${workspace}/.netrc`,
  `${workspace}/.pypirc`,
  `${workspace}/.git/config`,
  `${workspace}/vendor/lib/.git/config`,
  `${workspace}/.git/modules/lib/config`,
  `${workspace}/.GIT/CONFIG`,
  `${workspace}/.git/credentials`,
  `${workspace}/config/credentials.json`,
  `${workspace}/secrets/api/token.txt`,
  `${home}/.ssh`,
  `${home}/.ssh/known_hosts`,
  `${home}/.aws/credentials`,
  `${home}/.config/gh/hosts.yml`,
  `${home}/.docker/config.json`,
  `${home}/.kube/config`,
  `${home}/.gnupg/private-keys-v1.d/x.key`,
  `${home}/Library/Keychains/login.keychain-db`,
  `${home}/.git-credentials`,
  `${home}/.config/git/credentials`,
  `${home}/Library/Application Support/Google/Chrome/Default/Cookies`,
  `${home}/Library/Application Support/Firefox/Profiles/x/logins.json`,
  `${home}/Library/Safari/History.db`,
  `${home}/Library/Cookies/Cookies.binarycookies`,
  `${home}/.config/google-chrome/Default/Login Data`,
  `${home}/.config/chromium/Default`,
  `${home}/.mozilla/firefox/x/key4.db`,
  '/var/tether/data/tether.db',
  '/var/tether/data',
  '/etc/tether.json',
];

const NOT_SECRET = [
  `${workspace}/src/main.ts`,
  `${workspace}/src/env.ts`,
  `${workspace}/id_rsa.pub`,
  `${workspace}/keys/ID_ED25519.PUB`,
  `${workspace}/.git/HEAD`,
  `${workspace}/.git/refs/heads/main`,
  `${workspace}/.gitconfig-example`,
  `${workspace}/docs/config`,
  `${workspace}/src/secrets/x`,
  `${workspace}/keys.ts`,
  `${home}/.sshx`,
  `${home}/.config/ghostty/config`,
  `${home}/.docker/daemon.json`,
  `${home}/Library/Application Support/Code/User/settings.json`,
  '/var/tether/database',
  '/etc/tether.json.bak',
];

describe('secretPathRegexes', () => {
  const sources = secretPathRegexes(['secrets/**'], workspace, home, [
    '/var/tether/data',
    '/etc/tether.json',
  ]);

  it('are anchored and use no syntax only JavaScript has', () => {
    for (const source of sources) {
      expect(source.startsWith('^'), source).toBe(true);
      expect(source, source).not.toMatch(/\(\?|\\[dDwWsSbB]|\{\d/);
    }
  });

  it('match the secret set, the policy list and the host paths, in JavaScript and POSIX alike', () => {
    const paths = [...SECRET, ...NOT_SECRET];
    expect(matchedByJs(sources, paths)).toEqual(SECRET);
    expect(matchedByGrep(sources, paths)).toEqual(SECRET);
  });

  it('leave a workspace inside the data directory usable, and deny the rest of it', () => {
    const demo = secretPathRegexes([], '/data/demo-workspace', home, ['/data']);
    const denied = [
      '/data/host-key.json',
      '/data/outputs/x.out',
      '/data/demo-workspac',
      '/data/demo-workspace2/x',
    ];
    const allowed = [
      '/data',
      '/data/demo-workspace',
      '/data/DEMO-WORKSPACE/README.md',
      '/data/demo-workspace/src/a.ts',
    ];
    const paths = [...denied, ...allowed];
    expect(matchedByJs(demo, paths)).toEqual(denied);
    expect(matchedByGrep(demo, paths)).toEqual(denied);
  });

  it('match a workspace holding the data directory, and the data directory being the workspace', () => {
    const inside = secretPathRegexes([], '/home/ann', home, ['/home/ann/.tether']);
    expect(matchedByJs(inside, ['/home/ann/.tether/tether.db', '/home/ann/notes.txt'])).toEqual([
      '/home/ann/.tether/tether.db',
    ]);
    const same = secretPathRegexes([], '/data', home, ['/data']);
    expect(matchedByJs(same, ['/data/readme.md'])).toEqual(['/data/readme.md']);
  });
});

describe('homeSecretStores', () => {
  it('names the stores of the home folder by absolute path', () => {
    const stores = homeSecretStores(home);
    for (const store of ['.ssh', '.aws', '.config/gh', '.docker/config.json', '.kube', '.gnupg']) {
      expect(stores).toContain(`${home}/${store}`);
    }
    expect(stores).toContain(`${home}/Library/Keychains`);
    expect(stores).toContain(`${home}/Library/Application Support/Google/Chrome`);
    expect(stores).toContain(`${home}/.mozilla`);
    expect(stores.every((store) => store.startsWith(`${home}/`))).toBe(true);
  });
});
