/**
 * What an approval card shows, the same in every remote: every field that changes what
 * runs, taken from the digest-checked `input` where it has the field, so that no kind of
 * preview (nor an old row's) can leave one out.
 */
import { type Approval, type CommandSandbox, sandboxScopeLine } from '../../protocol/index.js';

/** The fields of one approval card; each is shown in full (escaped by the view). */
export interface ApprovalView {
  /** `run_command`: the whole command, from the input (else the preview's). */
  command?: string;
  /** `run_command`: the folder it runs in, the input's `cwd` joined to the workspace. */
  folder?: string;
  /**
   * `run_command` and an agent's request: where it runs, the card's most important line
   * after the command (an agent's: what it reaches, the network above all).
   */
  sandbox?: SandboxView;
  /** The file or path the call names (the input's `path`, else the preview's). */
  path?: string;
  /**
   * The real absolute path of the target: always for a write (the preview's `realPath`,
   * else `path` joined to the workspace); for a command, its folder's real path as the
   * host resolved it, when that differs from `folder`.
   */
  realPath?: string;
  /** `path` previews: the access asked for (`read`, `write`). */
  access?: string;
  /** A write: its unified diff. */
  diff?: string;
  /** A path outside the workspace that approving lets the call touch, and the access. */
  outside?: { path: string; access: string } | undefined;
  /** A tool of an MCP server: which, what it says it does, and the arguments it gets. */
  mcp?: McpCallView;
}

/**
 * Where a command runs. `line` is `sandboxed: may change files in /w, no network, cannot
 * read your secrets`, `outside the sandbox: full access, because …`, or, from a host that
 * does not say, {@link SANDBOX_NOT_REPORTED}. The host's paths and reason are in `line`:
 * escape it. A card shows it as a warning when `!contained || network`.
 */
export interface SandboxView {
  line: string;
  /** Inside the OS sandbox; false when the host says it is not, or does not say. */
  contained: boolean;
  /** May reach the network: true when not contained. */
  network: boolean;
}

/** The sandbox line of a command whose host does not report one (hosts before it existed). */
const SANDBOX_NOT_REPORTED =
  'sandbox: not reported by this host (an older version): assume full access';

/** The MCP part of a card (the description and the arguments are the server's and the model's text: escape them). */
export interface McpCallView {
  server: string;
  tool: string;
  description: string;
  /** `the server says this tool only reads`, shown as a claim: it allows nothing by itself. */
  readOnlyHint: boolean;
  /** The input as indented JSON, each string value longer than {@link ARGUMENT_MAX} cut with a marker. */
  arguments: string;
  /**
   * Set for an ACP agent's request (docs/agents.md): `server` is the agent, `tool` the
   * tool call's title, `description` its kind and locations, `arguments` its raw input.
   */
  agent?: true;
}

const ARGUMENT_MAX = 2000;

function cutLongStrings(value: unknown): unknown {
  if (typeof value === 'string') {
    return value.length <= ARGUMENT_MAX
      ? value
      : `${value.slice(0, ARGUMENT_MAX)} [… ${value.length - ARGUMENT_MAX} more characters]`;
  }
  if (Array.isArray(value)) return value.map(cutLongStrings);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, cutLongStrings(item)]),
    );
  }
  return value;
}

/**
 * `path` as an absolute path: as it is when absolute, else joined to `workspace` as it is
 * (`..` and `./` are kept: the card shows what the input says).
 */
export function workspacePath(workspace: string, path: string): string {
  if (path.startsWith('/')) return path;
  return path === '.' || path === '' ? workspace : `${workspace}/${path}`;
}

/** The field `name` of a tool input, when it is a string. */
export function inputText(input: unknown, name: string): string | undefined {
  const value =
    typeof input === 'object' && input !== null ? (input as Record<string, unknown>)[name] : null;
  return typeof value === 'string' ? value : undefined;
}

/**
 * The card of an approval. A `run_command` always shows its command, its folder and where
 * it runs (the preview's `sandbox`, or that the host did not say), whatever the preview's
 * kind; a write shows its real target path beside the diff; a card shows
 * the preview's `outside`, and a `path` preview that names anything but the workspace
 * as outside (hosts before `outside` existed sent one only for a path outside).
 */
export function approvalView(
  approval: Pick<Approval, 'name' | 'input' | 'preview' | 'workspace'>,
): ApprovalView {
  const { preview, input, workspace } = approval;
  const named = preview.kind === 'path' && preview.path !== workspace;
  const view: ApprovalView = { outside: preview.outside ?? (named ? preview : undefined) };
  if (preview.kind === 'agent') {
    // An ACP agent's request: its title, kind and locations and its raw input, as sent.
    const { title, kind, locations, rawInput } = input as Record<string, unknown>;
    view.mcp = {
      agent: true,
      server: preview.agent,
      tool: String(title),
      description: `${String(kind)} ${JSON.stringify(locations)}`,
      readOnlyHint: false,
      arguments: JSON.stringify(cutLongStrings(rawInput), null, 2) ?? 'null',
    };
    view.sandbox = sandboxView(preview.sandbox);
    return view;
  }
  if (preview.kind === 'mcp') {
    view.mcp = {
      server: preview.server,
      tool: preview.tool,
      description: preview.description,
      readOnlyHint: preview.readOnlyHint,
      arguments: JSON.stringify(cutLongStrings(input), null, 2) ?? 'null',
    };
    return view;
  }
  if (approval.name === 'run_command' || preview.kind === 'command') {
    view.command =
      inputText(input, 'command') ?? (preview.kind === 'command' ? preview.command : '');
    const folder = (view.folder = workspacePath(workspace, inputText(input, 'cwd') ?? '.'));
    const real = preview.kind === 'command' ? preview.cwd : named ? preview.path : folder;
    if (real !== folder) view.realPath = real;
    view.sandbox = sandboxView(preview.kind === 'command' ? preview.sandbox : undefined);
    return view;
  }
  view.path = inputText(input, 'path') ?? preview.path;
  if (preview.kind === 'write') {
    view.realPath = preview.realPath ?? workspacePath(workspace, view.path);
    view.diff = preview.diff;
  }
  if (preview.kind === 'path') view.access = preview.access;
  return view;
}

/** Where a command or an agent runs, as the host said (or that it did not). */
function sandboxView(sandbox: CommandSandbox | undefined): SandboxView {
  return sandbox === undefined
    ? { line: SANDBOX_NOT_REPORTED, contained: false, network: true }
    : {
        line: sandboxScopeLine(sandbox),
        contained: sandbox.contained,
        network: !sandbox.contained || sandbox.network,
      };
}
