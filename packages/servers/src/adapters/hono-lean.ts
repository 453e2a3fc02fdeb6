import type { Server } from 'node:http';
import type { ContractAConfig } from '../contract/index.js';
import { createHonoServer } from './hono.js';
import { manifests } from './manifests.js';

/** Fairness manifest of the `hono-lean` target (what differs from `hono` is named in it). */
export const manifest = manifests['hono-lean'];

/**
 * The `hono` server with one change: the 1 MiB body-size check reads the node `IncomingMessage`
 * instead of hono's bodyLimit, so JSON bodies stay on @hono/node-server's direct read.
 */
export function createServer(config: ContractAConfig): Promise<Server> {
  return createHonoServer(config, { bodyLimit: 'incoming' });
}
