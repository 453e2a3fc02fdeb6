#!/usr/bin/env node
// Copies the Python apps into dist/, so the published package carries them and resolves them from
// its own root: the FastAPI gateway (external/fastapi: gateway/*.py, run.py, requirements.txt,
// README.md → dist/fastapi, src/gateway/fastapi-venv.ts) and the contract C servers
// (external/python-web: webapp/*.py, run.py, artifact.py, requirements.txt, README.md → dist/python-web,
// src/python-suite.ts). The sources of truth stay in external/; this runs after
// tsc in `build` and again in the servers tests' global setup, so a test never runs a stale copy.
// Files are replaced by rename and only when changed: a gateway running from the copy (another
// test run, a benchmark) never sees a half-written file.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const packageRoot = fileURLToPath(new URL('..', import.meta.url));
export const fastapiSource = fileURLToPath(new URL('../../../external/fastapi/', import.meta.url));
export const fastapiCopy = join(packageRoot, 'dist', 'fastapi');
export const pythonWebSource = fileURLToPath(new URL('../../../external/python-web/', import.meta.url));
export const pythonWebCopy = join(packageRoot, 'dist', 'python-web');

/** What is shipped of an app whose modules sit in `pkg/`: them, its launcher, its pinned requirements, its README and `extra` files. */
const shipped =
  (pkg, extra = []) =>
  (rel) =>
    rel === 'run.py' || rel === 'requirements.txt' || rel === 'README.md' || extra.includes(rel) || new RegExp(`^${pkg}/[^/]+\\.py$`).test(rel);

function list(dir, base = dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== '__pycache__' && !entry.name.startsWith('.')) out.push(...list(path, base));
    } else if (entry.isFile()) out.push(relative(base, path));
  }
  return out;
}

/**
 * Sync external/fastapi into dist/fastapi. Returns the number of files written or removed;
 * without the source (an installed package, not this checkout) it leaves the copy alone.
 * @param {{ log?: (line: string) => void }} [options]
 * @returns {number}
 */
export function copyFastapi(options = {}) {
  return syncTree(fastapiSource, fastapiCopy, shipped('gateway'), options.log ?? (() => {}));
}

/**
 * Sync external/python-web into dist/python-web (as {@link copyFastapi} does for the gateway).
 * @param {{ log?: (line: string) => void }} [options]
 * @returns {number}
 */
export function copyPythonWeb(options = {}) {
  return syncTree(pythonWebSource, pythonWebCopy, shipped('webapp', ['artifact.py']), options.log ?? (() => {}));
}

/** Copy `wanted` files of `source` into `copy` (only the changed ones, by rename) and remove the copy's others. */
function syncTree(source, copy, wanted, log) {
  if (!existsSync(source)) {
    log(`no ${source} here: keeping ${copy} as it is`);
    return 0;
  }
  const files = list(source).filter(wanted);
  if (!files.includes('run.py') || !files.includes('requirements.txt')) throw new Error(`${source} has no run.py or requirements.txt`);
  let changed = 0;
  for (const rel of files) {
    const from = join(source, rel);
    const to = join(copy, rel);
    const body = readFileSync(from);
    if (existsSync(to) && statSync(to).size === body.length && readFileSync(to).equals(body)) continue;
    mkdirSync(dirname(to), { recursive: true });
    const tmp = `${to}.${process.pid}.tmp`;
    writeFileSync(tmp, body);
    renameSync(tmp, to);
    changed++;
  }
  if (existsSync(copy)) {
    for (const rel of list(copy)) {
      if (!files.includes(rel)) {
        rmSync(join(copy, rel), { force: true });
        changed++;
      }
    }
  }
  log(`${relative(packageRoot, copy)}: ${changed ? `${changed} file(s) updated` : 'up to date'} from ${source}`);
  return changed;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const log = (line) => process.stdout.write(`copy-fastapi: ${line}\n`);
  copyFastapi({ log });
  copyPythonWeb({ log });
}
