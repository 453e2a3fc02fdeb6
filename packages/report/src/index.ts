/**
 * @benchsuite/report — pure functions from a result document to text: Markdown, self-contained
 * HTML, a terminal summary, github-action-benchmark entries and base/head comparisons, behind one
 * formats registry. Nothing here reads or writes files or prints; the CLI does that.
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
export { renderMarkdown, markdownTable } from './markdown.js';
export { renderHtml } from './html.js';
export { renderTerminal, terminalTable, type TerminalOptions } from './terminal.js';
export {
  buildModel,
  failureText,
  pinningText,
  driverText,
  loadText,
  stacksFilesOf,
  profileFacts,
  foldedNotes,
  MISSING_LABEL,
  type ReportOptions,
  type ReportModel,
  type ScenarioView,
  type PairRow,
  type StepRow,
  type PlaceRow,
  type MissingRow,
  type MissingKind,
  type Fact,
  type FailureView,
  type ProfileView,
} from './model.js';
export {
  headlineColumns,
  stepColumns,
  rankingColumns,
  costColumns,
  targetTable,
  machineFacts,
  profileFunctionColumns,
  packageTable,
  topFunctionRows,
  PROFILE_TOP_ROWS,
  type Column,
  type Table,
  type Tone,
  type Align,
  type ProfileFunctionRow,
  type PackageShareRow,
} from './tables.js';
export {
  flameGraphSvg,
  flameLayout,
  packageBarsSvg,
  warmColor,
  escapeSvgText,
  type FlameInput,
  type FlameRect,
  type FlameLayout,
  type FlameLayoutOptions,
  type FlameGraphOptions,
  type PackageBarRow,
  type PackageBarsOptions,
} from './flame.js';
export { withReference, UnknownReferenceError } from './reference.js';
export {
  compareResults,
  classifyChange,
  classifyInstructions,
  compareExitCode,
  environmentDifferences,
  renderCompareMarkdown,
  renderCompareJson,
  compareColumns,
  CHANGE_LABEL,
  type CompareOptions,
  type CompareOutcome,
  type Comparison,
  type Incomparable,
  type PairChange,
  type ChangeStatus,
  type InstructionChange,
  type InstructionStatus,
  type EnvironmentDifference,
  type RunRef,
} from './compare.js';
export { toGithubActionBenchmark, type GithubActionBenchmarkEntry, type GithubActionBenchmarkOptions, type GithubActionBenchmarkMetric } from './github-action-benchmark.js';
export { escapeHtml, escapeMarkdown, fmtHalfWidth, fmtPct, shortFrame } from './format.js';
export { streamTables, streamLevelTable, streamCancelTable, streamBackpressureTable, streamEventText } from './stream-tables.js';
export { noteText, pairVerdictText, VERDICT_WORDS, type Note } from './notes.js';
export { designText, stoppingText } from './model.js';
