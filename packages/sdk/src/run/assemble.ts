import { DEFAULTS } from '../defaults.js';
import type { Driver } from '../driver.js';
import { captureEnvironment, type Pinning } from '../environment.js';
import type { Design, RunSuiteOptions } from '../options.js';
import {
  RESULT_SCHEMA_VERSION,
  resultSchema,
  type BenchResult,
  type BlockRecord,
  type Capacity,
  type Ceiling,
  type DesignRecord,
  type InstructionsRecord,
  type PairSummary,
  type ProfileRecord,
  type StopRecord,
  type StreamResult,
  type TargetInfo,
  type VerifyOutcome,
  type WindowRecord,
} from '../result-schema.js';
import { connectionSteps, scenarioRequests, type Scenario } from '../scenario.js';
import type { Target } from '../target.js';
import { evaluateThresholds, type ThresholdTerm } from '../analysis/thresholds.js';
import { overallOf, rankScenario, summarizePair, WindowIndex, type EstimatorOptions } from '../analysis/summarize.js';
import { windowSpec } from './block.js';
import type { InstructionsPlan } from './instructions.js';

/** Everything a finished (or interrupted) run measured and decided, for `assembleResult`. */
export interface RunOutcome {
  opts: Pick<Required<RunSuiteOptions>, 'suite' | 'resume'>;
  scenarios: readonly Scenario[];
  targets: readonly Target[];
  loadScenarios: readonly Scenario[];
  kindScenarios: readonly Scenario[];
  usable: readonly Target[];
  infos: Map<string, TargetInfo>;
  verify: VerifyOutcome[];
  windows: WindowRecord[];
  blocks: BlockRecord[];
  stops: StopRecord[];
  ceilings: Ceiling[];
  profiles: ProfileRecord[];
  instructions: InstructionsRecord[];
  instructionsPlan: InstructionsPlan | undefined;
  capacity: Capacity[];
  slo: { text: string; terms: ThresholdTerm[] } | undefined;
  streaming: StreamResult[];
  est: EstimatorOptions;
  design: DesignRecord & Design;
  pinning: Pinning;
  driver: Driver;
  choice: { reason: string };
  seed: number;
  startedAt: Date;
  /** performance.now() when this process began the run. */
  wall0: number;
  /** Wall seconds of the interrupted run this one resumes. */
  resumedSec: number;
  loadSec: number;
  thresholdTerms: { run: ThresholdTerm[]; scenarios: Map<string, ThresholdTerm[]> };
  signal: AbortSignal;
}

/**
 * The result document: per (scenario, target) pair the summary of its windows, thresholds,
 * rankings, costs' peak memory, the run's environment and where its wall time went; validated
 * against the schema (a mismatch is an internal error, never a user's).
 */
export async function assembleResult(run: RunOutcome): Promise<BenchResult> {
  const {
    opts,
    scenarios,
    targets,
    loadScenarios,
    kindScenarios,
    usable,
    infos,
    verify,
    windows,
    blocks,
    stops,
    ceilings,
    profiles,
    instructions,
    instructionsPlan,
    capacity,
    slo,
    streaming,
    est,
    design,
    pinning,
    driver,
    choice,
    seed,
    startedAt,
    wall0,
    resumedSec,
    loadSec,
    thresholdTerms,
    signal,
  } = run;
  // Figures: every (scenario, target) pair that has windows.
  const windowIndex = new WindowIndex(windows);
  const summaries: PairSummary[] = [];
  for (const s of loadScenarios) {
    for (const t of usable) {
      if (!windows.some((w) => w.scenario === s.name && w.target === t.name)) continue;
      summaries.push(
        summarizePair({
          scenario: s.name,
          target: t.name,
          windows,
          estimator: est,
          serverCpus: pinning.serverCpus,
          thresholds: design,
          index: windowIndex,
          ceilingRps: ceilings.find((c) => c.scenario === s.name)?.rps.point,
          connectionSteps: connectionSteps(s.load),
        }),
      );
    }
  }
  const thresholdOutcomes = thresholdTerms.run.length || thresholdTerms.scenarios.size ? evaluateThresholds(summaries, thresholdTerms.run, thresholdTerms.scenarios) : undefined;
  const rankings = loadScenarios.map((s) => rankScenario(s.name, summaries, design.practicalBand)).filter((r) => r.places.length > 0);
  for (const info of infos.values()) {
    if (!info.costs) continue;
    const peaks = windows.filter((w) => w.status === 'ok' && w.target === info.name).map((w) => (w.status === 'ok' ? w.resources.serverPeakRssBytes : 0));
    info.costs.peakRssBytes = peaks.length ? Math.max(...peaks) : null;
  }
  const okWindows = windows.filter((w) => w.status === 'ok');
  // Streaming levels and backpressure phases are measured time too.
  const streamSec = streaming.reduce((a, r) => a + r.blocks.reduce((b, x) => b + x.levels.reduce((c, l) => c + l.durationSec, 0) + (x.backpressure?.durationSec ?? 0), 0), 0);
  // A capacity search's probes are measured windows too (kept with their probes, not in `windows`).
  const probeSec = capacity.reduce((a, c) => a + c.blocks.reduce((b, x) => b + x.probes.reduce((d, p) => d + (p.window?.status === 'ok' ? p.window.durationSec : 0), 0), 0), 0);
  const measuredSec = okWindows.reduce((a, w) => a + (w.status === 'ok' ? w.durationSec : 0), 0) + streamSec + probeSec;
  const wallSec = (performance.now() - wall0) / 1000 + resumedSec;
  const firstScenario = loadScenarios[0] ?? scenarios[0]!;
  const result: BenchResult = {
    schemaVersion: RESULT_SCHEMA_VERSION,
    suite: opts.suite,
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    interrupted: signal.aborted,
    resumed: opts.resume,
    seed,
    design,
    environment: captureEnvironment({
      driver: {
        name: driver.name,
        version: await driver.version(),
        flags: driver.flags({
          connections: connectionSteps(firstScenario.load)[0]!,
          durationSec: windowSpec(firstScenario, [], design, DEFAULTS.stepSettleSec).windowSec,
          warmupSec: windowSpec(firstScenario, [], design, DEFAULTS.stepSettleSec).settleSec,
          timeoutSec: firstScenario.load.timeout,
          rate: firstScenario.load.rate,
          requestCount: firstScenario.load.requests,
        }),
        ...(driver.note ? { ceilingNote: driver.note } : {}),
        reason: choice.reason,
      },
      pinning: { enabled: pinning.enabled, tool: pinning.tool, serverCpus: pinning.serverCpus, loaderCpus: pinning.loaderCpus, ...(pinning.reason ? { reason: pinning.reason } : {}) },
      serverEnv: {
        unset: [...new Set(targets.flatMap((t) => (t.kind === 'process' ? t.unsetEnv : [])))],
        set: { PORT: '0 (any free port) unless a target sets it', ...(pinning.enabled ? { BENCHSUITE_SERVER_CPUS: pinning.serverCpus.join(',') } : {}) },
      },
    }),
    scenarios: scenarios.map((s) => {
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
    }),
    targets: [...infos.values()],
    verify,
    blocks,
    windows,
    summaries,
    rankings,
    stops,
    profiles,
    ceilings,
    ...(instructionsPlan ? { instructions } : {}),
    ...(thresholdOutcomes ? { thresholds: thresholdOutcomes } : {}),
    ...(slo ? { capacity } : {}),
    ...(kindScenarios.length ? { streaming } : {}),
    runner: { peakRssBytes: process.resourceUsage().maxRSS * 1024, wallSec, loadSec, measuredSec },
    overall: overallOf(summaries, windows, loadSec > 0 ? wallSec / loadSec : null, design),
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
