/**
 * A page with one `ApprovalCard` and the app's styles, for the card tests: it renders the case named by the
 * `case` query parameter from `cases.json` (written by the test beside the built page) and counts
 * the Approve and Deny callbacks in `window.cardCalls`.
 */
import { render } from 'preact';
import { z } from 'zod';
import { Approval } from '../../../protocol/index.js';
import { ApprovalCard } from '../../../remote/app/src/components/approval-card.js';
import '../../../remote/app/src/styles.css';

const Cases = z.record(z.string(), Approval);
const calls = { approve: 0, deny: 0 };
(window as unknown as { cardCalls: typeof calls }).cardCalls = calls;

async function show(): Promise<void> {
  const cases = Cases.parse(await (await fetch('./cases.json')).json());
  const name = new URLSearchParams(location.search).get('case') ?? '';
  const approval = cases[name];
  const root = document.getElementById('app')!;
  if (approval === undefined) {
    root.textContent = `no case named ${name}`;
    return;
  }
  render(
    <ApprovalCard
      approval={approval}
      workspace={approval.workspace}
      onApprove={() => (calls.approve += 1)}
      onDeny={() => (calls.deny += 1)}
    />,
    root,
  );
}

void show();
