/**
 * The MCP servers a host runs (`host.info.mcpServers`), asked again on each new
 * connection and when the screen asks; until an answer comes, what the host said when
 * this device connected.
 */
import { useEffect, useState } from 'preact/hooks';
import type { McpServerInfo } from '#protocol';
import type { HostView } from '../state/app-view.js';

export function useToolServers(host: HostView) {
  const [listed, setListed] = useState<readonly McpServerInfo[] | undefined>(undefined);
  const [asked, setAsked] = useState(0);
  const connected = host.status.state === 'open';
  useEffect(() => {
    if (!connected) return;
    host.connection.request('host.info', {}).then(
      (info) => setListed(info.mcpServers ?? []),
      () => undefined,
    );
  }, [host.connection, connected, asked]);
  const reload = () => setAsked((count) => count + 1);
  return [listed ?? host.info?.mcpServers, reload] as const;
}
