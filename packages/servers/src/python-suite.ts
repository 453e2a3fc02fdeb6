import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineScenario, defineTarget, TargetUnavailableError, type ScenarioInput } from '@benchsuite/sdk';
import { answer, contractC, contractCFile, decodePath, matchRoute } from './contract-c/contract-c.js';
import { filesSize } from './gateway/artifact.js';
import { ensureVenv, venvDirFor, type EnsureVenvOptions, type VenvResult } from './gateway/fastapi-venv.js';
import { serverCpus } from './server-cpus.js';

/**
 * The Python web suite (contract C, `benchsuite run --suite python`): six endpoint scenarios
 * against node:http (the cross-language reference), FastAPI on uvicorn with 1 worker and with one
 * per server core, Litestar on uvicorn, and Python's http.server (the standard-library floor).
 */

/**
 * The contract C Python servers as this package ships them: `dist/python-web/` under the package
 * root (the same hop from src/ and dist/), copied from `external/python-web` by the build.
 */
export const pythonWebDir = fileURLToPath(new URL('../dist/python-web/', import.meta.url));
/** Always the compiled node:http server of contract C (also when this module is loaded from src/). */
const nodeMain = fileURLToPath(new URL('../dist/contract-c/main.js', import.meta.url));
const contractCPath = fileURLToPath(contractCFile);

const VENV = 'python-web';

/**
 * `--profile`: the shared contract C code of both languages is `contract` in time-by-package
 * (each server's own module is then its own code).
 */
const profile = {
  contract: ['packages/servers/dist/contract-c/contract-c', 'packages/servers/src/contract-c/contract-c', 'python-web/webapp/contract.py'],
};

/** The suite's virtualenv folder (`<cache>/python-web-venv-<hash of requirements.txt>`). */
const pythonWebVenvDir = (env: NodeJS.ProcessEnv = process.env): string => venvDirFor(VENV, pythonWebDir, env);
/** The suite's Python interpreter (whether or not the venv exists yet). */
export const pythonWebPython = (): string => join(pythonWebVenvDir(), 'bin', 'python');

/**
 * Create (or reuse) the suite's virtualenv from `external/python-web/requirements.txt`: the same
 * mechanism as the FastAPI gateway's venv, another set of requirements.
 *
 * @example
 * await ensurePythonWebVenv({ log: (l) => console.error(l) });
 */
export function ensurePythonWebVenv(options: Omit<EnsureVenvOptions, 'dir'> = {}): Promise<VenvResult> {
  return ensureVenv(VENV, { ...options, dir: pythonWebDir, app: options.app ?? 'the Python web suite' });
}

// ---------------------------------------------------------------------------------- scenarios

/**
 * The six contract C scenarios (group `python`), from `contract/contract-c.json`: each is verified
 * byte for byte (`expect.text`) before any load, so a server that writes `3.0` for `3` is caught.
 */
export const pythonScenarios: ScenarioInput[] = contractC.scenarios.map((s) => {
  const match = matchRoute(decodePath(s.path));
  if (!match) throw new Error(`contract-c.json: scenario ${s.name}'s path ${s.path} matches no route`);
  const text = answer(match.route.id, match.params).body;
  return defineScenario({
    name: s.name,
    description: s.description,
    group: 'python',
    request: { method: 'GET', path: s.path },
    expect: { status: 200, text, ...(s.kind === 'json' ? { json: JSON.parse(text) as unknown } : {}), headers: { 'content-type': contractC.contentTypes[s.kind] } },
    load: { connections: s.connections },
  });
});

// ---------------------------------------------------------------------------------- targets

/** Cores the servers run on (see `serverCpus`); the many-worker FastAPI target has one worker per core. */
const cpus = serverCpus();
/** Worker count of `fastapi-<N>w`. */
export const pythonFastapiWorkers = cpus.length;

const pinned = async (name: string): Promise<string | undefined> => {
  const req = await readFile(join(pythonWebDir, 'requirements.txt'), 'utf8').catch(() => '');
  return new RegExp(`^${name}(?:\\[[^\\]]*\\])?==(\\S+)`, 'm').exec(req)?.[1];
};

type PythonServer = 'fastapi' | 'litestar' | 'http-server';

/** Runs the venv's interpreter; resolves with its stdout. */
function runPython(args: string[]): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const child = spawn(pythonWebPython(), args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`python ${args.join(' ')} exited with ${code}: ${err.slice(-500)}`))));
  });
}

/** Deployable size from the venv itself (`artifact.py`: app files + the installed dependency closure). */
function pythonArtifact(server: PythonServer): () => Promise<{ bytes: number; method: string }> {
  return async () => {
    if (!existsSync(pythonWebPython())) throw new TargetUnavailableError(`${pythonWebVenvDir()} is missing: run \`benchsuite setup python\` first`);
    const out = await runPython([join(pythonWebDir, 'artifact.py'), server]);
    const { bytes, packages } = JSON.parse(out) as { bytes: number; packages: string[] };
    return {
      bytes: bytes + (await filesSize([contractCPath])),
      method:
        `app files (run.py, webapp/{__init__,contract,${server === 'http-server' ? 'stdlib_server' : `${server}_app`}}.py, contract-c.json) + ` +
        (packages.length
          ? `every file each installed distribution's RECORD lists, for the dependency closure of its requirements (${packages.length} distributions: ${packages.join(', ')}; apparent sizes, __pycache__ excluded)`
          : 'no third-party package') +
        '; Python interpreter and standard library excluded',
    };
  };
}

const pythonCommon = (server: PythonServer, framework: string, version: () => Promise<string | undefined>) => ({
  kind: 'process' as const,
  language: 'Python',
  framework,
  command: [pythonWebPython(), join(pythonWebDir, 'run.py'), server],
  cwd: pythonWebDir,
  supports: ['group:python'],
  async setup(ctx: { log: (line: string) => void; signal: AbortSignal }) {
    await ensurePythonWebVenv({ log: ctx.log, signal: ctx.signal });
    const v = await version();
    return v ? { version: v } : {};
  },
  artifact: pythonArtifact(server),
  profile,
});

const uvicornPieces = (workers: number) => `uvicorn (uvloop + httptools), ${workers} worker process${workers > 1 ? 'es + supervisor' : ''}, no access log`;

function fastapiTarget<const W extends number>(workers: W) {
  return defineTarget({
    ...pythonCommon('fastapi', 'fastapi', () => pinned('fastapi')),
    name: `fastapi-${workers}w` as `fastapi-${W}w`,
    env: { WORKERS: String(workers), CONTRACT_C_PATH: contractCPath },
    metadata: {
      contract: 'C',
      pieces: {
        server: uvicornPieces(workers),
        router: 'fastapi (starlette Router), async def handlers',
        json: 'handlers return plain dicts, no return annotation: jsonable_encoder + the JSONResponse subclass (json.dumps, compact); not the Pydantic dump_json path',
        html: 'HTMLResponse (response_class)',
        config: 'default_response_class = JSONResponse with charset=utf-8; openapi_url/docs_url/redoc_url None; redirect_slashes False',
        errors: "exception handler for starlette's HTTPException (404/405 bodies; Allow from starlette)",
      },
      workers,
      serverCpus: cpus,
    },
  });
}

/** FastAPI on uvicorn, one worker. */
export const pythonFastapi1w = fastapiTarget(1);
/** FastAPI on uvicorn, one worker per server core (absent when that is 1). */
export const pythonFastapiNw = pythonFastapiWorkers > 1 ? fastapiTarget(pythonFastapiWorkers) : undefined;

/** Litestar on uvicorn, one worker. */
export const pythonLitestar = defineTarget({
  ...pythonCommon('litestar', 'litestar', () => pinned('litestar')),
  name: 'litestar',
  env: { WORKERS: '1', CONTRACT_C_PATH: contractCPath },
  metadata: {
    contract: 'C',
    pieces: {
      server: uvicornPieces(1),
      router: 'litestar (radix router), async def handlers',
      json: "Litestar's default path: msgspec",
      html: 'str return with media_type text/html',
      config: 'media_type application/json; charset=utf-8 on JSON handlers; openapi_config None',
      errors: 'exception handlers for 404 and 405 (Allow from the contract: Litestar would add its automatic OPTIONS)',
    },
    workers: 1,
    serverCpus: cpus,
  },
});

/** Python's http.server (ThreadingHTTPServer): the standard-library floor. */
export const pythonHttpServer = defineTarget({
  ...pythonCommon('http-server', 'http.server', async () => (await runPython(['-c', 'import platform; print(platform.python_version())'])).trim()),
  name: 'http-server',
  env: { CONTRACT_C_PATH: contractCPath },
  metadata: {
    contract: 'C',
    pieces: {
      server: 'http.server ThreadingHTTPServer (one thread per connection), HTTP/1.1 keep-alive, TCP_NODELAY (disable_nagle_algorithm), no request log',
      router: 'the shared route table (webapp/contract.py)',
      json: 'json.dumps (compact)',
      html: 'the shared renderer',
    },
    workers: 1,
    serverCpus: cpus,
    note: 'standard library only; the venv interpreter is used so that every Python target runs the same Python',
  },
});

/** node:http serving contract C: the cross-language reference of the suite. */
export const nodeHttpC = defineTarget({
  kind: 'process',
  name: 'node-http-c',
  language: 'javascript',
  framework: 'node:http',
  version: process.versions.node,
  command: [process.execPath, nodeMain],
  supports: ['group:python'],
  profile,
  metadata: {
    contract: 'C',
    role: 'cross-language reference',
    pieces: {
      server: 'node:http createServer',
      router: 'the shared route table (src/contract-c/contract-c.ts)',
      json: 'JSON.stringify',
      html: 'the shared renderer',
    },
    workers: 1,
    serverCpus: cpus,
  },
  async setup() {
    if (!existsSync(nodeMain)) throw new Error(`${nodeMain} missing: build with npx tsc -p packages/servers`);
  },
  async artifact() {
    const dir = fileURLToPath(new URL('../dist/contract-c/', import.meta.url));
    return {
      bytes: await filesSize([join(dir, 'main.js'), join(dir, 'node-http.js'), join(dir, 'contract-c.js'), contractCPath]),
      method: 'server files (dist/contract-c/{main,node-http,contract-c}.js + contract-c.json); no dependency; Node.js runtime excluded',
    };
  },
});

/**
 * Every target of the Python suite, the reference first: node-http-c, fastapi-1w, fastapi-<N>w
 * (N = server cores, when > 1), litestar, http-server.
 */
export const pythonTargets = [nodeHttpC, pythonFastapi1w, ...(pythonFastapiNw ? [pythonFastapiNw] : []), pythonLitestar, pythonHttpServer] as const;
