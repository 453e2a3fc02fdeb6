import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineTarget, TargetUnavailableError } from '@benchsuite/sdk';
import { stubBackendService } from './stub-backend/index.js';
import { contractB, contractBPath } from './gateway/contract.js';
import { dependencyClosure, dirSize, filesSize, packageVersion } from './gateway/artifact.js';
import { ensureFastapiVenv, fastapiDir, fastapiVenvDir, fastapiVenvPython } from './gateway/fastapi-venv.js';
import { buildHummingbird, hummingbirdBinary, hummingbirdDir, hummingbirdVersion } from './gateway/hummingbird-build.js';
import { serverCpus } from './server-cpus.js';

/**
 * The LLM gateway implemented three ways (contract B): Fastify, FastAPI (1 worker and one per
 * server core, plus two named variants of its upstream client) and Hummingbird. Each is started
 * with the stub backend as a per-block service and the same environment, and records which
 * ecosystem pieces it uses and the cores it gets in `metadata`.
 */

const serversDir = fileURLToPath(new URL('..', import.meta.url));
// Always the compiled gateway (also when this module is loaded from src/ by vitest or tsx).
const gatewayDistDir = fileURLToPath(new URL('../dist/gateway/', import.meta.url));
const fastifyMain = join(gatewayDistDir, 'main.js');

/** Upstream keep-alive connections per gateway process (≥ the scenarios' 50 load connections). */
export const gatewayUpstreamPoolSize = contractB.defaults.upstreamPoolSize;

/**
 * Cores each gateway server runs on: `BENCHSUITE_SERVER_CPUS` when the runner sets it, else the
 * SDK's default pinning (see `serverCpus`). Recorded in every gateway target's metadata.
 */
export const gatewayServerCpus = serverCpus();

const gatewayEnv = {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the SDK's service placeholder, substituted when the target starts.
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
      auth: 'onRequest hook in the /v1 plugin scope',
      json: 'JSON.stringify',
    },
    upstreamPoolSize: gatewayUpstreamPoolSize,
    workers: 1,
    serverCpus: gatewayServerCpus,
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

/** site-packages entries that are tooling, not runtime (pip itself, setuptools, the py-spy profiler). */
const notRuntime = (name: string): boolean => /^(pip|setuptools|_distutils_hack|pkg_resources|py_spy)([-_.].*)?$/.test(name) || name === 'distutils-precedence.pth' || name === '__pycache__';

/**
 * Upstream clients of the FastAPI gateway, chosen by UPSTREAM_CLIENT (read by
 * external/fastapi/gateway/upstream.py: one app). `httpx` is the idiomatic one; the others are
 * fairness variants, each a separately named target whose metadata says what differs.
 */
const fastapiClients = {
  httpx: {
    suffix: '',
    library: 'httpx',
    upstreamClient: 'httpx.AsyncClient per worker (Limits max_connections = max_keepalive = pool size)',
    upstreamPoolSize: gatewayUpstreamPoolSize,
    differs: undefined,
  },
  'httpx-default-limits': {
    suffix: '-httpx-defaults',
    library: 'httpx',
    upstreamClient: "httpx.AsyncClient per worker at httpx's default Limits (max_connections 100, max_keepalive_connections 20, keepalive_expiry 5 s)",
    upstreamPoolSize: 100,
    differs:
      "only the upstream pool limits: httpx's defaults instead of a pool as large as the load's connections; httpcore scans " +
      'every pooled connection for every request (encode/httpx#3215), so the pool size costs CPU per request',
  },
  aiohttp: {
    suffix: '-aiohttp',
    library: 'aiohttp',
    upstreamClient: 'aiohttp.ClientSession per worker (TCPConnector limit = pool size, keep-alive 30 s)',
    upstreamPoolSize: gatewayUpstreamPoolSize,
    differs: 'only the upstream client: aiohttp instead of httpx (same pool size, same mapping code)',
  },
} as const;
type FastapiClient = keyof typeof fastapiClients;

/**
 * site-packages entries (modules and their .dist-info) that only one upstream library needs; a
 * target's artifact leaves out the other library's, so adding a variant does not grow the
 * idiomatic target's deployable size.
 */
const libraryOnlyPackages = {
  httpx: ['httpx', 'httpcore', 'certifi'],
  aiohttp: ['aiohttp', 'aiohappyeyeballs', 'aiosignal', 'attrs', 'attr', 'frozenlist', 'multidict', 'propcache', 'yarl'],
} as const;
const otherLibraryPackage =
  (library: keyof typeof libraryOnlyPackages) =>
  (name: string): boolean =>
    Object.entries(libraryOnlyPackages).some(([lib, pkgs]) => lib !== library && pkgs.some((p) => name === p || (name.startsWith(`${p}-`) && name.endsWith('.dist-info'))));

function fastapiTarget<const W extends number, const K extends FastapiClient = 'httpx'>(workers: W, client: K = 'httpx' as K) {
  const upstream = fastapiClients[client];
  const skipPackage = otherLibraryPackage(upstream.library);
  return defineTarget({
    kind: 'process',
    name: `fastapi-${workers}w${upstream.suffix}` as `fastapi-${W}w${(typeof fastapiClients)[K]['suffix']}`,
    language: 'Python',
    framework: 'fastapi',
    command: [fastapiVenvPython(), join(fastapiDir, 'run.py')],
    cwd: fastapiDir,
    // The shipped copy of the app sits in dist/fastapi, where contract.py's checkout-relative
    // default path does not reach packages/servers/contract: name the one contract file.
    env: { ...gatewayEnv, WORKERS: String(workers), CONTRACT_B_PATH: contractBPath, ...(client === 'httpx' ? {} : { UPSTREAM_CLIENT: client }) },
    services: { backend: stubBackendService },
    supports: ['group:gateway'],
    metadata: {
      contract: 'B',
      middlewareOrder,
      pieces: {
        server: `uvicorn (uvloop + httptools), ${workers} worker process${workers > 1 ? 'es + supervisor' : ''}`,
        router: 'fastapi APIRouter',
        bodyParser: 'request.stream() + json.loads (1 MiB cap)',
        upstreamClient: upstream.upstreamClient,
        metrics: workers > 1 ? 'prometheus_client, multiprocess mode (PROMETHEUS_MULTIPROC_DIR), /metrics sums workers' : 'prometheus_client (own CollectorRegistry)',
        tracing: 'opentelemetry-api, no SDK (no-op tracer), one span per request',
        requestLog: 'logging StreamHandler, one line per request on stderr',
        errorMapper: 'pure ASGI middleware + exception handler for routing 404/405',
        auth: 'dependency on the /v1 APIRouter',
        middlewareStyle: 'pure ASGI middleware (not BaseHTTPMiddleware)',
        json: 'json.dumps(separators=(",", ":"), ensure_ascii=False)',
        readinessProbe: 'the launcher polls GET /healthz once before printing the listening line (one extra logged request)',
      },
      upstreamPoolSize: upstream.upstreamPoolSize,
      upstreamPoolScope: 'per worker',
      workers,
      serverCpus: gatewayServerCpus,
      ...(upstream.differs ? { variantOf: `fastapi-${workers}w`, differs: upstream.differs } : {}),
    },
    async setup(ctx) {
      await ensureFastapiVenv({ log: ctx.log, signal: ctx.signal });
      return { version: await fastapiVersion() };
    },
    async artifact() {
      const app = (await dirSize(join(fastapiDir, 'gateway'), (n) => n === '__pycache__')) + (await filesSize([join(fastapiDir, 'run.py'), contractBPath]));
      const lib = join(fastapiVenvDir(), 'lib');
      let sitePackages = 0;
      for (const py of await import('node:fs/promises').then((fs) => fs.readdir(lib)).catch(() => [] as string[])) {
        sitePackages += await dirSize(join(lib, py, 'site-packages'), (n) => notRuntime(n) || skipPackage(n));
      }
      if (sitePackages === 0) throw new TargetUnavailableError(`${fastapiVenvDir()} is missing: run setup first`);
      return {
        bytes: app + sitePackages,
        method:
          "app files (gateway/*.py + run.py + contract-b.json) + the venv's lib/python*/site-packages " +
          `(apparent sizes, __pycache__, pip and setuptools excluded, and the packages only ${upstream.library === 'httpx' ? 'aiohttp' : 'httpx'} needs); ` +
          'Python interpreter excluded',
      };
    },
  });
}

/** Worker count of the many-worker FastAPI target: one per core the server runs on (`gatewayServerCpus`). */
export const fastapiWorkers = gatewayServerCpus.length;

export const fastapi1w = fastapiTarget(1);
/** Variant of `fastapi-1w`: httpx at the library's default pool limits. */
export const fastapi1wHttpxDefaults = fastapiTarget(1, 'httpx-default-limits');
/** Variant of `fastapi-1w`: aiohttp as the upstream client. */
export const fastapi1wAiohttp = fastapiTarget(1, 'aiohttp');
/** `fastapi-<N>w` with N = the server's cores (absent when N is 1: it would be `fastapi-1w`). */
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
    serverCpus: gatewayServerCpus,
    binary: 'HUMMINGBIRD_BIN, else external/hummingbird/.build/release/gateway',
  },
  async setup(ctx) {
    const binary = await buildHummingbird({ log: ctx.log, signal: ctx.signal });
    const version = await hummingbirdVersion();
    return version ? { command: [binary], version } : { command: [binary] };
  },
  async artifact() {
    const binary = hummingbirdBinary();
    const size = await stat(binary).then(
      (s) => s.size,
      () => undefined,
    );
    if (size === undefined) throw new TargetUnavailableError(`${binary} missing: build it (see external/hummingbird/README.md)`);
    return { bytes: size, method: 'size of the release binary (swift build -c release); Swift runtime libraries it links dynamically excluded' };
  },
});

/**
 * Every gateway target: fastify-gateway, fastapi-1w and its two variants (fastapi-1w-httpx-defaults,
 * fastapi-1w-aiohttp), fastapi-<N>w (N = server cores, when > 1), hummingbird.
 */
export const gatewayTargets = [fastifyGateway, fastapi1w, fastapi1wHttpxDefaults, fastapi1wAiohttp, ...(fastapiNw ? [fastapiNw] : []), hummingbirdGateway] as const;
