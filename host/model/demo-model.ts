/**
 * The demo model of `tether start --demo`: a scripted, offline ModelAdapter (not an AI)
 * that walks a newcomer through the whole flow. For each task it streams a short intro
 * word by word, lists the workspace, finds its text files and searches them (read-only
 * tools that never ask), reads a file it found (README.md first), proposes a command that
 * asks for approval under the default policy, and after the result answers with a summary
 * of what it saw. Deterministic; no network.
 */
import type {
  ModelAdapter,
  ModelCompletion,
  ModelMessage,
  ModelRequest,
  ModelStreamEvent,
  ModelToolCall,
} from './types.js';

/** The model name the demo answers to. */
export const DEMO_MODEL_NAME = 'tether-demo';

/** How the demo is labelled wherever a model is named (start line, host.info). */
export const DEMO_MODEL_LABEL = 'demo model: scripted, not an AI';

/** Pause between streamed words, so previews show on a phone. */
const WORD_DELAY_MS = 60;

/** What the tour searches its text files for. */
const SEARCH_PATTERN = 'approv';

type Step =
  | { kind: 'list' }
  | { kind: 'find' }
  | { kind: 'search'; found: number }
  | { kind: 'read'; path: string | null; listing: string }
  | { kind: 'command'; path: string | null }
  | { kind: 'summary'; facts: Facts };

interface Facts {
  entries: number;
  found: number;
  matchingLines: number;
  path: string | null;
  firstLine: string | null;
  command: string;
  commandOutput: string | null;
  denied: boolean;
}

/** The messages of the current task: everything after the last user message. */
function currentTask(messages: readonly ModelMessage[]): ModelMessage[] {
  const start = messages.findLastIndex((message) => message.role === 'user');
  return messages.slice(start + 1);
}

function toolResults(task: readonly ModelMessage[]): string[] {
  return task.flatMap((message) => (message.role === 'tool' ? [message.content] : []));
}

/** Top-level files of a list_directory result (`  name (size)` lines), README first. */
function filesIn(listing: string): string[] {
  const files = listing
    .split('\n')
    .slice(1)
    .flatMap((line) => /^ {2}([^ /][^/]*?) \(\d/.exec(line)?.[1] ?? []);
  const readme = files.find((name) => /^readme(\.md|\.txt)?$/i.test(name));
  return readme === undefined ? files : [readme, ...files.filter((name) => name !== readme)];
}

/** `wc -l FILE` when the name is plain enough to pass as one word, else `ls -la`. */
function commandFor(path: string | null): string {
  if (path === null || !/^[\w.@+-][\w .@+-]*$/.test(path)) return 'ls -la';
  return path.includes(' ') ? `wc -l '${path}'` : `wc -l ${path}`;
}

function firstContentLine(readResult: string): string | null {
  const line = readResult
    .split('\n')
    .slice(1)
    .map((text) => text.trim())
    .find((text) => text !== '');
  return line === undefined ? null : line.slice(0, 80);
}

/** The count in a find_files or search_files header: `: 2 files match`, `: 3 matching lines`. */
function headerCount(result: string): number {
  return Number(/: (?:at least )?(\d+) (?:files? match|matching line)/.exec(result)?.[1] ?? 0);
}

/**
 * Where the task is, from the tool results so far: list, find, search, read (if a file),
 * command, summary.
 */
function nextStep(task: readonly ModelMessage[]): Step {
  const [listing, found, searched, ...rest] = toolResults(task);
  if (listing === undefined) return { kind: 'list' };
  if (found === undefined) return { kind: 'find' };
  if (searched === undefined) return { kind: 'search', found: headerCount(found) };
  const path = filesIn(listing)[0] ?? null;
  const [read, ran] = path === null ? [undefined, rest[0]] : rest;
  if (path !== null && read === undefined) return { kind: 'read', path, listing };
  if (ran === undefined) return { kind: 'command', path };
  return {
    kind: 'summary',
    facts: {
      entries: Number(/(\d+) entries\)/.exec(listing.split('\n')[0] ?? '')?.[1] ?? 0),
      found: headerCount(found),
      matchingLines: headerCount(searched),
      path,
      firstLine: read === undefined ? null : firstContentLine(read),
      command: commandFor(path),
      commandOutput: ran.split('\n')[1]?.trim() ?? null,
      denied: ran.startsWith('permission_denied'),
    },
  };
}

function say(step: Step, turn: number): { text: string; call?: ModelToolCall } {
  const id = (name: string) => `call_demo_${turn}_${name}`;
  switch (step.kind) {
    case 'list':
      return {
        text: "Hello! I'm the Tether demo model: scripted, not an AI. Let me look around this workspace first.",
        call: { id: id('list'), name: 'list_directory', arguments: JSON.stringify({ path: '.' }) },
      };
    case 'find':
      return {
        text: 'Let me find the text files. Finding and searching files only reads, so it never needs your approval.',
        call: {
          id: id('find'),
          name: 'find_files',
          arguments: JSON.stringify({ glob: '*.{md,txt}' }),
        },
      };
    case 'search':
      return {
        text: `I found ${step.found} text files. Let me search the workspace for "${SEARCH_PATTERN}".`,
        call: {
          id: id('search'),
          name: 'search_files',
          arguments: JSON.stringify({ pattern: SEARCH_PATTERN }),
        },
      };
    case 'read':
      return {
        text: `I see ${filesIn(step.listing).length} files at the top. Let me read ${step.path}.`,
        call: { id: id('read'), name: 'read_file', arguments: JSON.stringify({ path: step.path }) },
      };
    case 'command': {
      const command = commandFor(step.path);
      return {
        text: `Now I'd like to run \`${command}\`. Commands ask for your approval first: approve or deny it on your phone.`,
        call: { id: id('command'), name: 'run_command', arguments: JSON.stringify({ command }) },
      };
    }
    case 'summary': {
      const { facts } = step;
      const parts = [
        `Here is what I saw: the workspace has ${facts.entries} entries, ${facts.found} of ` +
          `them text files, and ${facts.matchingLines} lines mention "${SEARCH_PATTERN}".`,
      ];
      if (facts.path !== null) {
        parts.push(
          facts.firstLine === null
            ? `${facts.path} is empty.`
            : `${facts.path} begins with "${facts.firstLine}".`,
        );
      }
      parts.push(
        facts.denied
          ? `You denied \`${facts.command}\`, so it did not run.`
          : `\`${facts.command}\` printed "${facts.commandOutput ?? ''}".`,
      );
      parts.push('That is the whole demo: set a real model to do real work.');
      return { text: parts.join(' ') };
    }
  }
}

function wait(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

async function* streamDemo(
  request: ModelRequest,
  signal: AbortSignal,
  wordDelayMs: number,
): AsyncGenerator<ModelStreamEvent> {
  const turn = request.messages.filter((message) => message.role === 'user').length;
  const { text, call } = say(nextStep(currentTask(request.messages)), turn);
  const words = text.split(/(?<= )/);
  for (const word of words) {
    if (!(await wait(wordDelayMs, signal))) {
      yield {
        type: 'failed',
        error: { class: 'aborted', message: 'request aborted', retryable: false },
      };
      return;
    }
    yield { type: 'text', delta: word };
  }
  if (call !== undefined) {
    yield {
      type: 'tool_call_delta',
      index: 0,
      id: call.id,
      name: call.name,
      argumentsDelta: call.arguments,
    };
  }
  const message: ModelCompletion = {
    text,
    toolCalls: call === undefined ? [] : [call],
    finishReason: call === undefined ? 'stop' : 'tool_calls',
    native: {},
  };
  yield { type: 'completed', message };
}

/** The demo adapter; `wordDelayMs` paces the streamed words (default 60 ms). */
export function createDemoModel(wordDelayMs = WORD_DELAY_MS): ModelAdapter {
  return {
    provider: 'generic',
    stream: (request, signal) => streamDemo(request, signal, wordDelayMs),
  };
}
