import { readFileSync } from 'node:fs';

/** Error codes of Contract A, each with its HTTP status (see `contractA.errors`). */
export type ErrorCode =
  | 'bad_request'
  | 'unauthorized'
  | 'not_found'
  | 'method_not_allowed'
  | 'not_acceptable'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'validation_failed'
  | 'too_many_requests'
  | 'internal_error'
  | 'timeout';

/** Processing steps a route applies, in order (documentation for other languages; adapters wire them by hand). */
type RouteStep = 'query' | 'auth' | 'parse' | 'validate' | 'cors' | 'compress' | 'timeout' | 'negotiate' | 'etag' | 'rate-limit';

/** One route of the contract; `path` uses `:param` segments, a syntax every Node router accepts. */
export interface ContractRoute {
  id: string;
  path: string;
  /** Methods answered on this path, alphabetical; `Allow` on a 405 is `methods.join(', ')`. */
  methods: string[];
  steps: RouteStep[];
}

/** A scenario as stored in the JSON file (the TypeScript side adds hooks, see `contract-a-scenarios.ts`). */
export interface ContractScenario {
  name: string;
  description: string;
  request: { method: 'GET' | 'POST'; path: string; headers?: Record<string, string>; body?: string };
  expect: { status: number | number[]; json?: unknown; headers?: Record<string, string> };
  load?: { connections: number | number[] };
  /** Learn an ETag by one GET of this path before the load, then send it as `If-None-Match`. */
  prepare?: { learnEtagFrom: string };
}

/** The machine-readable Contract A (`packages/servers/contract/contract-a.json`). */
export interface ContractA {
  contract: 'A';
  version: number;
  description: string;
  token: string;
  payload: { name: string; email: string; role: string };
  createdId: string;
  contentType: string;
  /** `jsonDepth`: deepest nesting of a JSON request body (the body itself is level 1); deeper → 400. */
  limits: { bodyBytes: number; jsonDepth: number; handlerTimeoutMs: number; rateLimit: { max: number; windowMs: number } };
  env: { port: string; rateLimitMax: string; rateLimitWindowMs: string; handlerTimeoutMs: string; testHooks: string };
  testHooks: { enabledValue: string; delayHeader: string; delayRoute: string };
  validationSchema: Record<string, unknown>;
  errors: Record<ErrorCode, number>;
  headers: {
    wwwAuthenticate: string;
    cacheControl: string;
    stackVary: string;
    corsAllowOrigin: string;
    corsAllowMethods: string;
    corsAllowHeaders: string;
  };
  compression: { encoding: 'gzip'; thresholdBytes: number };
  comparedHeaders: string[];
  routes: ContractRoute[];
  scenarios: ContractScenario[];
}

/**
 * Absolute URL of the contract file. The same relative hop works from `src/contract/` (tests)
 * and `dist/contract/` (built servers), and the file stays outside `src` so that Python and
 * Swift servers can read it without a TypeScript toolchain.
 */
export const contractAFile = new URL('../../contract/contract-a.json', import.meta.url);

/**
 * Contract A, read once at module load.
 *
 * @example
 * contractA.routes.find((r) => r.id === 'ping')?.methods // ['GET', 'HEAD']
 */
export const contractA: ContractA = Object.freeze(JSON.parse(readFileSync(contractAFile, 'utf8')) as ContractA);

/** `content-type` of every JSON response. */
export const JSON_CONTENT_TYPE = contractA.contentType;

/** Looks up a route by id; throws on a typo so that an adapter cannot silently wire nothing. */
function route(id: string): ContractRoute {
  const found = contractA.routes.find((r) => r.id === id);
  if (!found) throw new Error(`contract-a.json has no route "${id}"`);
  return found;
}

/** Route paths by id, for wiring adapters (`paths.ping === '/ping'`). */
export const paths = {
  healthz: route('healthz').path,
  ping: route('ping').path,
  user: route('user').path,
  authUser: route('auth-user').path,
  createUser: route('create-user').path,
  authCreateUser: route('auth-create-user').path,
  stackCreateUser: route('stack-create-user').path,
  cachedUser: route('cached-user').path,
  rateLimitedCreateUser: route('rate-limited-create-user').path,
} as const;
