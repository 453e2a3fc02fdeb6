#!/usr/bin/env node
// Copies the FastAPI gateway (external/fastapi: gateway/*.py, run.py, requirements.txt, README.md)
// into dist/fastapi/, so the published package carries it and resolves it from its own root
// (src/gateway/fastapi-venv.ts). The source of truth stays in external/fastapi; this runs after
// tsc in `build` and again in the servers tests' global setup, so a test never runs a stale copy.
// Files are replaced by rename and only when changed: a gateway running from the copy (another
// test run, a benchmark) never sees a half-written file.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const packageRoot = fileURLToPath(new URL('..', import.meta.url));
export const fastapiSource = fileURLToPath(new URL('../../../external/fastapi/', import.meta.url));
export const fastapiCopy = join(packageRoot, 'dist', 'fastapi');

/** What is shipped: the app, its launcher, its pinned requirements and its README. */
const wanted = (rel) => rel === 'run.py' || rel === 'requirements.txt' || rel === 'README.md' || /^gateway\/[^/]+\.py$/.test(rel);

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
  const log = options.log ?? (() => {});
  if (!existsSync(fastapiSource)) {
    log(`no ${fastapiSource} here: keeping ${fastapiCopy} as it is`);
    return 0;
  }
  const files = list(fastapiSource).filter(wanted);
  if (!files.includes('run.py') || !files.includes('requirements.txt')) throw new Error(`${fastapiSource} has no run.py or requirements.txt`);
  let changed = 0;
  for (const rel of files) {
    const from = join(fastapiSource, rel);
    const to = join(fastapiCopy, rel);
    const body = readFileSync(from);
    if (existsSync(to) && statSync(to).size === body.length && readFileSync(to).equals(body)) continue;
    mkdirSync(dirname(to), { recursive: true });
    const tmp = `${to}.${process.pid}.tmp`;
    writeFileSync(tmp, body);
    renameSync(tmp, to);
    changed++;
  }
  if (existsSync(fastapiCopy)) {
    for (const rel of list(fastapiCopy)) {
      if (!files.includes(rel)) {
        rmSync(join(fastapiCopy, rel), { force: true });
        changed++;
      }
    }
  }
  log(`${relative(packageRoot, fastapiCopy)}: ${changed ? `${changed} file(s) updated` : 'up to date'} from ${fastapiSource}`);
  return changed;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  copyFastapi({ log: (line) => process.stdout.write(`copy-fastapi: ${line}\n`) });
}
