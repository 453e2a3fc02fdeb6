/**
 * @benchsuite/history — finished runs kept in a SQLite file (sql.js: WebAssembly, no native build),
 * by commit, branch, machine fingerprint and design; lasting changes across runs found with
 * E-Divisive means; and the gate that judges a new run by the same rule. Returns data and never
 * prints: the CLI reads and writes files, the report package draws.
 */
export { eDivisive, bestSplit, nextCandidate, segmentsOf, type Candidate, type DetectedChange, type EDivisiveOptions } from './e-divisive.js';
export { findChanges, judgeNewest, stepSize, type Better, type ChangeRule, type SeriesChange, type GateVerdict } from './changes.js';
export {
  FIGURES,
  figureNames,
  recordOf,
  controlOf,
  roundOneOf,
  forecastFactsOf,
  machineOf,
  fingerprintOf,
  designKeyOf,
  designFacts,
  MACHINE_PARTS,
  machinePartNames,
  hardwareOf,
  sameMachine,
  type FigureName,
  type FigureRecord,
  type MachineFacts,
  type MachinePart,
  type SoftwarePart,
  type RunRecord,
  type ControlFacts,
  type RoundOneFacts,
  type ForecastFacts,
  type ControlScenarioRecord,
} from './record.js';
export { HistoryStore, HistoryError, withHistory, defaultHistoryFile, type Series, type SeriesKey, type SeriesPoint, type SeriesFilter, type StoredRun, type StoredControl } from './store.js';
export { MIGRATIONS, HISTORY_SCHEMA_VERSION } from './migrations.js';
export { analyzeSeries, checkRun, changeRule, machineCoverageOf, type AnalyzedSeries, type PlacedChange, type FigureCheck, type CheckOutcome, type MachineChange } from './analyze.js';
export {
  binomialLowerTail,
  coverageOf,
  coverageByMachine,
  coverageRule,
  pooledRoundOne,
  type Coverage,
  type CoverageRule,
  type CoverageReport,
  type MachineCoverage,
  type PooledRoundOne,
  type RunChecks,
  type ForecastCoverage,
  forecastCoverageOf,
} from './coverage.js';
export { NOISE_MODELS, simulateRun, simulateSeries, type NoiseModel, type SimulatedSeries } from './simulate.js';
export { gitFacts } from './git.js';
