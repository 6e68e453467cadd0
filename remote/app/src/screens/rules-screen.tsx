/**
 * The allow rules of each host (docs/policy.md): those added from a device with "Allow
 * like this from now on" (their words, workspace, who added them and when, and Remove,
 * which asks for a second tap), and those of the host's config file, which only the Mac
 * changes.
 */
import { useState } from 'preact/hooks';
import { ConfirmButtons } from '../components/confirm-buttons.js';
import type { AllowRule } from '#protocol';
import { commandLine } from '#client';
import { shownText } from '../components/shown-text.js';
import { useRules } from '../hooks/use-rules.js';
import { useSubmit } from '../hooks/use-submit.js';
import { useAppView } from '../state/app-context.js';
import type { HostView } from '../state/app-view.js';

export function RulesScreen() {
  const view = useAppView();
  return (
    <main class="screen" data-testid="rules-screen">
      <h1 class="screen-title">Rules</h1>
      <p class="muted small">
        Commands these rules match run on the host without asking, with your user’s rights. A rule
        matches its exact words only.
      </p>
      {view.hosts.map((host) => (
        <HostRules key={host.hostId} host={host} />
      ))}
    </main>
  );
}

function HostRules({ host }: { host: HostView }) {
  const { rules, error, reload } = useRules(host);
  const action = useSubmit(host);
  const [confirming, setConfirming] = useState<string | undefined>(undefined);
  const remove = (rule: AllowRule) =>
    action.run(rule.id, async () => {
      await action.submit('policy.rule_remove', { ruleId: rule.id });
      setConfirming(undefined);
      reload();
    });
  return (
    <section class="host-section" data-testid="rules-host" data-host-id={host.hostId}>
      <h2 class="host-name">{host.hostName}</h2>
      {error !== undefined && <p class="error">{error}</p>}
      {rules === undefined && error === undefined && <p class="muted">Asking the host…</p>}
      {rules?.length === 0 && (
        <p class="muted" data-testid="rules-empty">
          No rules: every command asks first.
        </p>
      )}
      <ul class="list">
        {rules?.map((rule) => (
          <li
            key={rule.id}
            class="row rule-row wrap-row"
            data-testid="rule-row"
            data-rule-id={rule.id}
            data-source={rule.source}
          >
            <span class="row-main">
              <code class="row-title" data-testid="rule-words">
                {shownText(commandLine(rule.words))}
              </code>
              <span class="row-meta" data-testid="rule-origin">
                {shownText(originText(rule))}
              </span>
            </span>
            {rule.removable && (
              <span class="row-actions">
                {confirming === rule.id ? (
                  <ConfirmButtons
                    label="Remove rule"
                    testId="rule-remove"
                    busy={action.busy !== undefined}
                    onConfirm={() => remove(rule)}
                    onCancel={() => setConfirming(undefined)}
                  />
                ) : (
                  <button
                    type="button"
                    class="button danger-outline small"
                    data-testid="rule-remove"
                    disabled={action.busy !== undefined}
                    onClick={() => setConfirming(rule.id)}
                  >
                    Remove
                  </button>
                )}
              </span>
            )}
          </li>
        ))}
      </ul>
      {action.error !== undefined && <p class="error">{action.error}</p>}
    </section>
  );
}

/** "added on iPhone, 2026-12-01 · in /Users/me/app", or the config file's. */
function originText(rule: AllowRule): string {
  if (rule.source === 'config') {
    return 'from the host’s config file, every workspace (change it on the Mac)';
  }
  const day =
    rule.addedAt === null
      ? 'at an unknown date'
      : new Date(rule.addedAt).toISOString().slice(0, 10);
  return `added on ${rule.addedBy?.name ?? 'a device'}, ${day} · in ${rule.workspace ?? 'every workspace'}`;
}
