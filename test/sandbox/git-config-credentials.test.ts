/**
 * What a sandboxed command sees of a git config: no credentials, however git lets them be
 * written (the attack review found a header on the section's line and smtpPass).
 */
import { describe, expect, it } from 'vitest';
import { withoutCredentials } from '../../host/sandbox/testing.js';

describe('a git config without its credentials', () => {
  it('drops tokens in URLs, headers, passwords and helpers, wherever git reads them', () => {
    const config = [
      '[remote "origin"]',
      '\turl = https://user:ghp_URLTOKEN@github.com/o/r.git',
      '[http] extraheader = AUTHORIZATION: bearer HEADERTOKEN',
      '[sendemail]',
      '\tsmtpPass = SMTPSECRET',
      '[credential]',
      '\thelper = store --file ~/.creds',
      '[http "https://x.test"]',
      '\textraHeader = "Authorization: basic \\',
      'CONTINUEDSECRET"',
      '[core]',
      '\tbare = false',
    ].join('\n');
    const shown = withoutCredentials(config);
    expect(shown).not.toBeNull();
    for (const secret of ['URLTOKEN', 'HEADERTOKEN', 'SMTPSECRET', '.creds', 'CONTINUEDSECRET']) {
      expect(shown).not.toContain(secret);
    }
    expect(shown).toContain('url = https://github.com/o/r.git');
    expect(shown).toContain('[http]');
    expect(shown).toContain('\tbare = false');
  });

  it('leaves a config without credentials as it is', () => {
    expect(withoutCredentials('[core]\n\tbare = false\n')).toBeNull();
  });
});
