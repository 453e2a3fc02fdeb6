import type { FormatName, GithubActionBenchmarkMetric } from '@benchsuite/report';

/*
 * Every renderer the CLI calls comes through this module, from @benchsuite/report's registries:
 * the CLI writes and prints only what these return, and format names, extensions and help lines
 * are the registry's.
 */
export {
  formats,
  compareFormats,
  formatNames,
  compareFormatNames,
  isFormatName,
  isCompareFormatName,
  renderTerminal,
  compareResults,
  compareExitCode,
  UnknownReferenceError,
  stacksFilesOf,
} from '@benchsuite/report';

/** The report files `benchsuite run` writes beside `results.json`. */
export const RUN_REPORTS = ['md', 'html'] as const satisfies readonly FormatName[];

/** github-action-benchmark figures; `satisfies` fails the build when the report's list changes. */
export const METRICS = { rps: true, relative: true, cpu: true, p99: true } as const satisfies Record<GithubActionBenchmarkMetric, true>;
