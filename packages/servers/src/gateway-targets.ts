import { availableParallelism } from 'node:os';
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineTarget, TargetUnavailableError } from '@benchsuite/sdk';
import { stubBackendService } from './stub-backend/index.js';
import { contractB, contractBPath } from './gateway/contract.js';
import { dependencyClosure, dirSize, filesSize, packageVersion } from './gateway/artifact.js';
import { ensureFastapiVenv, fastapiDir, fastapiVenvPython } from './gateway/fastapi-venv.js';
import { buildHummingbird, hummingbirdBinary, hummingbirdDir, hummingbirdVersion } from './gateway/hummingbird-build.js';

/**
 * The LLM gateway implemented three ways (contract B): Fastify, FastAPI (1 worker and one per
 * core) and Hummingbird. Each is started with the stub backend as a per-trial service and
 * the same environment, and records which ecosystem pieces it uses in `metadata`.
 */

const serversDir = fileURLToPath(new URL('..', import.meta.url));
// Always the compiled gateway (also when this module is loaded from src/ by vitest or tsx).
const gatewayDistDir = fileURLToPath(new URL('../dist/gateway/', import.meta.url));
const fastifyMain = join(gatewayDistDir, 'main.js');

/** Upstream keep-alive connections per gateway process (≥ the scenarios' 50 load connections). */
export const gatewayUpstreamPoolSize = contractB.defaults.upstreamPoolSize;

const gatewayEnv = {
  BACKEND_URL: '${services.backend.url}',
  GATEWAY_API_KEYS: contractB.defaults.apiKeys.join(','),
  MODEL_ID: contractB.defaults.modelId,
  UPSTREAM_POOL_SIZE: String(gatewayUpstreamPoolSize),
  GATEWAY_REQUEST_LOG: '1',
} as const;

const middlewareOrder = ['request-log', 'metrics', 'tracing', 'error-mapper', 'auth(/v1/*)'];

const nodeRuntimeDeps = ['fastify', 'prom-client', 'undici', '@opentelemetry/api'] as const;

export const fastifyGateway = defineTarget({
  kind: 'process',
  name: 'fastify-gateway',
  language: 'TypeScript (Node.js)',
  framework: 'fastify',
  command: [process.execPath, fastifyMain],
  env: { ...gatewayEnv },
  services: { backend: stubBackendService },
  supports: ['group:gateway'],
  metadata: {
    contract: 'B',
    middlewareOrder,
    pieces: {
      server: 'fastify 5 (node:http)',
      router: 'fastify (find-my-way)',
      bodyParser: "fastify's built-in JSON parser (bodyLimit 1 MiB)",
      upstreamClient: 'undici Pool (keep-alive, pipelining 1)',
      metrics: 'prom-client (own Registry, no default metrics)',
      tracing: '@opentelemetry/api, no SDK registered (no-op tracer), one span per request',
      requestLog: "pino via fastify's logger, one JSON line per request on stderr",
      errorMapper: 'setErrorHandler + setNotFoundHandler',
      auth: "onRequest hook in the /v1 plugin scope",
      json: 'JSON.stringify',
    },
    upstreamPoolSize: gatewayUpstreamPoolSize,
    workers: 1,
  },
  async setup() {
    if (!existsSync(fastifyMain)) throw new Error(`${fastifyMain} missing: build with npx tsc -p packages/servers`);
    return { version: await packageVersion('fastify', serversDir) };
  },
  async artifact() {
    const own = [join(gatewayDistDir, 'main.js'), join(gatewayDistDir, 'fastify-gateway.js'), join(gatewayDistDir, 'contract.js'), contractBPath];
    const closure = await dependencyClosure(nodeRuntimeDeps, serversDir);
    return {
      bytes: (await filesSize(own)) + closure.bytes,
      method:
        `gateway files (dist/gateway/{main,fastify-gateway,contract}.js + contract-b.json) + the installed production ` +
        `dependency closure of ${nodeRuntimeDeps.join(', ')} (${closure.packages.size} packages, every file of each ` +
        'package folder, apparent sizes); Node.js runtime excluded',
    };
  },
});

const fastapiVersion = async (): Promise<string | undefined> => {
  const req = await readFile(join(fastapiDir, 'requirements.txt'), 'utf8').catch(() => '');
  return /^fastapi==(\S+)/m.exec(req)?.[1];
};

/** site-packages entries that are tooling, not runtime (pip itself, setuptools). */
const notRuntime = (name: string): boolean => /^(pip|setuptools|_distutils_hack|pkg_resources)([-_.].*)?$/.test(name) || name === 'distutils-precedence.pth' || name === '__pycache__';

function fastapiTarget<const W extends number>(workers: W) {
  return defineTarget({
    kind: 'process',
    name: `fastapi-${workers}w` as `fastapi-${W}w`,
    language: 'Python',
    framework: 'fastapi',
    command: [fastapiVenvPython(), join(fastapiDir, 'run.py')],
    cwd: fastapiDir,
    env: { ...gatewayEnv, WORKERS: String(workers) },
    services: { backend: stubBackendService },
    supports: ['group:gateway'],
    metadata: {
      contract: 'B',
      middlewareOrder,
      pieces: {
        server: `uvicorn (uvloop + httptools), ${workers} worker process${workers > 1 ? 'es + supervisor' : ''}`,
        router: 'fastapi APIRouter',
        bodyParser: 'request.stream() + json.loads (1 MiB cap)',
        upstreamClient: 'httpx.AsyncClient per worker (Limits max_connections = max_keepalive = pool size)',
        metrics: workers > 1 ? 'prometheus_client, multiprocess mode (PROMETHEUS_MULTIPROC_DIR), /metrics sums workers' : 'prometheus_client (own CollectorRegistry)',
        tracing: 'opentelemetry-api, no SDK (no-op tracer), one span per request',
        requestLog: 'logging StreamHandler, one line per request on stderr',
        errorMapper: 'pure ASGI middleware + exception handler for routing 404/405',
        auth: 'dependency on the /v1 APIRouter',
        middlewareStyle: 'pure ASGI middleware (not BaseHTTPMiddleware)',
        json: 'json.dumps(separators=(",", ":"), ensure_ascii=False)',
        readinessProbe: 'the launcher polls GET /healthz once before printing the listening line (one extra logged request)',
      },
      upstreamPoolSize: gatewayUpstreamPoolSize,
      upstreamPoolScope: 'per worker',
      workers,
    },
    async setup(ctx) {
      await ensureFastapiVenv({ log: ctx.log, signal: ctx.signal });
      return { version: await fastapiVersion() };
    },
    async artifact() {
      const app = (await dirSize(join(fastapiDir, 'gateway'), (n) => n === '__pycache__')) + (await filesSize([join(fastapiDir, 'run.py'), contractBPath]));
      const lib = join(fastapiDir, '.venv', 'lib');
      let sitePackages = 0;
      for (const py of await import('node:fs/promises').then((fs) => fs.readdir(lib)).catch(() => [] as string[])) {
        sitePackages += await dirSize(join(lib, py, 'site-packages'), notRuntime);
      }
      if (sitePackages === 0) throw new TargetUnavailableError('external/fastapi/.venv is missing: run setup first');
      return {
        bytes: app + sitePackages,
        method:
          'app files (external/fastapi/gateway/*.py + run.py + contract-b.json) + .venv/lib/python*/site-packages ' +
          '(apparent sizes, __pycache__, pip and setuptools excluded); Python interpreter excluded',
      };
    },
  });
}

/** Worker count of the many-worker FastAPI target: one per available core. */
export const fastapiWorkers = availableParallelism();

export const fastapi1w = fastapiTarget(1);
/** `fastapi-<N>w` with N = os.availableParallelism() (absent when N is 1). */
export const fastapiNw = fastapiWorkers > 1 ? fastapiTarget(fastapiWorkers) : undefined;

export const hummingbirdGateway = defineTarget({
  kind: 'process',
  name: 'hummingbird',
  language: 'Swift',
  framework: 'hummingbird',
  command: [hummingbirdBinary()],
  cwd: hummingbirdDir,
  env: { ...gatewayEnv },
  services: { backend: stubBackendService },
  supports: ['group:gateway'],
  metadata: {
    contract: 'B',
    middlewareOrder,
    pieces: {
      server: 'hummingbird 2 (SwiftNIO), HTTP/1.1',
      router: 'hummingbird Router + RouterGroup',
      bodyParser: 'request.collectBody(upTo: 1 MiB) + JSONDecoder',
      upstreamClient: 'async-http-client HTTPClient (concurrentHTTP1ConnectionsPerHostSoftLimit = pool size)',
      metrics: 'swift-prometheus PrometheusCollectorRegistry',
      tracing: "hummingbird's TracingMiddleware over swift-distributed-tracing, no tracer bootstrapped (no-op)",
      requestLog: 'swift-log StreamLogHandler.standardError, one line per request',
      errorMapper: 'RouterMiddleware',
      auth: 'RouterMiddleware on the /v1 RouterGroup',
      json: 'hand-written serializer with JSON.stringify escaping (fixed key order)',
    },
    upstreamPoolSize: gatewayUpstreamPoolSize,
    workers: 1,
    binary: 'HUMMINGBIRD_BIN, else external/hummingbird/.build/release/gateway',
  },
  async setup(ctx) {
    const binary = await buildHummingbird({ log: ctx.log, signal: ctx.signal });
    const version = await hummingbirdVersion();
    return version ? { command: [binary], version } : { command: [binary] };
  },
  async artifact() {
    const binary = hummingbirdBinary();
    const size = await stat(binary).then((s) => s.size, () => undefined);
    if (size === undefined) throw new TargetUnavailableError(`${binary} missing: build it (see external/hummingbird/README.md)`);
    return { bytes: size, method: 'size of the release binary (swift build -c release); Swift runtime libraries it links dynamically excluded' };
  },
});

/** Every gateway target: fastify-gateway, fastapi-1w, fastapi-<N>w (N = cores, when > 1), hummingbird. */
export const gatewayTargets = [fastifyGateway, fastapi1w, ...(fastapiNw ? [fastapiNw] : []), hummingbirdGateway] as const;
