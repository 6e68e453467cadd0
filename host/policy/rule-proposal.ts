/**
 * The rule "Allow like this from now on" offers on an approval card (docs/policy.md,
 * "Rules added from the app"): the narrowest rule the allow-rule matcher has for the
 * call, its own words with no `…`, for the call's workspace; or why none is offered. A
 * rule is judged by the worst call it lets through, so none is offered for a command
 * that is not a plain word list, a program that runs code its arguments or the workspace
 * supply, or words naming a path outside, a protected path, or a value Tether cannot
 * check. decide-policy.ts keeps an offer only when, added, it would allow this call.
 */
import type { RuleProposal } from '../../protocol/index.js';
import { addedRuleWordProblem, locate, protectedPaths } from './argument-checks.js';
import { MORE_ARGUMENTS_WORDS, showRule } from './command-rules.js';
import { commandWords } from '../tools/index.js';
import { nestedRepository } from './nested-repository.js';
import { commandRisk } from './command-risk.js';
import type { PolicyCall, PolicyContext } from './types.js';

/** The proposal for `call` (static checks; the folder and words as they are now). */
export async function proposeRule(call: PolicyCall, ctx: PolicyContext): Promise<RuleProposal> {
  const { access } = call;
  if (access.kind !== 'command') {
    return none(
      `Rules are made for commands only: a rule for ${call.name} would let the model change or read whatever file it names next`,
    );
  }
  if (ctx.policy.tools.run_command === 'ask') {
    return none('The host\'s config file asks before every command (tools.run_command is "ask")');
  }
  const words = commandWords(access.command);
  if (!words.ok) {
    return none(`The command ${words.reason}, so no rule can match it safely`);
  }
  const { argv } = words;
  if (argv.some((word) => word === '' || MORE_ARGUMENTS_WORDS.includes(word))) {
    return none('The command has an empty word or a "…", which a rule cannot list');
  }
  if (!ctx.sandbox.available) {
    return none(
      `No sandbox can run on this machine (${ctx.sandbox.reason}), so no rule lets a command run unasked`,
    );
  }
  const risk = commandRisk(argv);
  // A program's name keeps its case: `python runs …`.
  if (risk?.kind === 'refused') return none(risk.why);
  const cwd = await locate(ctx, access.cwd);
  if (!cwd.ok || !cwd.inside) return none('The command runs outside the workspace');
  const isProtected = await protectedPaths(ctx);
  if (isProtected(cwd, 'write') !== null) return none('The command runs in a protected folder');
  if ((await nestedRepository(cwd.real, ctx.workspace)) !== null) {
    return none(
      'The command runs inside a repository of its own, whose config could run a program',
    );
  }
  for (const word of argv.slice(1)) {
    const problem = await addedRuleWordProblem(ctx, cwd.real, word, isProtected);
    if (problem !== null) return none(capitalise(problem.why));
  }
  return {
    offered: true,
    words: argv,
    workspace: ctx.workspace,
    matches:
      `Only "${showRule(argv)}", word for word, from any folder of ${ctx.workspace} that is ` +
      'not protected and not a repository of its own; its words are checked again in each ' +
      'folder. Never with another option, word or path, nor joined to another command. ' +
      (risk === null
        ? 'It runs in the sandbox: '
        : `${capitalise(risk.why)}: whatever that is runs in the sandbox, which `) +
      `${risk === null ? 'it ' : ''}may change any file of ${ctx.workspace} but .git hooks and ` +
      'config, cannot read your secrets, and has no network.',
  };
}

function none(reason: string): RuleProposal {
  return { offered: false, reason };
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
