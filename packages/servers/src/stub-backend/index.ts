import { fileURLToPath } from 'node:url';
import { DEFAULTS, type ServiceSpec } from '@benchsuite/sdk';

export { createStubBackend, estimateTokens, latencyMs, type StubBackend, type StubBackendOptions, type StubBackendStats } from './stub.js';

/** Absolute path of the stub's process entry point: the compiled `dist/stub-backend/main.js` (from src/ too). */
export const stubBackendMain = fileURLToPath(new URL('../../dist/stub-backend/main.js', import.meta.url));

/**
 * The stub backend as an SDK service: started per block before a gateway, which gets its
 * URL through `${services.backend.url}`.
 *
 * @example
 * defineTarget({ kind: 'process', name: 'gw', command: […], services: { backend: stubBackendService },
 *   env: { BACKEND_URL: '${services.backend.url}' } })
 */
export const stubBackendService = {
  command: [process.execPath, stubBackendMain],
  env: {},
  ready: { type: 'stdout' },
  readyTimeoutMs: DEFAULTS.readyTimeoutMs,
} as const satisfies ServiceSpec;
