import type { Server } from 'node:http';
import fastifyCompress from '@fastify/compress';
import fastifyCors, { type FastifyCorsOptions } from '@fastify/cors';
import Fastify, { type FastifyReply, type FastifyRequest, type onRequestHookHandler, type onSendHookHandler, type preValidationHookHandler } from 'fastify';
import {
  JSON_CONTENT_TYPE,
  acceptsGzip,
  acceptsJson,
  ajvOptions,
  answerClientError,
  authUserBody,
  cacheControl,
  cachedUser,
  contractA,
  contractError,
  createRateLimiter,
  createdUserBody,
  errorCodeForStatus,
  errorFromAjv,
  healthBody,
  isAuthorized,
  isMalformedPath,
  isNotModified,
  jsonDepthError,
  jsonRequestError,
  matchRoute,
  notRouted,
  pathnameOf,
  paths,
  pingBody,
  queryOf,
  testDelayMs,
  unauthorizedHeaders,
  userWithQueryJson,
  type ContractAConfig,
  unroutedRawPath,
  type ContractError,
} from '../contract/index.js';
import { manifests } from './manifests.js';

/** Fairness manifest of the Fastify target. */
export const manifest = manifests.fastify;

type IdRequest = FastifyRequest<{ Params: { id: string } }>;

const fail = (reply: FastifyReply, e: ContractError): FastifyReply => reply.code(e.status).send(e.body);
/** Where `rewriteUrl` sends a path the contract does not route as sent: no route has it. */
const UNROUTED_URL = '/-unrouted-';
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const requireAuth: onRequestHookHandler = async (request, reply) => {
  if (isAuthorized(request.headers.authorization)) return;
  return fail(reply.headers(unauthorizedHeaders), contractError('unauthorized'));
};

/** 415 from the headers, before Fastify reads the body (its own check misses charset, encoding and empty bodies). */
const requireJson: onRequestHookHandler = async (request, reply) => {
  const e = jsonRequestError(request.headers['content-type'], request.headers['content-encoding']);
  if (e) return fail(reply, e);
};

/**
 * 400 for a body nested deeper than the contract allows, after Fastify's parser and before its
 * Ajv (the shared check that `validateUserBody` makes in the other servers).
 */
const limitDepth: preValidationHookHandler = async (request, reply) => {
  const e = jsonDepthError(request.body);
  if (e) return fail(reply, e);
};

const objectSchema = { body: { type: 'object' } } as const;
const userSchema = { body: contractA.validationSchema } as const;

const created = async (request: FastifyRequest, reply: FastifyReply) => reply.code(201).send(createdUserBody(request.body as Record<string, unknown>));

/**
 * Builds the Fastify server of Contract A: built-in JSON parser and Ajv schema validation,
 * @fastify/cors and @fastify/compress on the production-stack route, hooks for the shared checks.
 */
export async function createServer(config: ContractAConfig): Promise<Server> {
  const limiter = createRateLimiter({ max: config.rateLimitMax, windowMs: config.rateLimitWindowMs });
  const app = Fastify({
    logger: false, // no log line per request
    bodyLimit: contractA.limits.bodyBytes,
    // The contract treats `__proto__` / `constructor` keys as plain data (echoed like any key);
    // secure-json-parse's default would answer 400 where no other server does.
    onProtoPoisoning: 'ignore',
    onConstructorPoisoning: 'ignore',
    // Default `coerceTypes: 'array'` would accept `"name": 1`; see `ajvOptions`.
    ajv: { customOptions: ajvOptions },
    // find-my-way answers 414 above 100 characters; the contract has no parameter limit.
    routerOptions: { maxParamLength: 16_384 },
    // find-my-way decodes %-escapes before matching (`/%70ing` would find `/ping`), takes
    // `/users/..` as an id and lets `:id` match an empty segment (`/users/`); such paths go to
    // the not-found handler, which answers from `request.originalUrl` (the path as sent).
    rewriteUrl: (req) => {
      const url = req.url ?? '/';
      const path = pathnameOf(url);
      return unroutedRawPath(path) || (path.endsWith('/') && !matchRoute(path)) ? UNROUTED_URL : url;
    },
    // Router-level errors (a malformed %-escape in the path → FST_ERR_BAD_URL) in the contract's format.
    frameworkErrors: (error, _request, reply) => fail(reply, contractError(errorCodeForStatus(error.statusCode ?? 500))),
    // Requests Node's parser rejects (a body longer than its Content-Length…) get Node's own bare
    // answer, as in the other servers, instead of Fastify's JSON one.
    clientErrorHandler: answerClientError,
  });

  const notFound = (request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const path = pathnameOf(request.originalUrl);
    if (isMalformedPath(path)) return fail(reply, contractError('bad_request'));
    const e = notRouted(path);
    if (e.allow) reply.header('allow', e.allow);
    return fail(reply, e);
  };
  /** Is this a method and path the contract routes (as sent)? */
  const routed = (request: FastifyRequest): boolean => matchRoute(pathnameOf(request.originalUrl))?.route.methods.includes(request.method) ?? false;
  // Fastify's error format (statusCode/code/message) is replaced by the contract's.
  app.setErrorHandler((error: { validation?: unknown; statusCode?: number }, request, reply) => {
    // Fastify parses a body even on its way to the not-found handler (`DELETE /ping` with an
    // empty JSON body fails there) and to @fastify/cors's catch-all OPTIONS route; the contract
    // decides 404/405 without looking at the body.
    if (!routed(request)) return notFound(request, reply);
    if (Array.isArray(error.validation)) return fail(reply, errorFromAjv(error.validation));
    return fail(reply, contractError(errorCodeForStatus(error.statusCode ?? 500)));
  });
  app.setNotFoundHandler(notFound);

  app.get(paths.healthz, async () => healthBody);
  app.get(paths.ping, async () => pingBody);
  // The raw query, not request.query: the contract keeps first values and first-appearance order.
  app.get(paths.user, async (request: IdRequest, reply) => {
    return reply.type(JSON_CONTENT_TYPE).send(userWithQueryJson(request.params.id, queryOf(request.url)));
  });
  app.get(paths.authUser, { onRequest: requireAuth }, async (request: IdRequest, _reply) => {
    return authUserBody(request.params.id);
  });
  app.post(paths.createUser, { onRequest: requireJson, preValidation: limitDepth, schema: objectSchema }, created);
  app.post(paths.authCreateUser, { onRequest: [requireAuth, requireJson], preValidation: limitDepth, schema: userSchema }, created);

  app.get(paths.cachedUser, async (request: IdRequest, reply) => {
    const { body, etag } = cachedUser(request.params.id);
    reply.headers({ etag, 'cache-control': cacheControl });
    if (isNotModified(request.headers['if-none-match'], etag)) return reply.code(304).send();
    return reply.type(JSON_CONTENT_TYPE).send(body);
  });

  const rateLimit: onRequestHookHandler = async (request, reply) => {
    const verdict = limiter.hit(request.ip);
    if (verdict.allowed) return;
    return fail(reply.header('retry-after', String(verdict.retryAfterSeconds)), contractError('too_many_requests'));
  };
  app.post(paths.rateLimitedCreateUser, { onRequest: [rateLimit, requireJson], preValidation: limitDepth, schema: userSchema }, created);

  // Production stack, in its own encapsulated context: the CORS and compression hooks run for
  // these routes only, not for every request of the server.
  await app.register(async function productionStack(stack) {
    // CORS is off in this context (origin: false) and switched on by route config: its catch-all
    // OPTIONS route then hands every other OPTIONS request to the 404/405 handler.
    await stack.register(fastifyCors, { origin: false });
    await stack.register(fastifyCompress, {
      global: false, // only routes with a `compress` option compress
      globalDecompression: false, // compressed request bodies are a 415 in the contract
    });
    // @fastify/compress appends its onSend hook to the route and adds a lower-case
    // `accept-encoding` to Vary unless it finds that exact string; this hook runs after it and
    // writes the contract's one Vary value (also on preflight and on uncompressed answers).
    const stackVary: onSendHookHandler = async (_request, reply, payload) => {
      reply.header('vary', contractA.headers.stackVary);
      return payload;
    };
    stack.addHook('onRoute', (route) => {
      if ((route.config as { stack?: boolean } | undefined)?.stack) route.onSend = [...[route.onSend ?? []].flat(), stackVary];
    });
    const handlerTimeout: onRequestHookHandler = async (_request, reply) => {
      const timer = setTimeout(() => {
        if (!reply.sent) fail(reply, contractError('timeout'));
      }, config.handlerTimeoutMs);
      reply.raw.once('close', () => clearTimeout(timer));
    };
    // @fastify/compress negotiates on its own (`gzip;q=0, *` gets gzip); the contract's rule is
    // acceptsGzip, so the header it reads is reduced to gzip-or-identity first, as in Express.
    const gzipOnly: onRequestHookHandler = async (request) => {
      request.headers['accept-encoding'] = acceptsGzip(request.headers['accept-encoding']) ? 'gzip' : 'identity';
    };
    const negotiate: onRequestHookHandler = async (request, reply) => {
      if (!acceptsJson(request.headers.accept)) return fail(reply, contractError('not_acceptable'));
    };
    const routeConfig = {
      stack: true,
      cors: {
        origin: contractA.headers.corsAllowOrigin,
        methods: contractA.headers.corsAllowMethods,
        allowedHeaders: contractA.headers.corsAllowHeaders,
        strictPreflight: false, // every OPTIONS on the route is a preflight, as in the other servers
        optionsSuccessStatus: 204,
      } satisfies FastifyCorsOptions,
    };
    // The preflight is answered by @fastify/cors in its onRequest hook; this handler never runs.
    stack.options(paths.stackCreateUser, { config: routeConfig }, async (_request, reply) => reply.callNotFound());
    stack.post(
      paths.stackCreateUser,
      {
        config: routeConfig,
        // Route options replace the plugin's, defaults included (threshold 1024): all are given.
        compress: { threshold: contractA.compression.thresholdBytes, encodings: [contractA.compression.encoding] },
        onRequest: [gzipOnly, handlerTimeout, negotiate, requireAuth, requireJson],
        preValidation: limitDepth,
        schema: userSchema,
      },
      async (request, reply) => {
        const delay = testDelayMs(config, request.headers[contractA.testHooks.delayHeader]);
        if (delay > 0) await sleep(delay);
        if (reply.sent) return reply; // the timeout answered already
        return created(request, reply);
      },
    );
  });

  await app.ready();
  return app.server;
}
