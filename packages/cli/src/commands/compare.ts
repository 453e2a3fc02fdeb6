import { defineCommand } from 'citty';
import { compareResults, renderCompareJson, renderCompareMarkdown, toGithubActionBenchmark } from '@benchsuite/report';
import { EXIT, UsageError } from '../_errors.js';
import { processIO, readResultFile, userErrorExit, type CommandIO } from './report.js';

export type CompareFormat = 'md' | 'json' | 'github-action-benchmark';

export interface CompareCommandOptions {
  base: string;
  head: string;
  /** Percent; default 5. */
  threshold?: number | string;
  format?: CompareFormat;
  /** Compare even when CPU, core count, driver or pinning differ. */
  force?: boolean;
}

function parseThreshold(t: number | string | undefined): number {
  if (t === undefined || t === '') return 5;
  const n = typeof t === 'number' ? t : Number(String(t).replace(/%$/, ''));
  if (!Number.isFinite(n) || n < 0) throw new UsageError(`--threshold must be a non-negative number of percent, got ${JSON.stringify(String(t))}`);
  return n;
}

/**
 * `benchsuite compare`: 0 without a significant regression beyond the threshold, 1 with one,
 * 2 for a user error or environments that differ in a way that matters (without --force).
 */
export async function runCompare(opts: CompareCommandOptions, io: CommandIO = processIO): Promise<number> {
  try {
    const threshold = parseThreshold(opts.threshold);
    const [base, head] = await Promise.all([readResultFile(opts.base), readResultFile(opts.head)]);
    const cmp = compareResults(base, head, { threshold });
    if (!cmp.environment.comparable && !opts.force) {
      const what = cmp.environment.differences.filter((d) => d.blocking).map((d) => `${d.field} "${d.base}" vs "${d.head}"`).join('; ');
      throw new UsageError(`refusing to compare: the environments differ (${what}); the numbers would measure the machine, not the change. Use --force to compare anyway.`);
    }
    const format = opts.format ?? 'md';
    io.stdout(format === 'json' ? renderCompareJson(cmp)
      : format === 'github-action-benchmark' ? JSON.stringify(toGithubActionBenchmark(head), null, 2) + '\n'
        : renderCompareMarkdown(cmp));
    return cmp.regressed ? EXIT.failed : EXIT.ok;
  } catch (e) {
    return userErrorExit(e, io);
  }
}

/**
 * `benchsuite compare <base.json> <head.json> [--threshold 5] [--format md|json|github-action-benchmark] [--force]`.
 * `run` returns the exit code (and sets `process.exitCode`).
 */
export const compareCommand = defineCommand({
  meta: { name: 'compare', description: 'Compare two result documents: change in RPS and p99 with Welch 95% CIs; exit 1 on a significant regression' },
  args: {
    base: { type: 'positional', description: 'Result JSON of the baseline', required: true },
    head: { type: 'positional', description: 'Result JSON of the change', required: true },
    threshold: { type: 'string', default: '5', description: 'Regression threshold in percent', valueHint: 'PERCENT' },
    format: { type: 'enum', options: ['md', 'json', 'github-action-benchmark'], default: 'md', description: 'Output format (github-action-benchmark emits the head\'s entries)' },
    force: { type: 'boolean', default: false, description: 'Compare even if CPU model, core count, driver or pinning differ' },
  },
  async run({ args }) {
    const code = await runCompare({
      base: args.base, head: args.head, threshold: args.threshold, format: args.format as CompareFormat, force: args.force,
    });
    process.exitCode = code;
    return code;
  },
});
