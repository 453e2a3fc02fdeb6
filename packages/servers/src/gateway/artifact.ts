import { readdir, lstat, readFile, realpath } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * Deployable-size helpers for the gateway targets: apparent file sizes (lstat, symlinks not
 * followed), summed the same way for every language so the figures compare.
 */

/** Sum of file sizes under `dir`; `skip(name, path)` prunes entries (files or folders). */
export async function dirSize(dir: string, skip: (name: string, path: string) => boolean = () => false): Promise<number> {
  let total = 0;
  let entries: import('node:fs').Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    const p = join(dir, e.name);
    if (skip(e.name, p)) continue;
    if (e.isDirectory()) total += await dirSize(p, skip);
    else total += (await lstat(p)).size;
  }
  return total;
}

export async function filesSize(files: readonly string[]): Promise<number> {
  let total = 0;
  for (const f of files) total += (await lstat(f)).size;
  return total;
}

/** Node's lookup: `<from>/node_modules/<name>`, then each parent folder's. */
function findPackageDir(name: string, from: string): string | undefined {
  let dir = from;
  for (;;) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

export async function packageVersion(name: string, from: string): Promise<string | undefined> {
  const dir = findPackageDir(name, from);
  if (!dir) return undefined;
  return (JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as { version?: string }).version;
}

export interface DependencyClosure {
  /** Package name@version → folder, every package reachable through dependencies/optionalDependencies. */
  packages: Map<string, string>;
  bytes: number;
}

/**
 * The production dependency closure of `roots` as installed (dependencies and installed
 * optionalDependencies, followed recursively with Node's lookup) and its size: every file of
 * each package folder except its nested node_modules (those are packages of their own).
 */
export async function dependencyClosure(roots: readonly string[], from: string): Promise<DependencyClosure> {
  const packages = new Map<string, string>();
  const seen = new Set<string>();
  let bytes = 0;
  const queue: { name: string; from: string }[] = roots.map((name) => ({ name, from }));
  while (queue.length > 0) {
    const { name, from: base } = queue.shift()!;
    const found = findPackageDir(name, base);
    if (!found) continue; // an optional dependency not installed on this platform
    const dir = await realpath(found);
    if (seen.has(dir)) continue;
    seen.add(dir);
    const pkg = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as {
      name: string;
      version: string;
      dependencies?: Record<string, string>;
      optionalDependencies?: Record<string, string>;
    };
    packages.set(`${pkg.name}@${pkg.version}`, dir);
    bytes += await dirSize(dir, (n, p) => n === 'node_modules' && dirname(p) === dir);
    for (const dep of Object.keys({ ...pkg.dependencies, ...pkg.optionalDependencies })) queue.push({ name: dep, from: dir });
  }
  return { packages, bytes };
}
