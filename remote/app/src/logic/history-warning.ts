/**
 * The warning shown while a host says its database went back in time (`host.info.history`,
 * docs/protocol.md Appendix F): restored from a backup or damaged, it serves an older
 * state than a device may have seen, until the user acknowledges it on the Mac.
 */

/** `host.info.history.rewound` as far as the warning needs it; undefined when absent or odd. */
function rewoundOf(
  info: Record<string, unknown> | undefined,
): { head: number; knownHead: number } | undefined {
  const history = info?.['history'];
  if (typeof history !== 'object' || history === null) return undefined;
  const rewound = (history as { rewound?: unknown }).rewound;
  if (typeof rewound !== 'object' || rewound === null) return undefined;
  const { head, knownHead } = rewound as { head?: unknown; knownHead?: unknown };
  if (typeof head !== 'number' || typeof knownHead !== 'number') return undefined;
  return { head, knownHead };
}

/** What the user is told of `hostName` while its history is rewound; undefined otherwise. */
export function historyWarning(
  hostName: string,
  info: Record<string, unknown> | undefined,
): string | undefined {
  const rewound = rewoundOf(info);
  if (rewound === undefined) return undefined;
  const lost = rewound.knownHead - rewound.head;
  return (
    `${hostName}: this host's history ends before what this device saw: the database was ` +
    `restored or damaged. Runs, answers and approvals after that point are gone from the host ` +
    `(${lost} or more events). On the Mac: \`tether history --acknowledge\`.`
  );
}
