import { DEFAULTS } from '@benchsuite/sdk';
import { defineCommand } from '../_cli.js';
import { EXIT, UsageError } from '../_errors.js';
import { compareExitCode, compareFormatNames, compareFormats, compareResults, isCompareFormatName } from '../_formats.js';
import { readResultFile } from '../_results.js';
import { ValueError } from '../_values.js';

const comparisonFormat = (raw: string) => {
  if (!isCompareFormatName(raw)) throw new ValueError(`expected one of ${compareFormatNames.join(', ')}, got "${raw}"`);
  return raw;
};
const gateValue = (raw: string): 'all' | 'instructions' => {
  if (raw !== 'all' && raw !== 'instructions') throw new ValueError(`expected all or instructions, got "${raw}"`);
  return raw;
};
/** Percent: `5` or `5%`. */
const percent = (raw: string) => {
  const n = Number(raw.trim().replace(/%$/, ''));
  if (!raw.trim() || !Number.isFinite(n) || n < 0) throw new ValueError(`expected a non-negative number of percent like 5 or 5%, got "${raw}"`);
  return n;
};

/** `benchsuite compare <base.json> <head.json>`: exit 1 on a significant regression beyond the threshold. */
export const compareCommand = defineCommand({
  name: 'compare',
  summary: 'compare two results with the same estimator; exit 1 on a regression beyond the threshold',
  positionals: [
    { name: 'base.json', help: 'the result of the baseline', required: true },
    { name: 'head.json', help: 'the result of the change', required: true },
  ],
  flags: {
    threshold: { type: 'value', value: 'PCT', parse: percent, help: 'a regression is a drop whose whole 95% interval lies beyond this many percent', default: `${DEFAULTS.compareThresholdPct}%` },
    format: { type: 'value', value: 'FORMAT', parse: comparisonFormat, help: `output format: ${compareFormatNames.map((n) => `${n} (${compareFormats[n].description})`).join('; ')}`, default: 'md' },
    force: { type: 'switch', help: 'compare even when CPU model, cores, driver, pinning, reference or processes (shared or per-scenario) differ' },
    gate: {
      type: 'value',
      value: 'WHAT',
      parse: gateValue,
      help: 'what fails the comparison: all (throughput and instruction counts) or instructions (only the deterministic counts of --instructions runs, for noisy CI runners)',
      default: 'all',
    },
  },
  examples: [
    ['benchsuite compare main.json pr.json', 'a Markdown table for a pull-request comment'],
    ['benchsuite compare main.json pr.json --threshold 3 --format json', 'the comparison as JSON'],
    ['benchsuite compare main.json pr.json --gate instructions', 'gate on instruction counts only (both runs with --instructions)'],
  ],
  exitCodes: [
    [EXIT.ok, 'no regression beyond the threshold'],
    [EXIT.failed, 'a regression beyond the threshold'],
    [EXIT.usage, 'bad usage, an invalid file, or environments that cannot be compared (without --force)'],
  ],
  async run({ flags, positionals }, io) {
    const [base, head] = await Promise.all([readResultFile(positionals[0]!), readResultFile(positionals[1]!)]);
    const outcome = compareResults(base, head, { thresholdPct: flags.threshold ?? DEFAULTS.compareThresholdPct, force: Boolean(flags.force), gate: flags.gate ?? 'all' });
    if (outcome.status === 'incomparable') throw new UsageError(`refusing to compare: ${outcome.message}`);
    io.stdout(compareFormats[flags.format ?? 'md'].render({ outcome, base, head }, {}));
    return compareExitCode(outcome);
  },
});
