import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TargetUnavailableError } from '@benchsuite/sdk';

/** `external/fastapi` in this checkout (the FastAPI gateway's app, launcher and requirements). */
export const fastapiDir = fileURLToPath(new URL('../../../../external/fastapi/', import.meta.url));

export interface EnsureFastapiVenvOptions {
  /** Progress lines (pip output included). */
  log?: (line: string) => void;
  /** Python used to create the venv; default `python3`. */
  python?: string;
  /** Folder holding `requirements.txt`; the venv goes to `<dir>/.venv`. Default `external/fastapi`. */
  dir?: string;
  signal?: AbortSignal;
}

export interface FastapiVenvResult {
  /** The venv's interpreter, e.g. `external/fastapi/.venv/bin/python`. */
  python: string;
  venvDir: string;
  /** False when an up-to-date venv was reused. */
  created: boolean;
  durationMs: number;
}

const MARKER = '.benchsuite-requirements.sha256';

/** Path of the venv interpreter for `dir` (whether or not it exists yet). */
export function fastapiVenvPython(dir = fastapiDir): string {
  return join(dir, '.venv', 'bin', 'python');
}

/**
 * Create `external/fastapi/.venv` (python3 -m venv + pip install -r requirements.txt) when it
 * is missing or `requirements.txt` changed since it was built (a hash marker records that);
 * otherwise reuse it. Safe to call concurrently: a lock directory serialises builders.
 * Throws `TargetUnavailableError` when python3 is missing.
 *
 * @example
 * const { python } = await ensureFastapiVenv({ log: (l) => console.error(l) });
 */
export async function ensureFastapiVenv(options: EnsureFastapiVenvOptions = {}): Promise<FastapiVenvResult> {
  const started = Date.now();
  const dir = options.dir ?? fastapiDir;
  const log = options.log ?? (() => {});
  const python3 = options.python ?? 'python3';
  const venvDir = join(dir, '.venv');
  const python = fastapiVenvPython(dir);

  const pythonVersion = await run(python3, ['--version'], { log: () => {}, signal: options.signal }).catch((err: unknown) => {
    throw new TargetUnavailableError(`${python3} not found or not runnable (${(err as Error).message}); the FastAPI gateway needs Python 3.10+`);
  });
  const requirements = await readFile(join(dir, 'requirements.txt'), 'utf8');
  const wanted = createHash('sha256').update(pythonVersion.trim()).update('\n').update(requirements).digest('hex');

  if (await markerMatches(venvDir, wanted)) {
    return { python, venvDir, created: false, durationMs: Date.now() - started };
  }
  const unlock = await lock(join(dir, '.venv.lock'), log, options.signal);
  try {
    // Another process may have built it while we waited for the lock.
    if (await markerMatches(venvDir, wanted)) return { python, venvDir, created: false, durationMs: Date.now() - started };
    log(`fastapi venv: creating ${venvDir} with ${pythonVersion.trim()}`);
    await rm(venvDir, { recursive: true, force: true });
    await run(python3, ['-m', 'venv', venvDir], { log, signal: options.signal });
    log('fastapi venv: pip install -r requirements.txt');
    await run(python, ['-m', 'pip', 'install', '--disable-pip-version-check', '--no-input', '-r', join(dir, 'requirements.txt')], {
      log: (line) => log(`pip: ${line}`),
      signal: options.signal,
    });
    await writeFile(join(venvDir, MARKER), wanted);
    const durationMs = Date.now() - started;
    log(`fastapi venv: ready in ${(durationMs / 1000).toFixed(1)} s`);
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
      const age = await stat(path).then((s) => Date.now() - s.mtimeMs, () => 0);
      if (age > 10 * 60_000) {
        await rmdir(path).catch(() => {});
        continue;
      }
      if (!announced) log(`fastapi venv: waiting for another process building it (${path})`);
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
