/**
 * The warning of a host whose database went back in time (issue 24): `host.info.history`
 * read defensively, and the words shown while it says `rewound`.
 */
import { describe, expect, it } from 'vitest';
import { historyWarning } from '../../remote/app/src/logic/history-warning.js';

const rewound = { detectedAt: 1, head: 12, knownHead: 40, by: 'host', count: 1 };

describe('historyWarning', () => {
  it('says the host went back, naming it, while host.info says rewound', () => {
    expect(historyWarning('Studio Mac', { history: { rewound } })).toBe(
      "Studio Mac: this host's history ends before what this device saw: the database was " +
        'restored or damaged. Runs, answers and approvals after that point are gone from the ' +
        'host (28 or more events). On the Mac: `tether history --acknowledge`.',
    );
    expect(
      historyWarning('Mac', { history: { rewound: { ...rewound, knownHead: 13 } } }),
    ).toContain('(1 or more events)');
  });

  it('says nothing for a whole history, an older host, or an odd answer', () => {
    expect(historyWarning('Mac', { history: {} })).toBeUndefined();
    expect(historyWarning('Mac', { name: 'Mac' })).toBeUndefined();
    expect(historyWarning('Mac', undefined)).toBeUndefined();
    expect(historyWarning('Mac', { history: null })).toBeUndefined();
    expect(historyWarning('Mac', { history: { rewound: { head: '12' } } })).toBeUndefined();
  });
});
