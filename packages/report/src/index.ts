/**
 * @benchsuite/report — pure functions from a result document to text: Markdown and
 * self-contained HTML reports, base/head comparisons and github-action-benchmark entries.
 * Nothing here reads or writes files or prints; the CLI does that.
 */
export { renderMarkdown } from './markdown.js';
export { renderHtml } from './html.js';
export { buildModel, pickReference, type ReportOptions, type ReportModel, type ScenarioView, type PairRow, type MissingRow, type MissingKind, type NoisyPair, type PlaceView } from './model.js';
export {
  compareResults, renderCompareMarkdown, renderCompareJson, environmentDifferences,
  type CompareOptions, type CompareResult, type PairComparison, type PairChangeStatus, type MetricChange, type EnvironmentDifference,
} from './compare.js';
export { toGithubActionBenchmark, type GithubActionBenchmarkEntry, type GithubActionBenchmarkOptions } from './github-action-benchmark.js';
export { welchDifference, type WelchDifference } from '@benchsuite/sdk';
export { escapeHtml, escapeMarkdown } from './format.js';
