import { createServer as createHttpServer, type Server } from 'node:http';
import compression from 'compression';
import cors from 'cors';
import express, { type ErrorRequestHandler, type Request, type RequestHandler, type Response } from 'express';
import {
  JSON_CONTENT_TYPE,
  acceptsGzip,
  acceptsJson,
  authUserBody,
  cacheControl,
  cachedUser,
  contractA,
  contractError,
  createRateLimiter,
  createdUserBody,
  errorCodeForStatus,
  isMalformedPath,
  healthBody,
  isAuthorized,
  isNotModified,
  jsonRequestError,
  notRouted,
  pathnameOf,
  paths,
  pingBody,
  queryOf,
  requireObjectBody,
  testDelayMs,
  unauthorizedHeaders,
  userWithQueryJson,
  validateUserBody,
  type ContractAConfig,
  type ContractError,
} from '../contract/index.js';
import { manifests } from './manifests.js';

/** Fairness manifest of the Express target. */
export const manifest = manifests.express;

const fail = (res: Response, e: ContractError): void => {
  res.status(e.status).json(e.body);
};
/**
 * The path as sent. `req.path` comes from parseurl, which falls back to `url.parse` for some
 * targets (one with a `#`) and then turns `\` into `/`.
 */
const rawPath = (req: Request): string => pathnameOf(req.originalUrl);
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const requireAuth: RequestHandler = (req, res, next) => {
  if (isAuthorized(req.headers.authorization)) return next();
  res.set(unauthorizedHeaders);
  fail(res, contractError('unauthorized'));
};

/** 415 from the headers before body-parser runs (it would skip other types silently). */
const requireJson: RequestHandler = (req, res, next) => {
  const e = jsonRequestError(req.headers['content-type'], req.headers['content-encoding']);
  if (e) return fail(res, e);
  next();
};

const parseJson = express.json({
  limit: contractA.limits.bodyBytes,
  // Compressed request bodies are a 415 in the contract (checked above); never inflate.
  inflate: false,
  // body-parser turns an empty body into {}; the contract calls it malformed JSON (400).
  verify: (_req, _res, buf) => {
    if (buf.length === 0) throw new SyntaxError('empty body');
  },
});

const requireObject: RequestHandler = (req, res, next) => {
  const e = requireObjectBody(req.body);
  if (e) return fail(res, e);
  next();
};

const validateUser: RequestHandler = (req, res, next) => {
  const e = validateUserBody(req.body);
  if (e) return fail(res, e);
  next();
};

const created: RequestHandler = (req, res) => {
  res.status(201).json(createdUserBody(req.body as Record<string, unknown>));
};

/** body-parser errors carry a status (400/413/415); URIError from a bad `%` in a param is a 400. */
const errorHandler: ErrorRequestHandler = (err: { status?: number; statusCode?: number; type?: string }, _req, res, next) => {
  if (res.headersSent) return next(err);
  // `verify` failures (the empty body above) come out of body-parser as 403s.
  const status = err.type === 'entity.verify.failed' ? 400 : (err.status ?? err.statusCode ?? 500);
  fail(res, contractError(errorCodeForStatus(status)));
};

/**
 * Builds the Express server of Contract A: express.json, cors@2 and compression@1 on the
 * production-stack route, shared auth / validation / ETag / rate limit.
 */
export async function createServer(config: ContractAConfig): Promise<Server> {
  const limiter = createRateLimiter({ max: config.rateLimitMax, windowMs: config.rateLimitWindowMs });
  const app = express();
  app.disable('x-powered-by'); // contract: no x-powered-by
  app.set('etag', false); // Express would add a weak ETag to every body; the contract has ETags on one route only
  app.set('strict routing', true); // `/ping/` is a 404, as in the other servers
  app.set('case sensitive routing', true); // `/PING` is a 404, as in the other servers
  // res.send answers 304 by itself when `req.fresh`, e.g. `If-None-Match: *` on any GET route;
  // the contract evaluates If-None-Match on the cached route only (shared isNotModified).
  Object.defineProperty(app.request, 'fresh', { configurable: true, get: () => false });

  // The router takes `/users/..` or `/users/x\` as an id; the contract answers 400 (isMalformedPath).
  app.param('id', (req, res, next) => (isMalformedPath(rawPath(req)) ? fail(res, contractError('bad_request')) : next()));

  app.get(paths.healthz, (_req, res) => void res.json(healthBody));
  app.get(paths.ping, (_req, res) => void res.json(pingBody));
  app.get(paths.user, (req, res) => {
    // The raw query, not req.query: the contract keeps first values and first-appearance order.
    res.type(JSON_CONTENT_TYPE).send(userWithQueryJson(req.params.id as string, queryOf(req.originalUrl)));
  });
  app.get(paths.authUser, requireAuth, (req, res) => void res.json(authUserBody(req.params.id as string)));
  app.post(paths.createUser, requireJson, parseJson, requireObject, created);
  app.post(paths.authCreateUser, requireAuth, requireJson, parseJson, validateUser, created);

  app.get(paths.cachedUser, (req, res) => {
    const { body, etag } = cachedUser(req.params.id as string);
    res.set({ etag, 'cache-control': cacheControl });
    if (isNotModified(req.headers['if-none-match'], etag)) return void res.status(304).end();
    res.type(JSON_CONTENT_TYPE).send(body);
  });

  const rateLimit: RequestHandler = (req, res, next) => {
    const verdict = limiter.hit(req.ip ?? '');
    if (verdict.allowed) return next();
    res.set('retry-after', String(verdict.retryAfterSeconds));
    fail(res, contractError('too_many_requests'));
  };
  app.post(paths.rateLimitedCreateUser, rateLimit, requireJson, parseJson, validateUser, created);

  // Production stack. The contract fixes one Vary value for every answer of the route; cors with a
  // fixed origin adds none, compression appends Accept-Encoding only when it could compress.
  const stackVary: RequestHandler = (_req, res, next) => {
    res.vary(contractA.headers.stackVary);
    next();
  };
  const corsMiddleware = cors({
    origin: contractA.headers.corsAllowOrigin,
    methods: contractA.headers.corsAllowMethods,
    allowedHeaders: contractA.headers.corsAllowHeaders,
    optionsSuccessStatus: 204,
  });
  // compression@1 has no switch for br/deflate; the contract uses gzip only, so the header it
  // negotiates on is reduced to gzip-or-nothing first.
  const gzipOnly: RequestHandler = (req, _res, next) => {
    req.headers['accept-encoding'] = acceptsGzip(req.headers['accept-encoding']) ? 'gzip' : 'identity';
    next();
  };
  const compress = compression({ threshold: 0 });
  const handlerTimeout: RequestHandler = (_req, res, next) => {
    const timer = setTimeout(() => {
      if (!res.headersSent) fail(res, contractError('timeout'));
    }, config.handlerTimeoutMs);
    res.once('close', () => clearTimeout(timer));
    next();
  };
  const negotiate: RequestHandler = (req, res, next) => {
    if (acceptsJson(req.headers.accept)) return next();
    fail(res, contractError('not_acceptable'));
  };
  const stackCreated: RequestHandler = async (req, res) => {
    const delay = testDelayMs(config, req.headers[contractA.testHooks.delayHeader]);
    if (delay > 0) await sleep(delay);
    if (res.headersSent) return; // the timeout answered already
    created(req, res, () => {});
  };
  app.options(paths.stackCreateUser, stackVary, corsMiddleware);
  app.post(paths.stackCreateUser, stackVary, corsMiddleware, gzipOnly, compress, handlerTimeout, negotiate, requireAuth, requireJson, parseJson, validateUser, stackCreated);

  const unrouted = (req: Request, res: Response) => {
    // Express answers a bad escape in a route parameter with a 400 by itself; elsewhere it is ours.
    const path = rawPath(req);
    if (isMalformedPath(path)) return fail(res, contractError('bad_request'));
    const e = notRouted(path);
    if (e.allow) res.set('allow', e.allow);
    fail(res, e);
  };
  app.use(unrouted);
  app.use(errorHandler);
  // A target the router cannot parse (e.g. `//healthz?@`, whose pathname is null) skips every
  // middleware and would reach Express's own HTML 404: answer it as an unrouted request instead.
  return createHttpServer((req, res) => app(req as Request, res as Response, () => unrouted(req as Request, res as Response)));
}
