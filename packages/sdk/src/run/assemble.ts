import { DEFAULTS } from '../defaults.js';
import type { Driver } from '../driver.js';
import { captureEnvironment, type Pinning } from '../environment.js';
import {
  RESULT_SCHEMA_VERSION,
  resultSchema,
  type BenchResult,
  type BlockRecord,
  type LoaderFloor,
  type PairSummary,
  type StreamResult,
  type TargetInfo,
  type VerifyOutcome,
  type WindowRecord,
} from '../result-schema.js';
import { connectionSteps, scenarioRequests, type Scenario } from '../scenario.js';
import type { Target } from '../target.js';
import { evaluateThresholds } from '../analysis/thresholds.js';
import { controlOf, controlTwin } from '../analysis/control.js';
import { designBiasOf, withoutUnsteadyRounds } from '../analysis/design-bias.js';
import { overallOf, rankScenario, summarizePair, WindowIndex } from '../analysis/summarize.js';
import type { RunForecast } from '../analysis/budget.js';
import type { IntervalLimits } from '../analysis/limits.js';
import { windowSpec } from './block.js';
import { FLOOR_RESPONDER } from './floor.js';
import { loaderFloorsOf } from '../analysis/loader-floor.js';
import type { RunState } from './state.js';
import { blockAsProcesses, isReplica, windowAsProcess } from '../replicas.js';
import type { SuitePlan } from './suite-plan.js';

/** Everything a finished (or interrupted) run planned, measured and decided, for `assembleResult`. */
export interface RunOutcome {
  /** The run as planned: options, definitions, design, seed, estimator. */
  suite: SuitePlan;
  /** What the run recorded, an interrupted run's part replayed: windows, blocks, stops, replans… */
  state: RunState;
  /** The targets as set up (with their costs) and verified. */
  targets: { infos: Map<string, TargetInfo>; usable: readonly Target[]; verify: VerifyOutcome[] };
  /** Scenarios of other kinds, as their modules returned them. */
  streaming: StreamResult[];
  driver: { driver: Driver; reason: string };
  pinning: Pinning;
  /** Wall clock: `wallSec` counts an interrupted run's part too. */
  time: { startedAt: Date; finishedAt: Date; wallSec: number };
  interrupted: boolean;
  /** What the run's own noise said: the forecast after its first blocks, and what set its intervals. */
  noise?: { measuredForecast?: RunForecast | undefined; limits?: IntervalLimits | undefined };
}

/**
 * The result document: per (scenario, target) pair the summary of its windows, thresholds,
 * rankings, costs' peak memory, the run's environment and where its wall time went; validated
 * against the schema (a mismatch is an internal error, never a user's).
 */
export async function assembleResult(run: RunOutcome): Promise<BenchResult> {
  const { suite, state, pinning, time } = run;
  const { opts, scenarios, loadScenarios, kindScenarios, est, thresholdTerms, slo, instructionsPlan } = suite;
  const { infos, usable, verify } = run.targets;
  const { streaming } = run;
  const { stops, ceilings, profiles, instructions, capacity, loadSec } = state;
  // A target's replicas under its own name, each with its process number (`replicas.ts`).
  const blocks = state.blocks.map(blockAsProcesses);
  const measured = state.windows.map(windowAsProcess);
  // The design's own biases, from the windows as measured (the A/A twin kept in: its round trend
  // says whether a trend is the reference's own); a pair's round 1 that is off its later rounds is
  // left out of that pair's estimates (the windows stay, marked `unsteady`).
  const bias = designBiasOf(
    measured,
    loadScenarios.map((s) => s.name),
    suite.design.reference,
    suite.design.confidence,
    suite.design.processes,
  );
  const windows = withoutUnsteadyRounds(measured, bias, suite.design.reference);
  const floors = loaderFloorsOf(state.floorWindows, { driver: run.driver.driver.name, responder: FLOOR_RESPONDER, est });
  const design = recordedDesign(run);
  // Figures: every (scenario, target) pair that has windows, or that a block started and lost
  // before its first window (its summary then says what it missed, and thresholds count it).
  const windowIndex = new WindowIndex(windows);
  const twin = controlTwin(design);
  const summaries = pairSummaries({ loadScenarios, usable, twin, windows, blocks, windowIndex, est, serverCpus: pinning.serverCpus, design, ceilings, floors });
  const control = twin
    ? controlOf(
        windows,
        loadScenarios.map((s) => s.name),
        est,
        windowIndex,
        design.processes,
      )
    : undefined;
  const loaded = new Set(loadScenarios.map((s) => s.name));
  const thresholdOutcomes =
    thresholdTerms.run.length || thresholdTerms.scenarios.size
      ? evaluateThresholds(
          summaries,
          thresholdTerms.run,
          thresholdTerms.scenarios,
          verify.filter((v) => loaded.has(v.scenario) && v.target !== twin),
        )
      : undefined;
  const rankings = loadScenarios.map((s) => rankScenario(s.name, summaries, design.practicalBand)).filter((r) => r.places.length > 0);
  for (const info of infos.values()) {
    if (!info.costs) continue;
    const peaks = windows.filter((w) => w.status === 'ok' && w.target === info.name).map((w) => (w.status === 'ok' ? w.resources.serverPeakRssBytes : 0));
    info.costs = { ...info.costs, peakRssBytes: peaks.length ? Math.max(...peaks) : null };
  }
  const measuredSec = measuredSecOf(windows, streaming, capacity);
  const { wallSec } = time;
  const firstScenario = loadScenarios[0] ?? scenarios[0]!;
  const result: BenchResult = {
    schemaVersion: RESULT_SCHEMA_VERSION,
    suite: opts.suite,
    startedAt: time.startedAt.toISOString(),
    finishedAt: time.finishedAt.toISOString(),
    interrupted: run.interrupted,
    resumed: opts.resume,
    seed: suite.seed,
    design,
    environment: await environmentOf(run, design, firstScenario),
    scenarios: scenarios.map((sc) => scenarioRecord(sc, design)),
    targets: [...infos.values()].filter((t) => !isReplica(t.name)),
    verify,
    blocks: [...blocks],
    windows: [...windows],
    summaries,
    rankings,
    stops: [...stops],
    profiles: [...profiles],
    ceilings: [...ceilings],
    ...(floors.length ? { loaderFloors: [...floors] } : {}),
    ...(instructionsPlan ? { instructions: [...instructions] } : {}),
    ...(thresholdOutcomes ? { thresholds: thresholdOutcomes } : {}),
    ...(slo ? { capacity: [...capacity] } : {}),
    ...(kindScenarios.length ? { streaming } : {}),
    ...(control ? { control } : {}),
    ...(bias ? { designBias: bias } : {}),
    runner: { peakRssBytes: process.resourceUsage().maxRSS * 1024, wallSec, loadSec, measuredSec },
    overall: { ...overallOf(summaries, windows, loadSec > 0 ? wallSec / loadSec : null, design), ...(run.noise?.limits ? { limits: run.noise.limits } : {}) },
  };
  const checked = resultSchema.safeParse(result);
  if (!checked.success)
    throw new Error(
      `internal error: result does not match its schema: ${checked.error.issues
        .slice(0, 3)
        .map((i) => `${i.path.join('.')}: ${i.message}`)
        .join('; ')}`,
    );
  return checked.data;
}

/** What `pairSummaries` reads of the run. */
interface PairsInput {
  loadScenarios: readonly Scenario[];
  usable: readonly Target[];
  twin: string | undefined;
  windows: readonly WindowRecord[];
  blocks: readonly BlockRecord[];
  windowIndex: WindowIndex;
  est: SuitePlan['est'];
  serverCpus: number[];
  design: BenchResult['design'];
  ceilings: RunState['ceilings'];
  floors: readonly LoaderFloor[];
}

/**
 * Figures: every (scenario, target) pair that has windows, or that a block started and lost before
 * its first window (its summary then says what it missed, and thresholds count it). The A/A twin's
 * figures are the run's control (`result.control`), not a pair to rank or judge; a replica's
 * windows are its target's (its summary pools them).
 */
function pairSummaries(r: PairsInput): PairSummary[] {
  const summaries: PairSummary[] = [];
  for (const s of r.loadScenarios) {
    for (const t of r.usable) {
      if (t.name === r.twin || isReplica(t.name)) continue;
      const inBlock = r.blocks.some((b) => b.scenario === s.name && b.targets.some((x) => x.target === t.name && x.status === 'failed' && x.failure?.phase !== 'interrupted'));
      if (!inBlock && !r.windows.some((w) => w.scenario === s.name && w.target === t.name)) continue;
      summaries.push(
        summarizePair({
          scenario: s.name,
          target: t.name,
          windows: r.windows,
          estimator: r.est,
          serverCpus: r.serverCpus,
          thresholds: r.design,
          index: r.windowIndex,
          ceilingRps: r.ceilings.find((c) => c.scenario === s.name)?.rps.point,
          connectionSteps: connectionSteps(s.load),
          loaderFloor: r.floors.find((f) => f.scenario === s.name),
          blocks: r.blocks,
        }),
      );
    }
  }
  return summaries;
}

/** Seconds measured: every ok window, streaming levels and backpressure phases, and capacity probes (kept with their probes, not in `windows`). */
function measuredSecOf(windows: readonly WindowRecord[], streaming: readonly StreamResult[], capacity: RunState['capacity']): number {
  const streamSec = streaming.reduce((a, r) => a + r.blocks.reduce((b, x) => b + x.levels.reduce((c, l) => c + l.durationSec, 0) + (x.backpressure?.durationSec ?? 0), 0), 0);
  const probeSec = capacity.reduce((a, c) => a + c.blocks.reduce((b, x) => b + x.probes.reduce((d, p) => d + (p.window?.status === 'ok' ? p.window.durationSec : 0), 0), 0), 0);
  return windows.reduce((a, w) => a + (w.status === 'ok' ? w.durationSec : 0), 0) + streamSec + probeSec;
}

/** The run's environment: the driver (its version, the flags of the first scenario's window, why it was chosen), pinning, what servers were started with. */
async function environmentOf(run: RunOutcome, design: BenchResult['design'], firstScenario: Scenario): Promise<BenchResult['environment']> {
  const { pinning } = run;
  const { driver, reason } = run.driver;
  const w = windowSpec(firstScenario, [], design, DEFAULTS.stepSettleSec);
  return captureEnvironment({
    driver: {
      name: driver.name,
      version: await driver.version(),
      flags: driver.flags({
        connections: connectionSteps(firstScenario.load)[0]!,
        durationSec: w.windowSec,
        warmupSec: w.settleSec,
        timeoutSec: firstScenario.load.timeout,
        rate: firstScenario.load.rate,
        requestCount: firstScenario.load.requests,
      }),
      ...(driver.note ? { ceilingNote: driver.note } : {}),
      reason,
    },
    pinning: { enabled: pinning.enabled, tool: pinning.tool, serverCpus: pinning.serverCpus, loaderCpus: pinning.loaderCpus, ...(pinning.reason ? { reason: pinning.reason } : {}) },
    serverEnv: {
      unset: [...new Set(run.suite.targets.flatMap((t) => (t.kind === 'process' ? t.unsetEnv : [])))],
      set: { PORT: '0 (any free port) unless a target sets it', ...(pinning.enabled ? { BENCHSUITE_SERVER_CPUS: pinning.serverCpus.join(',') } : {}) },
    },
  });
}

/** A scenario as the result records it: its requests, expected statuses and load as the design measured it. */
function scenarioRecord(s: Scenario, design: BenchResult['design']): BenchResult['scenarios'][number] {
  const w = windowSpec(s, [], design, DEFAULTS.stepSettleSec);
  return {
    name: s.name,
    ...(s.description ? { description: s.description } : {}),
    ...(s.group ? { group: s.group } : {}),
    ...(s.kind !== 'http' ? { kind: s.kind } : {}),
    requests: scenarioRequests(s),
    expect: { status: Array.isArray(s.expect.status) ? s.expect.status : [s.expect.status] },
    load: {
      connections: [...w.steps],
      warmupSec: w.settleSec,
      ...(w.steps.length > 1 ? { stepWarmupSec: w.laterSettleSec } : {}),
      durationSec: w.windowSec,
      ...(s.load.rate ? { rate: s.load.rate } : {}),
      ...(s.load.requests ? { requests: s.load.requests } : {}),
      timeoutSec: s.load.timeout,
    },
  };
}

/** The design as the result records it: the planned one, with the changes made during the run and the forecast after its first blocks in its budget plan. */
function recordedDesign(run: RunOutcome): BenchResult['design'] {
  const { design, instructionsPlan } = run.suite;
  const measuredForecast = run.noise?.measuredForecast;
  return {
    ...design,
    ...(design.budgetPlan ? { budgetPlan: { ...design.budgetPlan, changes: [...design.budgetPlan.changes, ...run.state.replans], ...(measuredForecast ? { measuredForecast } : {}) } } : {}),
    ...(instructionsPlan ? { instructions: instructionsPlan } : {}),
  };
}
