/**
 * Runs one Contract A server as its own process:
 *
 *   node dist/serve.js <node-http|express|fastify|hono|hono-lean|koa>
 *
 * Listens on 127.0.0.1:$PORT (0 = any free port), prints `listening on http://127.0.0.1:<port>`
 * once ready and nothing per request (stdout may be a pipe nobody drains). SIGTERM/SIGINT: stop
 * accepting, let in-flight requests finish, close idle keep-alive sockets, exit within 5 s.
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { contractA, loadContractAConfig, type ContractAAdapterModule } from './contract/index.js';
import { nodeTargetNames, type NodeTargetName } from './adapters/manifests.js';

const HOST = '127.0.0.1';
/** Hard stop after a signal: the contract allows 5 s; keep a margin for process exit. */
const SHUTDOWN_DEADLINE_MS = 4_500;

const isTargetName = (name: string | undefined): name is NodeTargetName => nodeTargetNames.includes(name as NodeTargetName);

function parsePort(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 0;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`${contractA.env.port} must be a port number, got "${raw}"`);
  return port;
}

/** Graceful stop: no new connections, idle sockets closed now, busy ones once their response ends. */
function shutdown(server: Server): void {
  const deadline = setTimeout(() => {
    server.closeAllConnections();
    process.exit(0);
  }, SHUTDOWN_DEADLINE_MS);
  deadline.unref();
  server.close(() => process.exit(0));
  server.closeIdleConnections();
  // A keep-alive socket whose in-flight response just finished turns idle; sweep it too.
  setInterval(() => server.closeIdleConnections(), 50).unref();
}

async function main(): Promise<void> {
  const name = process.argv[2];
  if (!isTargetName(name)) {
    process.stderr.write(`usage: node dist/serve.js <${nodeTargetNames.join('|')}>\n`);
    process.exit(2);
  }
  const config = loadContractAConfig();
  const port = parsePort(process.env[contractA.env.port]);
  // Only the chosen framework is loaded: startup time and memory are measured per target.
  const adapter = (await import(`./adapters/${name}.js`)) as ContractAAdapterModule;
  const server = await adapter.createServer(config);
  server.listen(port, HOST);
  await once(server, 'listening');
  const { port: actual } = server.address() as AddressInfo;
  process.stdout.write(`listening on http://${HOST}:${actual}\n`);
  process.once('SIGTERM', () => shutdown(server));
  process.once('SIGINT', () => shutdown(server));
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
