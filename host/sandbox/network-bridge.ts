/**
 * Inside a bubblewrap sandbox without network (its own network namespace, loopback only),
 * the bridge to the host's proxy (./network-proxy.ts): a small program, run by the host's
 * own `node`, that listens on the sandbox's loopback, carries each connection to the
 * proxy's unix socket (a file the sandbox shows; unix sockets do not belong to a network
 * namespace), and starts the command with the proxy variables naming its port. Its stdio
 * is the command's; it ends with the command's code, or by the command's signal.
 *
 * The source is passed with `node -e`, so it runs wherever Tether is installed: no file
 * of ours needs to be visible inside the sandbox, only the `node` program.
 */

/** The variables HTTP clients read for their proxy, lower and upper case. */
const PROXY_VARIABLES: readonly string[] = ['HTTPS_PROXY', 'HTTP_PROXY', 'ALL_PROXY'];

/** The proxy variables naming `url`, for a process that reaches the network only there. */
export function proxyEnvironment(url: string): Record<string, string> {
  const entries = PROXY_VARIABLES.flatMap((name): [string, string][] => [
    [name, url],
    [name.toLowerCase(), url],
  ]);
  return {
    ...Object.fromEntries(entries),
    NO_PROXY: '',
    no_proxy: '',
    // Node 24's own fetch and http read the variables above only when told to.
    NODE_USE_ENV_PROXY: '1',
  };
}

const BRIDGE_SOURCE = `
'use strict';
const net = require('node:net');
const { spawn } = require('node:child_process');
const [socket, command, ...args] = process.argv.slice(1);
const environment = JSON.parse(process.env.TETHER_PROXY_ENVIRONMENT);
delete process.env.TETHER_PROXY_ENVIRONMENT;
const server = net.createServer((client) => {
  const proxy = net.connect(socket);
  client.on('error', () => proxy.destroy());
  proxy.on('error', () => client.destroy());
  client.pipe(proxy).pipe(client);
});
server.on('error', (error) => {
  process.stderr.write('tether: the network bridge cannot listen: ' + error.message + '\\n');
  process.exit(126);
});
server.listen(0, '127.0.0.1', () => {
  const url = 'http://127.0.0.1:' + server.address().port;
  const env = { ...process.env };
  for (const [name, value] of Object.entries(environment)) env[name] = value.replace('{url}', url);
  const child = spawn(command, args, { stdio: 'inherit', env });
  child.on('error', (error) => {
    process.stderr.write('tether: cannot start ' + command + ': ' + error.message + '\\n');
    process.exit(127);
  });
  child.on('exit', (code, signal) => {
    if (signal !== null) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    }
    process.exit(code === null ? 1 : code);
  });
});
`;

/**
 * The command line that runs `argv` behind the bridge to the proxy listening on `socket`,
 * with `node` (the host's own, visible inside), and the variable the bridge reads.
 */
export function bridgedCommand(
  node: string,
  socket: string,
  argv: readonly string[],
): { argv: string[]; env: Record<string, string> } {
  return {
    argv: [node, '-e', BRIDGE_SOURCE, '--', socket, ...argv],
    env: { TETHER_PROXY_ENVIRONMENT: JSON.stringify(proxyEnvironment('{url}')) },
  };
}
