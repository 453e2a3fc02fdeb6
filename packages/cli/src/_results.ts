import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import { ResultVersionError, resultSchema, upgradeResult, type BenchResult } from '@benchsuite/sdk';
import { UsageError } from './_errors.js';

/** `summaries[0].rps.point` from a zod issue path. */
function pathText(path: readonly PropertyKey[]): string {
  let out = '';
  for (const k of path) out += typeof k === 'number' ? `[${k}]` : out ? `.${String(k)}` : String(k);
  return out || '(root)';
}

/** Read and validate a result document of any version this benchsuite reads, as the current version; every failure is a `UsageError` naming the file (and the field). */
export async function readResultFile(file: string): Promise<BenchResult> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UsageError(code === 'ENOENT' ? `${file}: no such file` : code === 'EISDIR' ? `${file}: is a directory, expected a result JSON file` : `${file}: cannot read (${code ?? String(e)})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${file}: not valid JSON (${(e as Error).message})`);
  }
  // An older version's document is read as the current one (the upgrade fills in what it lacks).
  let upgraded: unknown;
  try {
    upgraded = upgradeResult(json);
  } catch (e) {
    if (e instanceof ResultVersionError) throw new UsageError(`${file}: ${e.message}`);
    throw e;
  }
  const parsed = resultSchema.safeParse(upgraded);
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, 5).map((i) => `${pathText(i.path)}: ${i.message}`);
    const more = parsed.error.issues.length - issues.length;
    throw new UsageError(more > 0 ? [...issues, `… and ${more} more`] : issues, `${file}: not a valid benchsuite result`);
  }
  return parsed.data;
}

/**
 * The collapsed stacks a result's profiles refer to (`files`, from `stacksFilesOf`, relative to
 * `results.json`), read from next to `resultsFile`: the report's `stacks` option. A file that is
 * missing or unreadable is left out (the HTML report then says which file its flame graph needs);
 * a path that leaves the result's folder is never read.
 */
export async function readProfileStacks(resultsFile: string, files: readonly string[]): Promise<Record<string, string>> {
  const dir = resolve(dirname(resultsFile));
  const out: Record<string, string> = {};
  for (const f of files) {
    const path = resolve(dir, f);
    const rel = relative(dir, path);
    if (isAbsolute(f) || rel === '' || rel.startsWith('..') || isAbsolute(rel)) continue;
    try {
      out[f] = await readFile(path, 'utf8');
    } catch {
      // not there (copied without its profiles/ folder): the report says so
    }
  }
  return out;
}
