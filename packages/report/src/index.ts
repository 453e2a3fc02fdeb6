/**
 * @benchsuite/report — pure functions from a result document to text: Markdown, self-contained
 * HTML, a terminal summary, github-action-benchmark entries and base/head comparisons, behind one
 * formats registry. Nothing here reads or writes files or prints; the CLI does that.
 *
 * The exports are what the CLI, the README and users need (and the types of their parameters and
 * results); the tables, views and chart helpers behind them stay inside the package, so knip
 * reports any of them that nothing uses.
 */
export {
  formats,
  compareFormats,
  formatNames,
  compareFormatNames,
  isFormatName,
  isCompareFormatName,
  type Format,
  type FormatName,
  type CompareFormatName,
  type RenderOptions,
  type CompareInput,
} from './formats.js';
export { renderMarkdown } from './markdown.js';
export { renderHtml, renderHistoryHtml } from './html.js';
export {
  renderHistoryChanges,
  renderHistoryCheck,
  roundOneText,
  forecastCoverageText,
  type HistoryChangeView,
  type HistoryCheckView,
  type HistoryControlRunView,
  type HistoryCoverageReportView,
  type HistoryCoverageView,
  type HistoryMachineCoverageView,
  type HistoryFigure,
  type HistoryMachineChangeView,
  type HistoryMachinePart,
  type HistoryMachineView,
  type HistoryPointView,
  type HistoryRoundOneView,
  type HistoryForecastCoverageView,
  type HistoryRuleView,
  type HistorySeriesView,
} from './history.js';
export { renderTerminal, type TerminalOptions } from './terminal.js';
export { buildModel, stacksFilesOf, foldedNotes, runHeaderFacts, forecastText, warmupText, stoppingText, type RunOutlook, type ReportOptions, type ReportModel } from './model.js';
export { headlineColumns, packageTable, type Table } from './tables.js';
export { flameGraphSvg, flameLayout, packageBarsSvg, escapeSvgText, shortFrame, type FlameRect } from './flame.js';
export { UnknownReferenceError } from './reference.js';
export {
  compareResults,
  classifyChange,
  classifyInstructions,
  compareExitCode,
  environmentDifferences,
  renderCompareMarkdown,
  renderCompareJson,
  type CompareOptions,
  type CompareOutcome,
  type Comparison,
} from './compare.js';
export { toGithubActionBenchmark, type GithubActionBenchmarkMetric } from './github-action-benchmark.js';
export { escapeHtml, escapeMarkdown } from './escape.js';
export { fmtHalfWidth, fmtPct } from './units.js';
export { streamEventText } from './stream-tables.js';
export { budgetTexts, noteText, pairVerdictText, type Note } from './notes.js';
