export { defineScenario, parseScenario, scenarioRequests, connectionSteps, type Scenario, type ScenarioInput, type RequestSpec, type RequestSpecInput, type LoadProfile, type Expectation, type PrepareContext, type PreparePatch } from './scenario.js';
export { defineTarget, parseTarget, targetSupports, TargetUnavailableError, type Target, type TargetInput, type ProcessTarget, type UrlTarget, type ServiceSpec, type SetupContext, type SetupResult } from './target.js';
export { defineDriver, type Driver, type DriverRunOptions, type DriverRunResult } from './driver.js';
export { defineConfig, type BenchsuiteConfig, type RunSuiteOptions, type SuiteEvent, type LoadOverrides } from './options.js';
export { BenchsuiteConfigError } from './errors.js';
export * from './result-schema.js';
export { createHistogram, encodeHistogram, decodeHistogram, mergeHistograms, latencyOf, type Histogram } from './histogram.js';
