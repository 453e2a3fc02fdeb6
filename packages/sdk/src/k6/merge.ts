import { DEFAULTS } from '../defaults.js';
import { captureEnvironment } from '../environment.js';
import { encodeHistogram, latencyOf, mergeHistograms } from '../histogram.js';
import { designOptionsSchema } from '../options.js';
import { RESULT_SCHEMA_VERSION, resultSchema, type BenchResult, type OkWindow } from '../result-schema.js';
import { evaluateThresholds, parseThresholds } from '../analysis/thresholds.js';
import { INTERVAL_METHOD, overallOf, summarizePair, type EstimatorOptions } from '../analysis/summarize.js';
import { recordedThresholds } from '../design-thresholds.js';
import { openLoopRecord } from '../open-loop.js';
import { emptyResources } from '../run/window.js';
import { histogramFromTrend, parseK6Summary, type K6Summary } from './script.js';

/** Every `@@BS {…}` summary line in a runner's output (a log may hold several runners). */
export function summariesIn(text: string): K6Summary[] {
  return text
    .split('\n')
    .filter((l) => l.includes('@@BS {') || l.trim().startsWith('{"benchsuite":"k6-summary/1"'))
    .map((l) => parseK6Summary(l.slice(Math.max(0, l.indexOf('@@BS {')))));
}

export interface MergeK6Options {
  /** Runner summaries, from `summariesIn` over every runner's output. */
  summaries: readonly K6Summary[];
  /** Reference target of the relative figures (default: `node-http` when present, else the first). */
  reference?: string;
  thresholds?: readonly string[];
  /** Where the summaries came from (file names), recorded in the result. */
  sources?: readonly string[];
  seed?: number;
}

/** The merged figures of one (scenario, target): counters summed, histograms combined. */
interface MergedPair {
  scenario: string;
  target: string;
  runners: number;
  requests: number;
  durationSec: number;
  window: Omit<OkWindow, 'scenario' | 'target' | 'block' | 'round' | 'position' | 'index' | 'startedAt' | 'elapsedSec'>;
}

/**
 * Combine N runners' summaries into one figure set per (scenario, target): request and status
 * counts are summed; latency histograms (rebuilt from each runner's quantile grid) are combined,
 * so merged percentiles are those of the combined histogram, never averaged percentiles; the
 * rate is the summed requests over the longest runner's duration.
 */
function mergePairs(summaries: readonly K6Summary[]): MergedPair[] {
  const groups = new Map<string, K6Summary[]>();
  for (const s of summaries) {
    const key = `${s.tags.bs_scenario ?? 'k6'}\u0000${s.tags.bs_target ?? 'target'}`;
    groups.set(key, [...(groups.get(key) ?? []), s]);
  }
  return [...groups.entries()].map(([key, runs]) => {
    const [scenario, target] = key.split('\u0000') as [string, string];
    const histogram = mergeHistograms(runs.map((r) => histogramFromTrend(r.latency)));
    const statusCounts: Record<string, number> = {};
    for (const r of runs) for (const [k, v] of Object.entries(r.statusCounts)) statusCounts[k] = (statusCounts[k] ?? 0) + v;
    const sum = (f: (r: K6Summary) => number) => runs.reduce((a, r) => a + f(r), 0);
    const durationSec = Math.max(...runs.map((r) => r.durationMs / 1000));
    const requests = histogram.totalCount;
    const non2xx = Object.entries(statusCounts).reduce((a, [k, v]) => a + (k.startsWith('2') ? 0 : v), 0);
    const open = runs.some((r) => r.corrected)
      ? openLoopRecord(
          { corrected: mergeHistograms(runs.map((r) => histogramFromTrend(r.corrected))), late: sum((r) => r.late), dropped: sum((r) => r.dropped) },
          requests / Math.max(durationSec, 1e-9),
        )
      : undefined;
    // The k6 pods' machines were not sampled: no resource figures.
    const resources = emptyResources();
    const counters = { statusCounts, errors: sum((r) => r.errors), timeouts: sum((r) => r.timeouts), non2xx, unexpected: sum((r) => r.unexpected) };
    const rps = durationSec > 0 ? requests / durationSec : 0;
    const flags = { clientBound: false, backendBound: false, serverNotSaturated: false, loaderBound: false };
    const step = {
      connections: 1,
      durationSec,
      rps,
      requests,
      ...counters,
      latency: latencyOf(histogram),
      histogram: encodeHistogram(histogram),
      resources,
      ...flags,
      rpsPerCpuSecond: null,
      ...(open ? { openLoop: open } : {}),
    };
    return {
      scenario,
      target,
      runners: runs.length,
      requests,
      durationSec,
      window: {
        status: 'ok',
        durationSec,
        rps,
        requests,
        ...counters,
        latency: step.latency,
        histogram: step.histogram,
        resources,
        ...flags,
        cpuPerRequestUs: null,
        steps: [step],
        excluded: null,
        ...(open ? { openLoop: open } : {}),
      },
    };
  });
}

/**
 * One result document from the runners of a distributed run (`benchsuite export k6` on the
 * k6-operator): one block and one round per (scenario, target), each pair's window the merge of its
 * runners. `report`, `compare` and thresholds read it like any run's result. No server CPU or
 * memory is known here: those figures are absent.
 */
export function mergeK6(o: MergeK6Options): BenchResult {
  if (!o.summaries.length) throw new Error('no runner summaries to merge (expected lines starting with "@@BS {" in the runners\' output)');
  const pairs = mergePairs(o.summaries);
  const now = new Date().toISOString();
  const targets = [...new Set(pairs.map((p) => p.target))];
  const scenarios = [...new Set(pairs.map((p) => p.scenario))];
  const reference = o.reference ?? (targets.includes(DEFAULTS.reference) ? DEFAULTS.reference : targets[0]!);
  if (!targets.includes(reference)) throw new Error(`reference "${reference}" is not among the merged targets: ${targets.join(', ')}`);
  const seed = o.seed ?? 1;
  const design = {
    ...designOptionsSchema.parse({ blocks: { min: 1, max: 1 }, rounds: { min: 1, max: 1 } }),
    reference,
    confidence: DEFAULTS.confidence,
    ...recordedThresholds(),
    intervalMethod: INTERVAL_METHOD,
  };
  const windows: OkWindow[] = pairs.map((p, index) => ({
    ...p.window,
    scenario: p.scenario,
    target: p.target,
    block: 1,
    round: 1,
    position: targets.indexOf(p.target),
    index,
    startedAt: now,
    elapsedSec: p.durationSec,
  }));
  const est: EstimatorOptions = { reference, precision: design.precision, practicalBand: design.practicalBand, bootstrapResamples: design.bootstrapResamples, confidence: design.confidence, seed };
  const summaries = pairs.map((p) => summarizePair({ scenario: p.scenario, target: p.target, windows, estimator: est, serverCpus: [] }));
  const thresholds = o.thresholds?.length
    ? evaluateThresholds(
        summaries,
        o.thresholds.flatMap((t) => parseThresholds(t)),
        new Map(),
      )
    : undefined;
  const runners = Math.max(...pairs.map((p) => p.runners));
  const result: BenchResult = {
    schemaVersion: RESULT_SCHEMA_VERSION,
    suite: 'k6-merged',
    startedAt: now,
    finishedAt: now,
    interrupted: false,
    resumed: false,
    seed,
    design,
    environment: captureEnvironment({
      driver: {
        name: 'k6',
        version: 'unknown',
        flags: [`runners=${runners}`, ...(o.sources ?? []).map((s) => `from=${s}`)],
        reason: `merged from ${o.summaries.length} k6 runner summaries (benchsuite merge)`,
      },
      pinning: { enabled: false, tool: null, serverCpus: [], loaderCpus: [], reason: 'distributed run: runners and servers were not on this machine' },
      serverEnv: { unset: [], set: {} },
    }),
    scenarios: scenarios.map((name) => ({
      name,
      requests: [],
      expect: { status: [] },
      load: { connections: [1], warmupSec: 0, durationSec: Math.max(...pairs.filter((p) => p.scenario === name).map((p) => p.durationSec)), timeoutSec: DEFAULTS.timeoutSec },
    })),
    targets: targets.map((name) => ({ name, kind: 'url' as const, status: 'ok' as const, metadata: {} })),
    verify: [],
    blocks: scenarios.map((s) => ({
      scenario: s,
      block: 1,
      startedAt: now,
      wallSec: 0,
      roundsWallSec: 0,
      plannedRounds: 1,
      rounds: 1,
      extraRounds: 0,
      complete: true,
      targets: targets.map((t) => ({ target: t, status: 'ok' as const, warmupRps: [], steady: true })),
    })),
    windows,
    summaries,
    rankings: [],
    stops: [],
    profiles: [],
    ceilings: [],
    ...(thresholds ? { thresholds } : {}),
    runner: { peakRssBytes: process.resourceUsage().maxRSS * 1024, wallSec: 0, loadSec: 0, measuredSec: windows.reduce((a, w) => a + w.durationSec, 0) },
    overall: overallOf(summaries, windows, null),
  };
  const checked = resultSchema.safeParse(result);
  if (!checked.success)
    throw new Error(
      `internal error: merged result does not match its schema: ${checked.error.issues
        .slice(0, 3)
        .map((i) => `${i.path.join('.')}: ${i.message}`)
        .join('; ')}`,
    );
  return checked.data;
}
