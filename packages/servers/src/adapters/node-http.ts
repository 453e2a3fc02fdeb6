import { createServer as createHttpServer, type IncomingMessage, type OutgoingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import {
  JSON_CONTENT_TYPE,
  acceptsGzip,
  acceptsJson,
  authUserBody,
  cacheControl,
  cachedUser,
  contractA,
  contractError,
  corsHeaders,
  createRateLimiter,
  createdUserBody,
  isMalformedPath,
  healthBody,
  isAuthorized,
  isNotModified,
  matchRoute,
  notRouted,
  pathnameOf,
  pingBody,
  preflightHeaders,
  queryOf,
  readJsonBody,
  requireObjectBody,
  testDelayMs,
  unauthorizedHeaders,
  userWithQueryJson,
  validateUserBody,
  type ContractAConfig,
  type ContractError,
} from '../contract/index.js';
import { manifests } from './manifests.js';

/** Fairness manifest of the node:http target (the reference every other server is compared with). */
export const manifest = manifests['node-http'];

type Body = string | object | undefined;

function send(res: ServerResponse, status: number, body: Body, headers: OutgoingHttpHeaders = {}, gzip = false): void {
  if (res.headersSent) return;
  let payload: string | Buffer | undefined;
  if (body !== undefined) {
    payload = typeof body === 'string' ? body : JSON.stringify(body);
    headers['content-type'] = JSON_CONTENT_TYPE;
    // Bodies here are a few hundred bytes at most: one synchronous call beats a stream.
    if (gzip) {
      payload = gzipSync(payload);
      headers['content-encoding'] = 'gzip';
    }
    headers['content-length'] = Buffer.byteLength(payload);
  }
  res.writeHead(status, headers);
  res.end(payload);
}

const sendError = (res: ServerResponse, e: ContractError, headers: OutgoingHttpHeaders = {}, gzip = false): void => send(res, e.status, e.body, headers, gzip);

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Builds the node:http server of Contract A: plain `http.createServer` with the shared route
 * table, the shared body reader and hand-written headers. No framework, no extra work.
 */
export async function createServer(config: ContractAConfig): Promise<Server> {
  const limiter = createRateLimiter({ max: config.rateLimitMax, windowMs: config.rateLimitWindowMs });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? '/';
    const method = req.method ?? 'GET';
    const path = pathnameOf(url);
    if (isMalformedPath(path)) return sendError(res, contractError('bad_request'));
    const match = matchRoute(path);
    if (!match?.route.methods.includes(method)) {
      const e = notRouted(path);
      return sendError(res, e, e.allow ? { allow: e.allow } : {});
    }
    let id = '';
    if (match.params.id !== undefined) {
      try {
        id = decodeURIComponent(match.params.id);
      } catch {
        return sendError(res, contractError('bad_request'));
      }
    }

    switch (match.route.id) {
      case 'healthz':
        return send(res, 200, healthBody);
      case 'ping':
        return send(res, 200, pingBody);
      case 'user':
        return send(res, 200, userWithQueryJson(id, queryOf(url)));
      case 'auth-user':
        if (!isAuthorized(req.headers.authorization)) return sendError(res, contractError('unauthorized'), { ...unauthorizedHeaders });
        return send(res, 200, authUserBody(id));
      case 'create-user': {
        const body = await readJsonBody(req);
        if (!body.ok) return sendError(res, body.error);
        const invalid = requireObjectBody(body.value);
        if (invalid) return sendError(res, invalid);
        return send(res, 201, createdUserBody(body.value as Record<string, unknown>));
      }
      case 'auth-create-user': {
        if (!isAuthorized(req.headers.authorization)) return sendError(res, contractError('unauthorized'), { ...unauthorizedHeaders });
        const body = await readJsonBody(req);
        if (!body.ok) return sendError(res, body.error);
        const invalid = validateUserBody(body.value);
        if (invalid) return sendError(res, invalid);
        return send(res, 201, createdUserBody(body.value as Record<string, unknown>));
      }
      case 'stack-create-user':
        return stack(req, res);
      case 'cached-user': {
        const { body, etag } = cachedUser(id);
        const headers = { etag, 'cache-control': cacheControl };
        if (isNotModified(req.headers['if-none-match'], etag)) return send(res, 304, undefined, headers);
        return send(res, 200, body, headers);
      }
      case 'rate-limited-create-user': {
        const verdict = limiter.hit(req.socket.remoteAddress ?? '');
        if (!verdict.allowed) return sendError(res, contractError('too_many_requests'), { 'retry-after': String(verdict.retryAfterSeconds) });
        const body = await readJsonBody(req);
        if (!body.ok) return sendError(res, body.error);
        const invalid = validateUserBody(body.value);
        if (invalid) return sendError(res, invalid);
        return send(res, 201, createdUserBody(body.value as Record<string, unknown>));
      }
    }
    return sendError(res, contractError('internal_error'));
  }

  /** Production stack: CORS + Vary on everything, gzip, 30 s budget, then 406 → 401 → 415/413/400 → 422. */
  async function stack(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method === 'OPTIONS') return send(res, 204, undefined, { ...preflightHeaders });
    const gzip = acceptsGzip(req.headers['accept-encoding']);
    const headers = (): OutgoingHttpHeaders => ({ ...corsHeaders, vary: contractA.headers.stackVary });
    const reply = (status: number, body: Body, extra: OutgoingHttpHeaders = {}): void => send(res, status, body, { ...headers(), ...extra }, gzip);
    const timer = setTimeout(() => reply(503, contractError('timeout').body), config.handlerTimeoutMs);
    res.once('close', () => clearTimeout(timer));

    if (!acceptsJson(req.headers.accept)) return reply(406, contractError('not_acceptable').body);
    if (!isAuthorized(req.headers.authorization)) return reply(401, contractError('unauthorized').body, { ...unauthorizedHeaders });
    const body = await readJsonBody(req);
    if (!body.ok) return reply(body.error.status, body.error.body);
    const invalid = validateUserBody(body.value);
    if (invalid) return reply(invalid.status, invalid.body);
    const delay = testDelayMs(config, req.headers[contractA.testHooks.delayHeader]);
    if (delay > 0) await sleep(delay);
    reply(201, createdUserBody(body.value as Record<string, unknown>));
  }

  return createHttpServer((req, res) => {
    handle(req, res).catch(() => sendError(res, contractError('internal_error')));
  });
}
