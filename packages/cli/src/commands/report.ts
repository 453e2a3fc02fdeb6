import type { GithubActionBenchmarkMetric, RenderOptions } from '@benchsuite/report';
import { defineCommand } from '../_cli.js';
import { EXIT, UsageError } from '../_errors.js';
import { formatNames, formats, isFormatName, METRICS, stacksFilesOf, UnknownReferenceError } from '../_formats.js';
import { useColor, writeFileAtomic } from '../_io.js';
import { readProfileStacks, readResultFile } from '../_results.js';
import { ValueError } from '../_values.js';

const resultFormat = (raw: string) => {
  if (!isFormatName(raw)) throw new ValueError(`expected one of ${formatNames.join(', ')}, got "${raw}"`);
  return raw;
};
const metric = (raw: string) => {
  if (!Object.hasOwn(METRICS, raw)) throw new ValueError(`expected one of ${Object.keys(METRICS).join(', ')}, got "${raw}"`);
  return raw as GithubActionBenchmarkMetric;
};
const text = (raw: string) => raw;

/** `benchsuite report <results.json>`: a result rendered by one of the report package's formats. */
export const reportCommand = defineCommand({
  name: 'report',
  summary: 'render a result (results.json) in one of the report formats',
  positionals: [{ name: 'results.json', help: 'a result written by `benchsuite run`', required: true }],
  flags: {
    format: {
      type: 'value',
      value: 'FORMAT',
      parse: resultFormat,
      help: `output format: ${formatNames.map((n) => `${n} (${formats[n].description})`).join('; ')}`,
      default: 'html when --out ends in .html, else md',
    },
    out: { type: 'value', short: 'o', value: 'FILE', parse: text, help: 'write to FILE (atomically) instead of stdout' },
    reference: { type: 'value', value: 'NAME', parse: text, help: 'target the relative figures are shown against', default: "the run's reference" },
    history: { type: 'switch', help: "html: draw each pair's series from the history (this run's machine and design) with its change points" },
    db: { type: 'value', value: 'PATH', parse: text, help: "with --history: the history's SQLite file", default: '<tool cache>/history.sqlite' },
    metric: { type: 'value', value: 'NAME', parse: metric, help: `github-action-benchmark figure: ${Object.keys(METRICS).join(', ')}`, default: 'rps' },
  },
  examples: [
    ['benchsuite report results.json', 'Markdown on stdout'],
    ['benchsuite report results.json -o report.html', 'self-contained HTML, written atomically'],
    ['benchsuite report results.json --format terminal', 'the summary `benchsuite run` printed'],
    ['benchsuite report results.json --format github-action-benchmark > bench.json', 'entries for github-action-benchmark'],
    ['benchsuite report results.json -o report.html --history', "with each pair's series from the history, change points marked"],
  ],
  exitCodes: [
    [EXIT.ok, 'written'],
    [EXIT.usage, 'bad usage, or the file is missing, not JSON or not a valid result (the message names the field)'],
  ],
  async run({ flags, positionals }, io) {
    const result = await readResultFile(positionals[0]!);
    const name = flags.format ?? (flags.out?.toLowerCase().endsWith('.html') ? 'html' : 'md');
    const stacks = await readProfileStacks(positionals[0]!, stacksFilesOf(result));
    if (flags.db !== undefined && !flags.history) throw new UsageError('--db names the history file of --history; add --history, or drop --db');
    let history: RenderOptions['history'];
    if (flags.history) {
      const { historyFile, historyOfRun, recordFor } = await import('./history.js');
      history = await historyOfRun(historyFile(flags.db, io), recordFor(result, {}));
    }
    let text: string;
    try {
      text = formats[name].render(result, {
        ...(flags.reference ? { reference: flags.reference } : {}),
        ...(flags.metric ? { metric: flags.metric } : {}),
        color: !flags.out && useColor(io.stdoutTTY, io.env),
        stacks,
        ...(history ? { history } : {}),
      });
    } catch (err) {
      if (err instanceof UnknownReferenceError) throw new UsageError(`--reference: ${err.message}`);
      throw err;
    }
    if (flags.out) {
      await writeFileAtomic(flags.out, text);
      io.stderr(`wrote ${flags.out}\n`);
    } else io.stdout(text);
    return EXIT.ok;
  },
});
