/**
 * @benchsuite/sdk — the public API: define scenarios, targets and drivers, run a suite, read and
 * estimate results. The exports are what users (the README's examples, custom drivers and
 * targets), the CLI, the report and the bench scripts need, with the types of their parameters;
 * the rest stays inside the package, so knip reports any of it that nothing uses.
 */
export {
  defineScenario,
  parseScenario,
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
export { METHOD_NAMES, methodSentences, type MethodName } from './run/methods/index.js';
export type { MethodSentences } from './run/methods/method.js';
export { defineDriver, type Driver, type DriverCapabilities, type DriverRunOptions, type DriverRunResult } from './driver.js';
export { defineConfig, type BenchsuiteConfig, type RunSuiteOptions, type SuiteEvent, type LoadOverrides } from './options.js';
export { BenchsuiteConfigError, DriverUnusableError } from './errors.js';
export * from './result-schema.js';
export { upgradeResult, ResultVersionError, READABLE_RESULT_VERSIONS } from './result/upgrade.js';
export { createHistogram, encodeHistogram, decodeHistogram, mergeHistograms, latencyOf, type Histogram } from './histogram.js';
export { runSuite, type RunHooks } from './run/suite.js';
export { planSuiteRun, planRun } from './run/planning.js';
export type { SuiteRunPlan } from './run/suite-plan.js';
export { resolveReference } from './reference.js';
export { validateSuite } from './validate.js';
export { setupTarget } from './run/phases.js';
export { isClientBound, serverCpuExactOf } from './window-resources.js';
export { startProcess, stopAllProcesses, guardTempDir, ProcessStartError, type RunningProcess } from './process.js';
export { drivers, driverNames, resolveDriver, type DriverNeeds } from './drivers/index.js';
export { autocannonDriver } from './drivers/autocannon.js';
export { verifyScenario, send } from './verify.js';
export { cpuTimes } from './procfs.js';
export { decidePinning } from './environment.js';
export { rotationWindowSec } from './run/warmup.js';
export { warmupWindows } from './warmup-windows.js';
export { DEFAULTS, QUICK } from './defaults.js';
export type { DesignOptions, Design } from './design-options.js';
export { median, quantileSorted, hierarchicalBootstrap, relativeHalfWidth, subSeed } from './analysis/bootstrap.js';
export { varianceComponents, meansVariance, optimalRounds, blocksAhead, blocksForPrecision } from './analysis/components.js';
export { decideStop, scenarioShares, type ScenarioAhead } from './analysis/stopping.js';
export { bestCleanPoint, kneeOf, sweepOf, isCleanLevel, type SweepLevel } from './analysis/sweep.js';
export { perProcessOf, processFigures, workerCount } from './analysis/per-process.js';
export {
  estimate,
  overallOf,
  summarizePair,
  rankScenario,
  separated,
  disturbedWindows,
  WindowIndex,
  INTERVAL_METHOD,
  POOLED_REFERENCE,
  type EstimatorOptions,
} from './analysis/summarize.js';
export { blockInterval } from './analysis/bootstrap.js';
export { covBand, blockCov, pairVerdict, runVerdict, VERDICT_BANDS } from './analysis/verdict.js';
export { chiSquareQuantile, normalCdf, normalQuantile, tQuantile } from './analysis/student-t.js';
export { meanFactor, roundOneUnits } from './analysis/design-bias.js';
export { controlOf, controlTwin, processSdOf, twinOf } from './analysis/control.js';
export { MEMORY_REDUCER_MODES, memoryReducerFlags, nodeRuntimeFlags, withNodeFlags, youngGenerationFlags, type MemoryReducerMode } from './runtimes.js';
export { isReplica, processOf } from './replicas.js';
export { mulberry32, normalDraw } from './random.js';
export { thresholdsOf, recordedThresholds } from './design-thresholds.js';
export { changeEstimate, headlineGroups, CHANGE_METHOD, type Change } from './analysis/compare.js';
export * from './profile/index.js';
export { k6Driver, findK6 } from './drivers/k6.js';
export { vegetaDriver, findVegeta } from './drivers/vegeta.js';
export { h2loadDriver, findH2load } from './drivers/h2load.js';
export { histogramFromTrend, quantileGrid, type K6Schedule, type K6Summary } from './k6/script.js';
export { exportK6 } from './k6/export.js';
export { mergeK6, summariesIn, type SourcedSummary } from './k6/merge.js';
export { parseThresholds, checkThresholds, errorShare, failedVerifyOutcomes } from './analysis/thresholds.js';
export { capacityDurationSec, capacitySettings, searchCapacity } from './run/capacity.js';
export { tools, toolNames, installTool, type ToolName } from './tools.js';
export { parseRuntime, ensureRuntime, runtimeVariants, runtimePackage, hostRuntime, type InstalledRuntime } from './runtimes.js';
export { toolCacheDir } from './cache.js';
export { readPlan, planOptions, diffPlans, type PlanAsk, type RunPlan } from './run/plan.js';
export { unusableDir } from './output-dir.js';
export { planBudget, minimumSec, type BudgetChange, type BudgetPlan, type RunForecast } from './analysis/budget.js';
export type { PlannedScenario } from './analysis/round-cost.js';
export {
  expectedHalfWidth,
  fellAgainst,
  forecastBudget,
  forecastOutcome,
  likelyRange,
  budgetFor,
  noiseComponents,
  typicalComponents,
  type ForecastOutcome,
  type NoiseComponents,
} from './analysis/forecast.js';
export { streamSpecSchema, type ObservedRequest, type StreamSpec, type StreamSpecInput } from './stream/spec.js';
export { parseSseEvents } from './stream/client.js';
export { dumpCost } from './instructions/callgrind.js';
