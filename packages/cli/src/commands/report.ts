import { randomBytes } from 'node:crypto';
import { readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { defineCommand } from 'citty';
import { resultSchema, type BenchResult } from '@benchsuite/sdk';
import { renderHtml, renderMarkdown, toGithubActionBenchmark } from '@benchsuite/report';
import { EXIT, UsageError } from '../_errors.js';


/** Where a command writes; tests pass their own. */
export interface CommandIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

export const processIO: CommandIO = {
  stdout: (t) => void process.stdout.write(t),
  stderr: (t) => void process.stderr.write(t),
};

/** `summaries[0].rps.mean` from a zod issue path. */
function pathText(path: readonly PropertyKey[]): string {
  let out = '';
  for (const k of path) out += typeof k === 'number' ? `[${k}]` : out ? `.${String(k)}` : String(k);
  return out || '(root)';
}

/** Read and validate a result document; every failure is a `UsageError` naming the file (and the field). */
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
  const parsed = resultSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const more = parsed.error.issues.length > 1 ? ` (and ${parsed.error.issues.length - 1} more problem${parsed.error.issues.length > 2 ? 's' : ''})` : '';
    throw new UsageError(`${file}: not a valid benchsuite result at ${issue ? pathText(issue.path) : '(root)'}: ${issue?.message ?? 'invalid'}${more}`);
  }
  return parsed.data;
}

/** Write via a temp file in the same directory and a rename, so readers never see a half-written file. */
export async function writeFileAtomic(file: string, data: string): Promise<void> {
  const tmp = join(dirname(file), `.${basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await writeFile(tmp, data, 'utf8');
    await rename(tmp, file);
  } catch (e) {
    await unlink(tmp).catch(() => {});
    const code = (e as NodeJS.ErrnoException).code;
    throw new UsageError(`${file}: cannot write (${code ?? (e as Error).message})`);
  }
}

/** Print a `UsageError` (bad path, bad JSON, bad document) as one line and return exit code 2; anything else is a bug and propagates. */
export function userErrorExit(e: unknown, io: CommandIO): number {
  if (e instanceof UsageError) {
    io.stderr(`benchsuite: ${e.message}\n`);
    return EXIT.usage;
  }
  throw e;
}

export type ReportFormat = 'md' | 'html' | 'github-action-benchmark';

export interface ReportCommandOptions {
  results: string;
  format?: ReportFormat;
  out?: string;
  reference?: string;
  metric?: 'rps' | 'p99';
}

/** `benchsuite report`: returns the exit code (0, or 2 for a user error). */
export async function runReport(opts: ReportCommandOptions, io: CommandIO = processIO): Promise<number> {
  try {
    const result = await readResultFile(opts.results);
    const format: ReportFormat = opts.format ?? (opts.out?.toLowerCase().endsWith('.html') ? 'html' : 'md');
    const reportOptions = opts.reference ? { reference: opts.reference } : {};
    const text = format === 'html' ? renderHtml(result, reportOptions)
      : format === 'github-action-benchmark' ? JSON.stringify(toGithubActionBenchmark(result, { metric: opts.metric ?? 'rps' }), null, 2) + '\n'
        : renderMarkdown(result, reportOptions);
    if (opts.out) {
      await writeFileAtomic(opts.out, text);
      io.stderr(`wrote ${opts.out}\n`);
    } else io.stdout(text);
    return 0;
  } catch (e) {
    return userErrorExit(e, io);
  }
}

/**
 * `benchsuite report <results.json> [--format md|html|github-action-benchmark] [--out FILE]`.
 * `run` returns the exit code (and sets `process.exitCode`).
 */
export const reportCommand = defineCommand({
  meta: { name: 'report', description: 'Render a result document as Markdown, self-contained HTML or github-action-benchmark JSON' },
  args: {
    results: { type: 'positional', description: 'Result JSON written by `benchsuite run`', required: true },
    format: { type: 'enum', options: ['md', 'html', 'github-action-benchmark'], description: 'Output format (default: html when --out ends in .html, else md)' },
    out: { type: 'string', alias: 'o', description: 'Write to FILE (atomically) instead of stdout', valueHint: 'FILE' },
    reference: { type: 'string', description: 'Target shown as 100% (default: node-http if present, else the first)' },
    metric: { type: 'enum', options: ['rps', 'p99'], default: 'rps', description: 'github-action-benchmark: rps (customBiggerIsBetter) or p99 in ms (customSmallerIsBetter)' },
  },
  async run({ args }) {
    const code = await runReport({
      results: args.results,
      ...(args.format ? { format: args.format as ReportFormat } : {}),
      ...(args.out ? { out: args.out } : {}),
      ...(args.reference ? { reference: args.reference } : {}),
      metric: args.metric === 'p99' ? 'p99' : 'rps',
    });
    process.exitCode = code;
    return code;
  },
});
