/**
 * The result document, one file per record under `result/`: this entry re-exports them, so
 * `import { resultSchema } from './result-schema.js'` keeps working. `upgradeResult` brings a
 * document an older benchsuite wrote up to the current version: every reader calls it first.
 */
export { estimateSchema, failureSchema, latencySchema, openLoopSchema, statusCountsSchema, type Estimate, type Latency, type OpenLoop } from './result/common.js';
export * from './result/window.js';
export * from './result/block.js';
export * from './result/summary.js';
export * from './result/design.js';
export * from './result/environment.js';
export * from './result/thresholds.js';
export * from './result/capacity.js';
export * from './result/control.js';
export * from './result/design-bias.js';
export * from './result/loader-floor.js';
export * from './result/instructions.js';
export * from './result/streaming.js';
export * from './result/profiles.js';
export * from './result/document.js';
