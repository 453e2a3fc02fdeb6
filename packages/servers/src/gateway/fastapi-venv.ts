import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TargetUnavailableError } from '@benchsuite/sdk';

/**
 * The FastAPI gateway's app, launcher and requirements as this package ships them: `dist/fastapi/`
 * under the package root (the same path from src/ and dist/). The build copies them there from
 * `external/fastapi` (scripts/copy-fastapi.mjs), so an installed package needs nothing outside itself.
 */
export const fastapiDir = fileURLToPath(new URL('../../dist/fastapi/', import.meta.url));

/**
 * Where benchsuite keeps what it builds outside the package (the package folder may be read-only,
 * and a reinstall empties it): `$BENCHSUITE_CACHE_DIR`, else `$XDG_CACHE_HOME/benchsuite`, else
 * `~/.cache/benchsuite`.
 */
export function benchsuiteCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.BENCHSUITE_CACHE_DIR) return env.BENCHSUITE_CACHE_DIR;
  const xdg = env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : join(homedir(), '.cache');
  return join(xdg, 'benchsuite');
}

/**
 * The virtualenv for the requirements in `dir`: `<cache>/<name>-venv-<first 12 hex of
 * sha256(requirements.txt)>`. One folder per requirements set, so two checkouts or installed
 * versions with different pins never rebuild each other's venv (or one in use); a Python version
 * change rebuilds in place (the marker inside records it). Every Python app of benchsuite (the
 * FastAPI gateway, the contract C servers) gets its venv this one way, from its own requirements.
 */
export function venvDirFor(name: string, dir: string, env: NodeJS.ProcessEnv = process.env): string {
  let key = 'no-requirements';
  try {
    key = createHash('sha256')
      .update(readFileSync(join(dir, 'requirements.txt')))
      .digest('hex')
      .slice(0, 12);
  } catch {
    // Not built yet: ensureFastapiVenv reports the missing requirements.txt itself.
  }
  return join(benchsuiteCacheDir(env), `${name}-venv-${key}`);
}

/** The FastAPI gateway's virtualenv: {@link venvDirFor} `fastapi` and {@link fastapiDir}. */
export function fastapiVenvDir(dir = fastapiDir, env: NodeJS.ProcessEnv = process.env): string {
  return venvDirFor('fastapi', dir, env);
}

export interface EnsureVenvOptions {
  /** Progress lines (pip output included). */
  log?: (line: string) => void;
  /** Python used to create the venv; default `python3`. */
  python?: string;
  /** Folder holding `requirements.txt` (required by {@link ensureVenv}; {@link ensureFastapiVenv} defaults to {@link fastapiDir}). The venv goes to {@link venvDirFor}. */
  dir?: string;
  /** What needs the venv, for error messages ("the FastAPI gateway"); default the venv's name. */
  app?: string;
  signal?: AbortSignal;
}

export interface VenvResult {
  /** The venv's interpreter, e.g. `~/.cache/benchsuite/fastapi-venv-0123456789ab/bin/python`. */
  python: string;
  venvDir: string;
  /** False when an up-to-date venv was reused. */
  created: boolean;
  durationMs: number;
}

const MARKER = '.benchsuite-requirements.sha256';

/** Path of the venv interpreter for `dir` (whether or not it exists yet). */
export function fastapiVenvPython(dir = fastapiDir): string {
  return join(fastapiVenvDir(dir), 'bin', 'python');
}

/** Options of {@link ensureFastapiVenv}. */
export type EnsureFastapiVenvOptions = EnsureVenvOptions;
/** What {@link ensureFastapiVenv} returns. */
export type FastapiVenvResult = VenvResult;

/**
 * The FastAPI gateway's venv ({@link ensureVenv} for `fastapi` and {@link fastapiDir}).
 *
 * @example
 * const { python } = await ensureFastapiVenv({ log: (l) => console.error(l) });
 */
export function ensureFastapiVenv(options: EnsureVenvOptions = {}): Promise<VenvResult> {
  return ensureVenv('fastapi', { ...options, dir: options.dir ?? fastapiDir, app: options.app ?? 'the FastAPI gateway' });
}

/**
 * Create the venv `name` for the requirements in `options.dir` ({@link venvDirFor}: python3 -m
 * venv + pip install -r requirements.txt) when it is missing or was built from other
 * requirements or another Python (a hash marker records that); otherwise reuse it. Progress
 * lines go to `options.log`, prefixed `<name> venv:`. Safe to call concurrently: a lock
 * directory serialises builders. Throws `TargetUnavailableError` when python3 is missing or
 * cannot create a virtualenv (Debian without python3-venv).
 *
 * @example
 * const { python } = await ensureVenv('python-web', { dir: pythonWebDir, log: (l) => console.error(l) });
 */
export async function ensureVenv(name: string, options: EnsureVenvOptions & { dir: string }): Promise<VenvResult> {
  const started = Date.now();
  const dir = options.dir;
  const app = options.app ?? name;
  const log = options.log ?? (() => {});
  const python3 = options.python ?? 'python3';
  const venvDir = venvDirFor(name, dir);
  const python = join(venvDir, 'bin', 'python');

  const pythonVersion = await run(python3, ['--version'], { log: () => {}, signal: options.signal }).catch((err: unknown) => {
    throw new TargetUnavailableError(`${python3} not found or not runnable (${(err as Error).message}); ${app} needs Python 3.10+`);
  });
  const requirements = await readFile(join(dir, 'requirements.txt'), 'utf8').catch((err: unknown) => {
    throw new Error(`${join(dir, 'requirements.txt')} unreadable (${(err as Error).message}); build @benchsuite/servers, which copies its Python apps there`);
  });
  const wanted = createHash('sha256').update(pythonVersion.trim()).update('\n').update(requirements).digest('hex');

  if (await markerMatches(venvDir, wanted)) {
    return { python, venvDir, created: false, durationMs: Date.now() - started };
  }
  // Debian's python3 has `venv` but not `ensurepip` without python3-venv: `-m venv` would fail
  // half-way with a long message. Ask first, and say it the way a user can act on.
  await run(python3, ['-c', 'import venv, ensurepip'], { log: () => {}, signal: options.signal }).catch(() => {
    throw new TargetUnavailableError(`${python3} cannot create a virtualenv (no ensurepip module; on Debian/Ubuntu: apt-get install python3-venv)`);
  });
  await mkdir(benchsuiteCacheDir(), { recursive: true }).catch((err: unknown) => {
    throw new TargetUnavailableError(`cannot create ${benchsuiteCacheDir()} for the ${name} venv (${(err as Error).message}); set BENCHSUITE_CACHE_DIR to a writable folder`);
  });
  const unlock = await lock(`${venvDir}.lock`, (l) => log(`${name} venv: ${l}`), options.signal);
  try {
    // Another process may have built it while we waited for the lock.
    if (await markerMatches(venvDir, wanted)) return { python, venvDir, created: false, durationMs: Date.now() - started };
    log(`${name} venv: creating ${venvDir} with ${pythonVersion.trim()}`);
    await rm(venvDir, { recursive: true, force: true });
    await run(python3, ['-m', 'venv', venvDir], { log, signal: options.signal });
    log(`${name} venv: pip install -r requirements.txt`);
    await run(python, ['-m', 'pip', 'install', '--disable-pip-version-check', '--no-input', '-r', join(dir, 'requirements.txt')], {
      log: (line) => log(`pip: ${line}`),
      signal: options.signal,
    });
    await writeFile(join(venvDir, MARKER), wanted);
    const durationMs = Date.now() - started;
    log(`${name} venv: ready in ${(durationMs / 1000).toFixed(1)} s`);
    return { python, venvDir, created: true, durationMs };
  } finally {
    await unlock();
  }
}

async function markerMatches(venvDir: string, wanted: string): Promise<boolean> {
  try {
    const have = (await readFile(join(venvDir, MARKER), 'utf8')).trim();
    return have === wanted && existsSync(join(venvDir, 'bin', 'python'));
  } catch {
    return false;
  }
}

/** mkdir-based lock; a lock older than 10 minutes is considered stale (a crashed builder). */
async function lock(path: string, log: (l: string) => void, signal?: AbortSignal): Promise<() => Promise<void>> {
  let announced = false;
  for (;;) {
    signal?.throwIfAborted();
    try {
      await mkdir(path);
      return async () => {
        await rmdir(path).catch(() => {});
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const age = await stat(path).then(
        (s) => Date.now() - s.mtimeMs,
        () => 0,
      );
      if (age > 10 * 60_000) {
        await rmdir(path).catch(() => {});
        continue;
      }
      if (!announced) log(`waiting for another process building it (${path})`);
      announced = true;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

/** Run a command, streaming its output lines to `log`; resolves with stdout+stderr text. */
function run(command: string, args: string[], opts: { log: (line: string) => void; signal?: AbortSignal | undefined }): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], signal: opts.signal, env: { ...process.env, PIP_NO_COLOR: '1' } });
    let text = '';
    let partial = '';
    const onData = (b: Buffer): void => {
      const s = b.toString('utf8');
      text += s;
      partial += s;
      const lines = partial.split(/\r?\n/);
      partial = lines.pop() ?? '';
      for (const l of lines) if (l.trim()) opts.log(l);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', reject);
    child.on('close', (code) => {
      if (partial.trim()) opts.log(partial);
      if (code === 0) resolve(text);
      else reject(new Error(`${command} ${args.join(' ')} exited with ${code}: ${text.slice(-2000)}`));
    });
  });
}
