export {
  defineScenario,
  parseScenario,
  scenarioRequests,
  connectionSteps,
  type Scenario,
  type ScenarioInput,
  type RequestSpec,
  type RequestSpecInput,
  type LoadProfile,
  type Expectation,
  type PrepareContext,
  type PreparePatch,
} from './scenario.js';
export {
  defineTarget,
  parseTarget,
  targetSupports,
  TargetUnavailableError,
  type Target,
  type TargetInput,
  type ProcessTarget,
  type UrlTarget,
  type ServiceSpec,
  type SetupContext,
  type SetupResult,
} from './target.js';
export { defineDriver, type Driver, type DriverCapabilities, type DriverRunOptions, type DriverRunResult } from './driver.js';
export { defineConfig, type BenchsuiteConfig, type RunSuiteOptions, type SuiteEvent, type LoadOverrides } from './options.js';
export { BenchsuiteConfigError } from './errors.js';
export * from './result-schema.js';
export { createHistogram, encodeHistogram, decodeHistogram, mergeHistograms, latencyOf, type Histogram } from './histogram.js';
export { runSuite, resolveReference } from './run/suite.js';
export { validateSuite } from './validate.js';
export { setupTarget } from './run/phases.js';
export { isClientBound } from './window-resources.js';
export { startProcess, stopAllProcesses, freePort, guardTempDir, ProcessStartError, describeExit, type RunningProcess, type StartProcessOptions, type ExitInfo } from './process.js';
export { drivers, driverNames, driverNeeds, resolveDriver, type DriverName, type DriverChoice, type DriverNeeds } from './drivers/index.js';
export { autocannonDriver } from './drivers/autocannon.js';
export { wrkDriver } from './drivers/wrk.js';
export { verifyScenario, send, type Observed } from './verify.js';
export { processTree, pssBytes, readAllStats, cpuTimes } from './procfs.js';
export { captureEnvironment, decidePinning, sdkVersion } from './environment.js';
export { seededShuffle } from './random.js';
export { DEFAULTS, QUICK } from './defaults.js';
export { designOptionsSchema, type DesignOptions, type Design } from './options.js';
export { median, quantileSorted, hierarchicalBootstrap, relativeHalfWidth, subSeed, type Grouped, type BootstrapOptions } from './analysis/bootstrap.js';
export { varianceComponents, optimalRounds, blocksForPrecision } from './analysis/components.js';
export { decideStop, scenarioBudget, type StopDecision, type StopState, type StopRule } from './analysis/stopping.js';
export { bestCleanPoint, kneeOf, sweepOf, isCleanLevel, type SweepLevel } from './analysis/sweep.js';
export { perProcessOf, processFigures, workerCount, type ProcessSample } from './analysis/per-process.js';
export {
  estimate,
  overallOf,
  summarizePair,
  rankScenario,
  separated,
  ratioGroups,
  WindowIndex,
  RATIO_METHOD,
  ABSOLUTE_METHOD,
  RANKING_METHOD,
  INTERVAL_METHOD,
  type EstimatorOptions,
  type SummarizePairOptions,
} from './analysis/summarize.js';
export { blockInterval } from './analysis/bootstrap.js';
export { covBand, blockCov, pairVerdict, runVerdict, VERDICT_BANDS } from './analysis/verdict.js';
export { tQuantile } from './analysis/student-t.js';
export { thresholdsOf, recordedThresholds, type DesignThresholds } from './design-thresholds.js';
export { changeEstimate, headlineGroups, CHANGE_METHOD, type Change } from './analysis/compare.js';
export * from './profile/index.js';
export { k6Driver, findK6 } from './drivers/k6.js';
export { vegetaDriver, findVegeta } from './drivers/vegeta.js';
export { k6Script, parseK6Summary, histogramFromTrend, quantileGrid, type K6Summary, type K6ScriptOptions } from './k6/script.js';
export { exportK6, testRunManifest, type K6ExportOptions, type ExportedFile } from './k6/export.js';
export { mergeK6, mergePairs, summariesIn, type MergeK6Options } from './k6/merge.js';
export { parseThresholds, evaluateThresholds, checkThresholds, errorShare, type ThresholdTerm } from './analysis/thresholds.js';
export { searchCapacity } from './run/capacity.js';
export { tools, toolNames, installTool, installCommand, type ToolName, type ToolSpec } from './tools.js';
export { parseRuntime, ensureRuntime, runtimeVariants, runtimePackage, hostRuntime, type RuntimeSpec, type InstalledRuntime, type RuntimeKind } from './runtimes.js';
export { toolCacheDir } from './cache.js';
export { readPlan, planOptions, type RunPlan } from './run/log.js';
export { unusableDir } from './output-dir.js';
export { planBudget, budgetSentences, minimumSec, type BudgetPlan, type PlannedScenario, type PlanCosts } from './analysis/budget.js';
export { plannedScenarios, planRun } from './run/suite.js';
export { scenarioKinds, kindOf, type ScenarioKind } from './kinds.js';
export { streamSpecSchema, type ObservedRequest, type StreamSpec, type StreamSpecInput } from './stream/spec.js';
export { parseSseEvents } from './stream/client.js';
