import type { BenchResult } from '@benchsuite/sdk';
import { renderCompareJson, renderCompareMarkdown, type CompareOutcome } from './compare.js';
import { toGithubActionBenchmark, type GithubActionBenchmarkMetric } from './github-action-benchmark.js';
import { renderHtml } from './html.js';
import { renderMarkdown } from './markdown.js';
import { renderTerminal } from './terminal.js';
import type { ReportOptions } from './model.js';

/**
 * An output format: one method from its input to text. Renderers only return text; the CLI
 * decides where it goes (file, stdout, stderr).
 */
export interface Format<In, Options = RenderOptions> {
  /** One line for help texts. */
  readonly description: string;
  /** File extension of the output, without the dot. */
  readonly extension: string;
  render(input: In, options?: Options): string;
}

/** Options every result format accepts; each uses the ones that apply to it. */
export interface RenderOptions {
  /** Document title (md, html, terminal). */
  title?: string;
  /** Re-estimate the relative figures against this target of the run (all formats but json); see `withReference`. */
  reference?: string;
  /** ANSI colours (terminal). */
  color?: boolean;
  /** Figure of github-action-benchmark entries; default `rps`. */
  metric?: GithubActionBenchmarkMetric;
  /**
   * Collapsed stacks of the profiles, keyed by `summary.stacksFile` (html draws flame graphs from
   * them; see `ReportOptions.stacks` and `stacksFilesOf`). Renderers read no files: the caller does.
   */
  stacks?: Readonly<Record<string, string>>;
  /** Each pair's series from the history, with its changes (html draws them; see `ReportOptions.history`). */
  history?: ReportOptions['history'];
}

/**
 * Every format a result renders to, by name: `run` writes some, `report --format` picks one.
 * The keys are the valid names (`FormatName`).
 * @example writeFileSync(`report.${formats.html.extension}`, formats.html.render(result))
 */
export const formats = {
  md: { description: 'Markdown report (GitHub-flavoured)', extension: 'md', render: (r, o?) => renderMarkdown(r, o) },
  html: { description: 'self-contained HTML report with inline SVG charts (no network, readable without JavaScript)', extension: 'html', render: (r, o?) => renderHtml(r, o) },
  json: { description: 'the result document itself (validated by the schema)', extension: 'json', render: (r) => `${JSON.stringify(r, null, 2)}\n` },
  'github-action-benchmark': {
    description: 'entries for benchmark-action/github-action-benchmark (customBiggerIsBetter; --metric cpu|p99 for customSmallerIsBetter)',
    extension: 'json',
    render: (r, o?) => `${JSON.stringify(toGithubActionBenchmark(r, { ...(o?.metric ? { metric: o.metric } : {}), ...(o?.reference ? { reference: o.reference } : {}) }), null, 2)}\n`,
  },
  terminal: { description: 'plain-text summary for a terminal (colour only when asked)', extension: 'txt', render: (r, o?) => renderTerminal(r, o) },
} satisfies Record<string, Format<BenchResult>>;

export type FormatName = keyof typeof formats;

/** What a comparison format renders: the outcome of `compareResults` and the two results. */
export interface CompareInput {
  outcome: CompareOutcome;
  base: BenchResult;
  head: BenchResult;
}

/**
 * Every format a comparison renders to, by name (`compare --format`).
 * `github-action-benchmark` emits the head run's entries, so the action can keep the history.
 */
export const compareFormats = {
  md: { description: 'Markdown fit for a pull-request comment', extension: 'md', render: (c) => renderCompareMarkdown(c.outcome) },
  json: { description: 'the comparison as JSON', extension: 'json', render: (c) => renderCompareJson(c.outcome) },
  'github-action-benchmark': {
    description: "the head run's github-action-benchmark entries",
    extension: 'json',
    render: (c, o?) => formats['github-action-benchmark'].render(c.head, o),
  },
} satisfies Record<string, Format<CompareInput>>;

export type CompareFormatName = keyof typeof compareFormats;

/** Names of the result formats, for flag validation and help. */
export const formatNames = Object.keys(formats) as FormatName[];
export const compareFormatNames = Object.keys(compareFormats) as CompareFormatName[];

export const isFormatName = (s: string): s is FormatName => Object.hasOwn(formats, s);
export const isCompareFormatName = (s: string): s is CompareFormatName => Object.hasOwn(compareFormats, s);
