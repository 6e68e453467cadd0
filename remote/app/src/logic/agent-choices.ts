/**
 * The ACP agents New task offers besides Tether's own loop (docs/agents.md): the names of
 * `host.info.agents`, each checked with `AgentInfo` here, where they are shown (named in
 * `host.info`'s schema they would cost the first load), with a word on one whose last run
 * failed or that runs outside the sandbox.
 */
import { AgentInfo } from '#protocol';

export interface AgentChoice {
  name: string;
  /** The option's words: the name, and what the user should know before picking it. */
  label: string;
}

export function agentChoices(agents: unknown): AgentChoice[] {
  if (!Array.isArray(agents)) return [];
  return agents.flatMap((item: unknown) => {
    const parsed = AgentInfo.safeParse(item);
    if (!parsed.success) return [];
    const { name, state, sandbox } = parsed.data;
    const notes = [
      ...(state === 'failed' ? ['failed last time'] : []),
      ...(sandbox.contained ? [] : ['not sandboxed']),
    ];
    return [{ name, label: notes.length === 0 ? name : `${name} (${notes.join(', ')})` }];
  });
}
