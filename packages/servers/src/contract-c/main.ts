/**
 * Runs the node:http server of contract C as its own process: `node dist/contract-c/main.js`.
 * Listens on 127.0.0.1:$PORT (0 = any free port), prints `listening on http://127.0.0.1:<port>`
 * once ready and nothing per request. SIGTERM/SIGINT: stop accepting, let in-flight requests
 * finish, close idle keep-alive sockets, exit 0 within 5 s.
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { contractC } from './contract-c.js';
import { createServer } from './node-http.js';

const HOST = '127.0.0.1';
/** Hard stop after a signal: the contract allows 5 s; keep a margin for process exit. */
const SHUTDOWN_DEADLINE_MS = 4_500;

const raw = process.env[contractC.env.port] ?? '';
const port = raw === '' ? 0 : Number(raw);
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  process.stderr.write(`${contractC.env.port} must be a port number, got "${raw}"\n`);
  process.exit(2);
}

const server = createServer();
server.listen(port, HOST);
await once(server, 'listening');
process.stdout.write(`listening on http://${HOST}:${(server.address() as AddressInfo).port}\n`);

const shutdown = (): void => {
  setTimeout(() => {
    server.closeAllConnections();
    process.exit(0);
  }, SHUTDOWN_DEADLINE_MS).unref();
  server.close(() => process.exit(0));
  server.closeIdleConnections();
  // A keep-alive socket whose in-flight response just finished turns idle; sweep it too.
  setInterval(() => server.closeIdleConnections(), 50).unref();
};
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);
