import { createServer as createHttpServer, type Server } from 'node:http';
import cors from '@koa/cors';
import Router from '@koa/router';
import Koa, { type Context, type Middleware } from 'koa';
import compress from 'koa-compress';
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
  isMalformedPath,
  healthBody,
  isAuthorized,
  isNotModified,
  notRouted,
  pathnameOf,
  paths,
  pingBody,
  preflightHeaders,
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

/** Fairness manifest of the Koa target. */
export const manifest = manifests.koa;

interface State {
  body?: Record<string, unknown>;
  timedOut?: boolean;
}
type Mw = Middleware<State>;

function fail(ctx: Context, e: ContractError): void {
  ctx.status = e.status;
  ctx.body = e.body;
}
/**
 * The path as sent. `ctx.path` comes from parseurl, which falls back to `url.parse` for some
 * targets (one with a `#`) and then turns `\` into `/`.
 */
const rawPath = (ctx: Context): string => pathnameOf(ctx.originalUrl);
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const requireAuth: Mw = async (ctx, next) => {
  if (!isAuthorized(ctx.get('authorization'))) {
    ctx.set(unauthorizedHeaders);
    return fail(ctx, contractError('unauthorized'));
  }
  await next();
};

/** Koa has no body parser built in: the shared reader gives 415 / 413 / 400 like body-parser. */
const parseJson =
  (check: (body: unknown) => ContractError | undefined): Mw =>
  async (ctx, next) => {
    const read = await readJsonBody(ctx.req);
    if (!read.ok) return fail(ctx, read.error);
    const e = check(read.value);
    if (e) return fail(ctx, e);
    ctx.state.body = read.value as Record<string, unknown>;
    await next();
  };
const objectBody = parseJson(requireObjectBody);
const userBody = parseJson(validateUserBody);

const created: Mw = (ctx) => {
  ctx.status = 201;
  ctx.body = createdUserBody(ctx.state.body ?? {});
};

/**
 * Builds the Koa server of Contract A: @koa/router, @koa/cors and koa-compress on the
 * production-stack route, the shared body reader, auth, validation, ETag and rate limit.
 */
export async function createServer(config: ContractAConfig): Promise<Server> {
  const limiter = createRateLimiter({ max: config.rateLimitMax, windowMs: config.rateLimitWindowMs });
  const app = new Koa(); // Koa sends neither x-powered-by nor ETags by itself
  // Koa logs every error to stderr by default (a client that breaks the connection mid-request
  // included); the contract allows no output per request.
  app.silent = true;
  const router = new Router<State>({ strict: true, sensitive: true }); // `/ping/` and `/PING` are 404s, as elsewhere

  // @koa/router keeps a parameter with a bad %-escape undecoded and takes `..` or `x\` as an id;
  // the contract answers 400 (isMalformedPath).
  router.param('id', (_id, ctx, next) => (isMalformedPath(rawPath(ctx)) ? fail(ctx, contractError('bad_request')) : next()));

  router.get(paths.healthz, (ctx) => {
    ctx.body = healthBody;
  });
  router.get(paths.ping, (ctx) => {
    ctx.body = pingBody;
  });
  // The raw query, not ctx.query: the contract keeps first values and first-appearance order.
  router.get(paths.user, (ctx) => {
    ctx.body = userWithQueryJson(ctx.params.id ?? '', ctx.querystring);
    ctx.type = JSON_CONTENT_TYPE;
  });
  router.get(paths.authUser, requireAuth, (ctx) => {
    ctx.body = authUserBody(ctx.params.id ?? '');
  });
  router.post(paths.createUser, objectBody, created);
  router.post(paths.authCreateUser, requireAuth, userBody, created);

  router.get(paths.cachedUser, (ctx) => {
    const { body, etag } = cachedUser(ctx.params.id ?? '');
    ctx.set({ etag, 'cache-control': cacheControl });
    if (isNotModified(ctx.get('if-none-match'), etag)) {
      ctx.status = 304;
      return;
    }
    ctx.body = body;
    ctx.type = JSON_CONTENT_TYPE;
  });

  const rateLimit: Mw = async (ctx, next) => {
    const verdict = limiter.hit(ctx.ip);
    if (verdict.allowed) return next();
    ctx.set('retry-after', String(verdict.retryAfterSeconds));
    fail(ctx, contractError('too_many_requests'));
  };
  router.post(paths.rateLimitedCreateUser, rateLimit, userBody, created);

  // Production stack. @koa/cors and koa-compress each add to Vary; the contract has one value for
  // every answer of the route, written last (Koa sends the response after the chain unwinds).
  const stackVary: Mw = async (ctx, next) => {
    await next();
    ctx.set('vary', contractA.headers.stackVary);
  };
  const stackCors = cors({
    origin: contractA.headers.corsAllowOrigin,
    allowMethods: contractA.headers.corsAllowMethods,
    allowHeaders: contractA.headers.corsAllowHeaders,
  });
  // @koa/cors treats an OPTIONS without Access-Control-Request-Method as not a preflight and
  // passes it on; the contract answers every OPTIONS on the route as a preflight.
  const preflightFallback: Mw = (ctx) => {
    ctx.set(preflightHeaders);
    ctx.status = 204;
  };
  // koa-compress negotiates on its own (and throws on `*;q=0`, where nothing is acceptable); the
  // contract's rule is acceptsGzip, so the header it reads is reduced to gzip-or-identity first.
  const gzipOnly: Mw = (ctx, next) => {
    ctx.request.headers['accept-encoding'] = acceptsGzip(ctx.get('accept-encoding')) ? 'gzip' : 'identity';
    return next();
  };
  const handlerTimeout: Mw = async (ctx, next) => {
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), config.handlerTimeoutMs)));
    try {
      if ((await Promise.race([next(), expired])) === 'timeout') {
        ctx.state.timedOut = true;
        fail(ctx, contractError('timeout'));
      }
    } finally {
      clearTimeout(timer);
    }
  };
  const negotiate: Mw = async (ctx, next) => {
    if (!acceptsJson(ctx.get('accept') || undefined)) return fail(ctx, contractError('not_acceptable'));
    await next();
  };
  router.options(paths.stackCreateUser, stackVary, stackCors, preflightFallback);
  router.post(
    paths.stackCreateUser,
    stackVary,
    stackCors,
    gzipOnly,
    compress({ threshold: contractA.compression.thresholdBytes, br: false, deflate: false, zstd: false } as compress.CompressOptions),
    handlerTimeout,
    negotiate,
    requireAuth,
    userBody,
    async (ctx, next) => {
      const delay = testDelayMs(config, ctx.get(contractA.testHooks.delayHeader) || undefined);
      if (delay > 0) await sleep(delay);
      if (ctx.state.timedOut) return; // the timeout answered already
      await created(ctx, next);
    },
  );

  // An unexpected exception gets the contract's JSON 500, not Koa's text/plain default.
  app.use(async (ctx, next) => {
    try {
      await next();
    } catch {
      fail(ctx, contractError('internal_error'));
    }
  });
  app.use(router.routes());
  app.use((ctx) => {
    const path = rawPath(ctx);
    if (isMalformedPath(path)) return fail(ctx, contractError('bad_request'));
    const e = notRouted(path);
    if (e.allow) ctx.set('allow', e.allow);
    fail(ctx, e);
  });
  return createHttpServer(app.callback());
}
