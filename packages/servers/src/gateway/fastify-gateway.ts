import { PassThrough } from 'node:stream';
import { once } from 'node:events';
import Fastify, { LogController, type FastifyError, type FastifyInstance, type FastifyPluginAsync, type FastifyReply, type FastifyRequest } from 'fastify';
import { Counter, Histogram, Registry } from 'prom-client';
import { Pool } from 'undici';
import { SpanKind, trace, type Span } from '@opentelemetry/api';
import {
  checkApiKey,
  contractB,
  errorBody,
  fromOpenAIResponse,
  gatewayError,
  GatewayHttpError,
  healthzBody,
  isJsonContentType,
  modelsBody,
  noRouteError,
  routeLabel,
  StreamTranslator,
  toOpenAIRequest,
  validateMessagesRequest,
  type GatewayConfig,
} from './contract.js';

/**
 * Contract B on Fastify. The middleware chain is built from Fastify's own pieces, in the
 * contract's order: request log, metrics and tracing as `onRequest` hooks registered first
 * (each finishes on the response's `close`, which also fires for aborted streams), the error
 * mapper as the error and not-found handlers, then auth as an `onRequest` hook scoped to the
 * `/v1` plugin (so it only runs for matched `/v1/*` routes).
 */
export interface FastifyGatewayOptions {
  config: GatewayConfig;
}

declare module 'fastify' {
  interface FastifyRequest {
    gatewayStart: bigint;
  }
}

const JSON_TYPE = contractB.headers.json;

const pathOf = (url: string): string => {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
};
const routeOf = (request: FastifyRequest): string => request.routeOptions.url ?? routeLabel(pathOf(request.url));
const elapsedSeconds = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e9;

/** Log one line per request (pino, Fastify's logger) once the response is closed. */
const requestLog: FastifyPluginAsync = async (app) => {
  app.addHook('onRequest', async (request, reply) => {
    reply.raw.once('close', () => {
      request.log.info({ method: request.method, path: pathOf(request.url), status: reply.statusCode, durationMs: Number((elapsedSeconds(request.gatewayStart) * 1e3).toFixed(3)) }, 'request');
    });
  });
};

/** prom-client counter + histogram with the contract's names, labels and buckets. */
function metricsPlugin(registry: Registry): FastifyPluginAsync {
  const m = contractB.metrics;
  const labelNames = m.labels as [string, ...string[]];
  const counter = new Counter({ name: m.counter.sample, help: m.counter.help, labelNames, registers: [registry] });
  const histogram = new Histogram({ name: m.histogram.family, help: m.histogram.help, labelNames, buckets: m.buckets, registers: [registry] });
  return async (app) => {
    app.addHook('onRequest', async (request, reply) => {
      reply.raw.once('close', () => {
        const labels = { http_route: routeOf(request), http_request_method: request.method, http_response_status_code: String(reply.statusCode) };
        counter.inc(labels);
        histogram.observe(labels, elapsedSeconds(request.gatewayStart));
      });
    });
  };
}

/** One span per request through the OpenTelemetry API (no SDK registered: a no-op tracer). */
const tracing: FastifyPluginAsync = async (app) => {
  const tracer = trace.getTracer('benchsuite-gateway');
  app.addHook('onRequest', async (request, reply) => {
    const span: Span = tracer.startSpan(`${request.method} ${routeOf(request)}`, {
      kind: SpanKind.SERVER,
      attributes: { 'http.request.method': request.method, 'url.path': pathOf(request.url), 'http.route': routeOf(request) },
    });
    reply.raw.once('close', () => {
      span.setAttribute('http.response.status_code', reply.statusCode);
      span.end();
    });
  });
};

/** Map every error (ours, Fastify's body parser, unexpected) to a contract error body. */
function toGatewayError(err: FastifyError | Error): GatewayHttpError {
  if (err instanceof GatewayHttpError) return err;
  const code = (err as FastifyError).code;
  switch (code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return gatewayError('payloadTooLarge');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' ? gatewayError('unsupportedMediaType') : gatewayError('invalidJson');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return gatewayError('invalidJson');
  }
  // Fastify's JSON parser reports syntax errors as a 400 without a specific code.
  if ((err as FastifyError).statusCode === 400 && err instanceof SyntaxError) return gatewayError('invalidJson');
  return gatewayError('internal');
}

function sendError(reply: FastifyReply, err: GatewayHttpError): FastifyReply {
  return reply.code(err.status).headers(err.headers).type(JSON_TYPE).send(errorBody(err.type, err.message));
}

/**
 * Build the Fastify gateway (not listening yet). `close()` also closes the upstream pool.
 *
 * @example
 * const app = await createFastifyGateway({ config: readGatewayConfig() });
 * await app.listen({ port: 0, host: '127.0.0.1' });
 */
export async function createFastifyGateway({ config }: FastifyGatewayOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: config.requestLog ? { level: 'info', stream: process.stderr } : false,
    // Fastify's own two lines per request are off: the request-log hook writes exactly one.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: contractB.limits.maxBodyBytes,
    exposeHeadRoutes: false,
    // Parity with the Python and Swift gateways, which ignore such keys: drop them, do not 400.
    onProtoPoisoning: 'remove',
    onConstructorPoisoning: 'remove',
    return503OnClosing: false,
  });
  // Only JSON bodies are parsed; any other media type is a 415 before the body is read.
  app.removeContentTypeParser(['text/plain']);

  const registry = new Registry();
  const pool = new Pool(config.backendUrl, {
    connections: config.upstreamPoolSize,
    pipelining: 1,
    keepAliveTimeout: 30_000,
    headersTimeout: config.upstreamTimeoutMs,
    bodyTimeout: config.upstreamTimeoutMs,
  });
  app.addHook('onClose', async () => {
    await pool.close();
  });

  app.decorateRequest('gatewayStart', 0n);
  app.addHook('onRequest', async (request) => {
    request.gatewayStart = process.hrtime.bigint();
  });

  // The chain, outermost first. fastify-plugin would be the usual wrapper; the hooks are
  // registered on the root instance directly so they also cover the not-found handler.
  if (config.requestLog) await requestLog(app, {});
  await metricsPlugin(registry)(app, {});
  await tracing(app, {});
  app.setErrorHandler((err, _request, reply) => sendError(reply, toGatewayError(err instanceof Error ? err : new Error(String(err)))));
  app.setNotFoundHandler((request, reply) => sendError(reply, noRouteError(pathOf(request.url))));

  app.get('/healthz', (_request, reply) => reply.type(JSON_TYPE).send(healthzBody));
  app.get('/metrics', async (_request, reply) => reply.type(contractB.headers.metrics).send(await registry.metrics()));

  const models = modelsBody(config.modelId);
  await app.register(
    async (v1) => {
      v1.addHook('onRequest', async (request) => {
        const header = (name: string): string | undefined => {
          const v = request.headers[name];
          return Array.isArray(v) ? v[0] : v;
        };
        const failure = checkApiKey(header('x-api-key'), header('authorization'), config.apiKeys);
        if (failure) throw gatewayError(failure);
      });
      v1.get('/models', (_request, reply) => reply.type(JSON_TYPE).send(models));
      v1.post('/messages', (request, reply) => messages(request, reply, pool));
    },
    { prefix: '/v1' },
  );
  return app;
}

async function messages(request: FastifyRequest, reply: FastifyReply, pool: Pool): Promise<FastifyReply> {
  if (!isJsonContentType(request.headers['content-type'])) throw gatewayError('unsupportedMediaType');
  if (request.body === undefined) throw gatewayError('invalidJson');
  const v = validateMessagesRequest(request.body);
  if (!v.ok) throw new GatewayHttpError(400, 'invalid_request_error', v.message);
  const req = v.value;
  const abort = new AbortController();
  let upstream: Awaited<ReturnType<Pool['request']>>;
  try {
    upstream = await pool.request({
      path: contractB.mapping.upstreamPath,
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: req.stream ? 'text/event-stream' : 'application/json' },
      body: JSON.stringify(toOpenAIRequest(req)),
      signal: abort.signal,
    });
  } catch {
    throw gatewayError('upstreamUnreachable');
  }
  if (upstream.statusCode < 200 || upstream.statusCode >= 300) {
    await upstream.body.dump().catch(() => undefined);
    throw gatewayError('upstreamStatus', { status: upstream.statusCode });
  }
  if (!req.stream) {
    let json: unknown;
    try {
      json = await upstream.body.json();
    } catch {
      throw gatewayError('upstreamInvalid');
    }
    const message = fromOpenAIResponse(json, req.model);
    if (!message) throw gatewayError('upstreamInvalid');
    return reply.type(JSON_TYPE).send(JSON.stringify(message));
  }

  const out = new PassThrough();
  const translator = new StreamTranslator(req.model);
  // Fastify destroys the payload stream when the client goes away: abort the upstream request.
  out.once('close', () => {
    if (!translator.done) abort.abort();
  });
  void pump(upstream.body, out, translator);
  return reply.type(contractB.headers.sse).header('cache-control', contractB.headers.sseCacheControl).send(out);
}

async function pump(body: AsyncIterable<Buffer | string> & { setEncoding(e: BufferEncoding): unknown }, out: PassThrough, translator: StreamTranslator): Promise<void> {
  body.setEncoding('utf8');
  try {
    for await (const chunk of body) {
      if (out.destroyed) return;
      const events = translator.push(typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
      if (events && !out.write(events)) await Promise.race([once(out, 'drain'), once(out, 'close')]);
    }
    if (!translator.done && !out.destroyed) out.write(translator.interrupted());
  } catch {
    if (out.destroyed) return;
    if (!translator.done) out.write(translator.interrupted());
  }
  out.end();
}
