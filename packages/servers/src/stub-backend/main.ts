import type { AddressInfo } from 'node:net';
import { createStubBackend, stubOptionsFromEnv } from './stub.js';

/**
 * Stub backend as its own process: `PORT` (0 = any free port), prints
 * `listening on http://127.0.0.1:<port>` when ready, exits on SIGTERM after in-flight requests.
 */
const stub = createStubBackend(stubOptionsFromEnv());
stub.server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const { port } = stub.server.address() as AddressInfo;
  process.stdout.write(`listening on http://127.0.0.1:${port}\n`);
});

function shutdown(): void {
  stub.server.close(() => process.exit(0));
  stub.server.closeIdleConnections();
  setTimeout(() => process.exit(0), 4_500).unref();
}
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);
