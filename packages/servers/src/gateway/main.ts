import type { AddressInfo } from 'node:net';
import { readGatewayConfig, type GatewayConfig } from './contract.js';
import { createFastifyGateway } from './fastify-gateway.js';

/**
 * Fastify gateway as its own process. Env: PORT (0 = any free port), BACKEND_URL (required),
 * GATEWAY_API_KEYS, MODEL_ID, UPSTREAM_POOL_SIZE, GATEWAY_REQUEST_LOG (0 = off; log lines go
 * to stderr). Prints `listening on http://127.0.0.1:<port>` on stdout when ready.
 */
let config: GatewayConfig;
try {
  config = readGatewayConfig();
} catch (err) {
  process.stderr.write(`fastify-gateway: ${(err as Error).message}\n`);
  process.exit(2);
}
const app = await createFastifyGateway({ config });
await app.listen({ port: config.port, host: '127.0.0.1' });
const { port } = app.server.address() as AddressInfo;
process.stdout.write(`listening on http://127.0.0.1:${port}\n`);

let closing = false;
function shutdown(): void {
  if (closing) return;
  closing = true;
  setTimeout(() => process.exit(0), 4_500).unref();
  app.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
}
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);
