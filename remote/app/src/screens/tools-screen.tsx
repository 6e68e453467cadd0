/**
 * The MCP tool servers of each host: how each is reached, whether it is connected, the
 * tools it offers runs now, what the OS sandbox lets a stdio server touch (a warning when
 * it runs outside), and its last error. Names and errors come from the server and the
 * host's config: shown escaped.
 */
import { type McpServerInfo, sandboxScopeLine } from '#protocol';
import { visibleText } from '#client';
import { shownText } from '../components/shown-text.js';
import { useToolServers } from '../hooks/use-tool-servers.js';
import { useAppView } from '../state/app-context.js';
import type { HostView } from '../state/app-view.js';

export function ToolsScreen() {
  const view = useAppView();
  return (
    <main class="screen" data-testid="tools-screen">
      <h1 class="screen-title">Tool servers</h1>
      {view.hosts.map((host) => (
        <HostToolServers key={host.hostId} host={host} />
      ))}
      <p class="muted small">
        Tools of MCP servers ask before they run unless the host’s config allows them; a server’s
        claim that a tool only reads allows nothing by itself.
      </p>
    </main>
  );
}

function HostToolServers({ host }: { host: HostView }) {
  const [servers, reload] = useToolServers(host);
  return (
    <section class="card" data-testid="tools-host" data-host-id={host.hostId}>
      <header class="card-head">
        <h2>{shownText(host.hostName)}</h2>
        <button
          type="button"
          class="button small"
          data-testid="tools-refresh"
          disabled={host.status.state !== 'open'}
          onClick={reload}
        >
          Refresh
        </button>
      </header>
      {servers === undefined && <p class="muted">Not known yet: the host has not answered.</p>}
      {servers?.length === 0 && (
        <p class="muted" data-testid="tools-none">
          No MCP servers: add them under <code>mcp.servers</code> in the host’s config file.
        </p>
      )}
      {servers !== undefined && servers.length > 0 && (
        <ul class="tool-servers">
          {servers.map((server) => (
            <ToolServer key={server.name} server={server} />
          ))}
        </ul>
      )}
    </section>
  );
}

/** The run badges' colours: green connected, amber on the way, red failed. */
const STATE_BADGE: Record<McpServerInfo['state'], string> = {
  connecting: 'badge-waiting',
  connected: 'badge-succeeded',
  restarting: 'badge-waiting',
  failed: 'badge-failed',
  stopped: '',
};

function ToolServer({ server }: { server: McpServerInfo }) {
  const prefix = `mcp__${server.name}__`;
  return (
    <li data-testid="mcp-server" data-name={server.name} data-state={server.state}>
      <p>
        <strong>{shownText(server.name)}</strong>{' '}
        <span class={`badge ${STATE_BADGE[server.state]}`}>{server.state}</span>{' '}
        <span class="muted small">{server.transport}</span>
      </p>
      <p class="muted small" data-testid="mcp-server-tools">
        {server.tools.length === 0
          ? 'no tools'
          : `${server.tools.length} tools: ${server.tools
              .map((tool) => (tool.startsWith(prefix) ? tool.slice(prefix.length) : tool))
              .map(visibleText)
              .join(', ')}`}
      </p>
      {server.sandbox !== undefined && (
        <p
          class={`small ${server.sandbox.contained ? 'muted' : 'approval-sandbox warn'}`}
          data-testid="mcp-server-sandbox"
          data-contained={String(server.sandbox.contained)}
        >
          {shownText(sandboxScopeLine(server.sandbox))}
        </p>
      )}
      {server.lastError !== undefined && (
        <p class="error small" data-testid="mcp-server-error">
          Last error: {shownText(server.lastError)}
        </p>
      )}
    </li>
  );
}
