import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http';
import { RequestError, getRequestListener, type HttpBindings } from '@hono/node-server';
import { getConnInfo } from '@hono/node-server/conninfo';
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { compress } from 'hono/compress';
import { cors } from 'hono/cors';
import { HTTPException } from 'hono/http-exception';
import { timeout } from 'hono/timeout';
import { validator } from 'hono/validator';
import {
  JSON_CONTENT_TYPE,
  acceptsJson,
  authUserBody,
  cacheControl,
  cachedUser,
  contractA,
  contractError,
  createRateLimiter,
  createdUserBody,
  errorCodeForStatus,
  hasMalformedEscape,
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
  unroutedRawPath,
  type ContractError,
} from '../contract/index.js';
import { manifests } from './manifests.js';

/** Fairness manifest of the Hono target. */
export const manifest = manifests.hono;

/**
 * How the 1 MiB body-size check is made: `'body-limit'` is hono's own middleware (the idiomatic
 * `hono` target), `'incoming'` looks only at @hono/node-server's node `IncomingMessage`
 * (the `hono-lean` target). Everything else is the same server.
 */
export type HonoBodyLimit = 'body-limit' | 'incoming';

/** Options of `createHonoServer`. */
export interface HonoServerOptions {
  bodyLimit: HonoBodyLimit;
}

type Env = { Bindings: HttpBindings };
type Status = 200 | 201 | 400 | 401 | 404 | 405 | 406 | 413 | 415 | 422 | 429 | 500 | 503;

// Hono's c.json says `application/json`; the contract adds the charset.
const json = (c: Context, status: number, body: unknown, headers: Record<string, string> = {}): Response => c.json(body as object, status as Status, { ...headers, 'Content-Type': JSON_CONTENT_TYPE });
const fail = (c: Context, e: ContractError, headers: Record<string, string> = {}): Response => json(c, e.status, e.body, headers);
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const requireAuth: MiddlewareHandler<Env> = async (c, next) => {
  if (!isAuthorized(c.req.header('authorization'))) return fail(c, contractError('unauthorized'), unauthorizedHeaders);
  await next();
};

/** 415 from the headers before the body is touched (hono's validator would skip other types silently). */
const requireJson: MiddlewareHandler<Env> = async (c, next) => {
  const e = jsonRequestError(c.req.header('content-type'), c.req.header('content-encoding'));
  if (e) return fail(c, e);
  await next();
};

/** Raw pathname of the request (Hono's `c.req.path` is already decoded where it could be). */
const rawPath = (c: Context): string => pathnameOf(c.req.url.slice(c.req.url.indexOf('/', 8)));

/** Hono keeps a parameter with a bad %-escape undecoded; the contract answers 400. */
const validId: MiddlewareHandler<Env> = async (c, next) => {
  if (c.req.param('id')?.includes('%') && hasMalformedEscape(rawPath(c))) return fail(c, contractError('bad_request'));
  await next();
};

const tooLarge = (c: Context): Response => fail(c, contractError('payload_too_large'));

/**
 * hono's bodyLimit reads `c.req.raw.body`: @hono/node-server then builds a full web `Request`
 * with a web-stream body, and `c.req.json()` reads through that stream instead of the
 * node-server's direct read of the `IncomingMessage` (about 3× the CPU per JSON request on
 * Node 20). This check never touches the web Request. A declared Content-Length is final: node's
 * parser delivers no more bytes than it declares. A chunked body is read here, capped, and
 * handed over as `incoming.rawBody`, which the node-server's body read takes before anything else.
 */
const incomingBodyLimit =
  (maxSize: number): MiddlewareHandler<Env> =>
  async (c, next) => {
    const incoming = c.env.incoming as IncomingMessage & { rawBody?: Buffer };
    const declared = incoming.headers['content-length'];
    if (declared !== undefined && incoming.headers['transfer-encoding'] === undefined) {
      if (Number(declared) > maxSize) return tooLarge(c);
      return next();
    }
    const body = await readCapped(incoming, maxSize);
    if (body === undefined) return tooLarge(c);
    incoming.rawBody = body;
    return next();
  };

/** The whole body, or undefined once it passes `maxSize` (the rest is then discarded unread). */
function readCapped(incoming: IncomingMessage, maxSize: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= maxSize) {
        chunks.push(chunk);
        return;
      }
      incoming.off('data', onData);
      incoming.resume(); // keep the connection usable for the 413
      resolve(undefined);
    };
    incoming.on('data', onData);
    incoming.once('end', () => resolve(Buffer.concat(chunks, size)));
    incoming.once('error', reject);
  });
}

/** Malformed JSON makes hono's validator throw a 400 HTTPException, mapped in `onError`. */
const objectBody = validator('json', (value: unknown, c) => {
  const e = requireObjectBody(value);
  return e ? fail(c, e) : (value as Record<string, unknown>);
});
const userBody = validator('json', (value: unknown, c) => {
  const e = validateUserBody(value);
  return e ? fail(c, e) : (value as Record<string, unknown>);
});
const created = (c: Context): Response => json(c, 201, createdUserBody(c.req.valid('json' as never) as Record<string, unknown>));

/**
 * Builds the Hono server of Contract A (on @hono/node-server): hono's validator, bodyLimit,
 * cors, compress and timeout middleware; shared auth / validation / ETag / rate limit.
 */
export function createServer(config: ContractAConfig): Promise<Server> {
  return createHonoServer(config, { bodyLimit: 'body-limit' });
}

/** What differs between the runtimes a Hono app of Contract A runs on (Node, Bun, Deno). */
export interface HonoRuntimeHooks {
  /** The body-size check (hono's own bodyLimit anywhere; a node-only one for hono-lean). */
  limitBody: MiddlewareHandler;
  /** The request-target as sent, before URL normalisation (Node has it; Bun and Deno give only the parsed URL). */
  rawTarget: (c: Context) => string;
  /** The client's address, for the rate limiter (each runtime's conninfo helper). */
  clientAddress: (c: Context) => string;
}

/** hono's own bodyLimit with the contract's 413: the idiomatic check, on every runtime. */
export const honoBodyLimit = (): MiddlewareHandler => bodyLimit({ maxSize: contractA.limits.bodyBytes, onError: tooLarge });

/**
 * The Hono app of Contract A, runtime-neutral: hono's validator, bodyLimit, cors, compress and
 * timeout middleware; shared auth / validation / ETag / rate limit. Each runtime's entry point
 * serves its `fetch` (Node: @hono/node-server; Bun: Bun.serve; Deno: Deno.serve).
 */
// biome-ignore lint/suspicious/noExplicitAny: the env differs per runtime (node bindings, Bun's server, Deno's info).
export function createHonoApp(config: ContractAConfig, hooks: HonoRuntimeHooks): Hono<any> {
  const limitBody = hooks.limitBody;
  const limiter = createRateLimiter({ max: config.rateLimitMax, windowMs: config.rateLimitWindowMs });
  // biome-ignore lint/suspicious/noExplicitAny: see above.
  const app = new Hono<any>(); // strict routing and case sensitivity are Hono's defaults

  // @hono/node-server resolves dot segments (WHATWG URL) and hono's router decodes %-escapes
  // before matching; the contract routes the path as sent (shared unroutedRawPath).
  app.use(async (c, next) => {
    const e = unroutedRawPath(pathnameOf(hooks.rawTarget(c)));
    if (e) return fail(c, e);
    await next();
  });

  app.get(paths.healthz, (c) => json(c, 200, healthBody));
  app.get(paths.ping, (c) => json(c, 200, pingBody));
  // The raw query, not c.req.queries(): the contract keeps first values and first-appearance order.
  app.get(paths.user, validId, (c) => c.body(userWithQueryJson(c.req.param('id') ?? '', queryOf(c.req.url)), 200, { 'Content-Type': JSON_CONTENT_TYPE }));
  app.get(paths.authUser, validId, requireAuth, (c) => json(c, 200, authUserBody(c.req.param('id') ?? '')));
  app.post(paths.createUser, requireJson, limitBody, objectBody, created);
  app.post(paths.authCreateUser, requireAuth, requireJson, limitBody, userBody, created);

  app.get(paths.cachedUser, validId, (c) => {
    const { body, etag } = cachedUser(c.req.param('id') ?? '');
    const headers = { etag, 'cache-control': cacheControl };
    if (isNotModified(c.req.header('if-none-match'), etag)) return c.body(null, 304, headers);
    return c.body(body, 200, { ...headers, 'Content-Type': JSON_CONTENT_TYPE });
  });

  const rateLimit: MiddlewareHandler = async (c, next) => {
    const verdict = limiter.hit(hooks.clientAddress(c));
    if (!verdict.allowed) return fail(c, contractError('too_many_requests'), { 'retry-after': String(verdict.retryAfterSeconds) });
    await next();
  };
  app.post(paths.rateLimitedCreateUser, rateLimit, requireJson, limitBody, userBody, created);

  // Production stack. hono's cors adds `Vary: Access-Control-Request-Headers` to preflights and
  // compress adds Accept-Encoding only when it could compress; the contract has one Vary value
  // for every answer of the route, written last.
  const stackVary: MiddlewareHandler<Env> = async (c, next) => {
    await next();
    c.res.headers.set('vary', contractA.headers.stackVary);
  };
  const stackCors = cors({
    origin: contractA.headers.corsAllowOrigin,
    allowMethods: contractA.headers.corsAllowMethods.split(','),
    allowHeaders: contractA.headers.corsAllowHeaders.split(','),
  });
  const negotiate: MiddlewareHandler<Env> = async (c, next) => {
    if (!acceptsJson(c.req.header('accept'))) return fail(c, contractError('not_acceptable'));
    await next();
  };
  const handlerTimeout = timeout(config.handlerTimeoutMs, (c) => new HTTPException(503, { res: fail(c, contractError('timeout')) }));
  app.options(paths.stackCreateUser, stackVary, stackCors);
  app.post(
    paths.stackCreateUser,
    stackVary,
    stackCors,
    compress({ encoding: contractA.compression.encoding, threshold: contractA.compression.thresholdBytes }),
    handlerTimeout,
    negotiate,
    requireAuth,
    requireJson,
    limitBody,
    userBody,
    async (c) => {
      const delay = testDelayMs(config, c.req.header(contractA.testHooks.delayHeader));
      if (delay > 0) await sleep(delay);
      return created(c);
    },
  );

  app.notFound((c) => {
    if (hasMalformedEscape(rawPath(c))) return fail(c, contractError('bad_request'));
    const e = notRouted(rawPath(c));
    return fail(c, e, e.allow ? { allow: e.allow } : {});
  });
  app.onError((err, c) => {
    if (err instanceof HTTPException) return err.res ? err.getResponse() : fail(c, contractError(errorCodeForStatus(err.status)));
    return fail(c, contractError('internal_error'));
  });

  return app;
}

/** The Hono server on @hono/node-server with the body-size check chosen by `options` (see `HonoBodyLimit`). */
export async function createHonoServer(config: ContractAConfig, options: HonoServerOptions): Promise<Server> {
  const app = createHonoApp(config, {
    limitBody: options.bodyLimit === 'body-limit' ? honoBodyLimit() : (incomingBodyLimit(contractA.limits.bodyBytes) as MiddlewareHandler),
    rawTarget: (c) => (c.env as HttpBindings).incoming.url ?? '/',
    clientAddress: (c) => getConnInfo(c).remote.address ?? '',
  });
  // What createAdaptorServer does, plus an errorHandler: a request-target that @hono/node-server
  // cannot turn into a URL (a `\` in the path) gets the contract's JSON 400, not a bare one.
  const contractResponse = (e: ContractError): Response => new Response(JSON.stringify(e.body), { status: e.status, headers: { 'content-type': JSON_CONTENT_TYPE } });
  return createHttpServer(getRequestListener(app.fetch, { errorHandler: (err) => contractResponse(contractError(err instanceof RequestError ? 'bad_request' : 'internal_error')) }));
}
