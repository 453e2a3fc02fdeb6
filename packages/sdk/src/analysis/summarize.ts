import { mergeOpenLoop } from '../open-loop.js';
import { decodeHistogram, encodeHistogram, latencyOf, mergeHistograms } from '../histogram.js';
import type { BenchResult, BlockRecord, Estimate, LoaderFloor, NoiseLabel, OkWindow, PairSummary, Ranking, WindowRecord } from '../result-schema.js';
import { thresholdsOf, type DesignThresholds } from '../design-thresholds.js';
import { DEFAULTS } from '../defaults.js';
import { blockInterval, hierarchicalBootstrap, median, relativeHalfWidth, subSeed, type Grouped } from './bootstrap.js';
import { varianceComponents } from './components.js';
import { perProcessOf } from './per-process.js';
import { loaderShareOf } from './loader-share.js';
import { isCleanLevel, sweepOf } from './sweep.js';
import { twinOf, windowProcess } from '../replicas.js';
import { pairVerdict, runVerdict } from './verdict.js';

/** What the estimators need of the design. */
export interface EstimatorOptions {
  reference: string;
  precision: number;
  practicalBand: number;
  bootstrapResamples: number;
  confidence: number;
  seed: number;
}

/** How every interval is obtained; recorded in `result.design.intervalMethod`. */
export const INTERVAL_METHOD =
  'the wider of a two-level percentile bootstrap (blocks, then rounds within blocks) and, with 2 or more blocks, a random-effects t-interval on the per-block medians (log scale, Student t with blocks − 1 degrees of freedom)';
/**
 * A ratio to the reference in a run with the A/A control divides, round by round, by the geometric
 * mean of the reference's two processes in that round (the reference and its twin, `WindowIndex`):
 * both serve every round of the block anyway, and one process alone put its own level into every
 * ratio of the block (in a 6-minute run of 2026-12-02 the reference's process ran about a quarter
 * slow in one block, and all four ratios of that block moved with it). The reference's part of a
 * ratio's variance, processes and windows alike, is then halved; the A/A figure itself stays the
 * twin ÷ the reference (`AA_METHOD`).
 */
export const POOLED_REFERENCE = "per round, to the geometric mean of the reference's processes (with the A/A control, the reference and its twin)";
export const RATIO_METHOD = `median of per-round paired ratios, ${POOLED_REFERENCE}; 95% interval: ${INTERVAL_METHOD}`;
/** The A/A control's own ratio: the twin ÷ the reference alone. */
export const AA_METHOD = `median of per-round ratios of the twin to the reference; 95% interval: ${INTERVAL_METHOD}`;
export const ABSOLUTE_METHOD = `median over windows; 95% interval: ${INTERVAL_METHOD}`;

const usable = (w: WindowRecord): w is OkWindow => w.status === 'ok' && w.excluded === null;

/** A figure's point and interval from grouped samples. */
export function estimate(groups: Grouped, o: EstimatorOptions, key: Array<string | number>, method: string): Estimate {
  const all = groups.flat();
  const point = median(all);
  const boot = hierarchicalBootstrap(groups, median, { resamples: o.bootstrapResamples, seed: subSeed(o.seed, ...key), confidence: o.confidence });
  const re = blockInterval(groups, point, o.confidence);
  // The hull: the bootstrap keeps the within-block shape (skew, a single block), the t-interval
  // the price of estimating the between-block spread from few blocks.
  const ci: [number, number] | null = boot && re ? [Math.min(boot[0], re[0]), Math.max(boot[1], re[1])] : (boot ?? re);
  return { point: Number.isFinite(point) ? point : 0, ci95: ci, halfWidth: relativeHalfWidth(point, ci), n: all.length, method };
}

/**
 * Index of usable windows: scenario → block → round → target → its windows, one per process (a
 * target with replicas, `design.replicas`, has one per replica; `replicas.ts`).
 */
export class WindowIndex {
  private readonly map = new Map<string, OkWindow[]>();
  readonly blocksOf = new Map<string, number[]>();
  constructor(windows: readonly WindowRecord[]) {
    for (const w of windows) {
      if (!usable(w)) continue;
      const key = `${w.scenario}\0${w.block}\0${w.round}\0${windowProcess(w).target}`;
      const list = this.map.get(key);
      if (list) list.push(w);
      else this.map.set(key, [w]);
      const blocks = this.blocksOf.get(w.scenario) ?? [];
      if (!blocks.includes(w.block)) blocks.push(w.block);
      this.blocksOf.set(w.scenario, blocks);
    }
  }
  /** A target's windows of one round, one per process (empty when none was usable). */
  all(scenario: string, block: number, round: number, target: string): readonly OkWindow[] {
    return this.map.get(`${scenario}\0${block}\0${round}\0${target}`) ?? [];
  }
  /**
   * The reference's processes in one round as `target` is compared with them: the reference's
   * own, and its A/A twin's unless `target` is the twin (`POOLED_REFERENCE`).
   */
  referenceSide(scenario: string, block: number, round: number, target: string, reference: string): readonly OkWindow[] {
    const own = this.all(scenario, block, round, reference);
    const twin = twinOf(reference);
    if (target === twin || target === reference) return own;
    const second = this.all(scenario, block, round, twin);
    return second.length ? [...own, ...second] : own;
  }
  /**
   * f(target's window, reference's window) in one round, or null where either has none: with one
   * process each, f itself; with replicas, or the reference's A/A twin beside it
   * (`referenceSide`), the geometric mean of f over every pair of their processes (for a ratio: the
   * geometric mean of the target's processes ÷ that of the reference's), or null when a value is
   * not positive.
   */
  pairedRound(scenario: string, block: number, round: number, target: string, reference: string, f: (t: OkWindow, r: OkWindow) => number | null): number | null {
    const ts = this.all(scenario, block, round, target);
    const rs = this.referenceSide(scenario, block, round, target, reference);
    if (!ts.length || !rs.length) return null;
    if (ts.length === 1 && rs.length === 1) return f(ts[0]!, rs[0]!);
    let logs = 0;
    let n = 0;
    for (const t of ts) {
      for (const r of rs) {
        const v = f(t, r);
        if (v === null || !Number.isFinite(v) || v <= 0) return null;
        logs += Math.log(v);
        n++;
      }
    }
    return Math.exp(logs / n);
  }
  /** Per block, the per-round value of f(target window, reference window) where both exist. */
  paired(scenario: string, target: string, reference: string, rounds: (block: number) => number, f: (t: OkWindow, r: OkWindow) => number | null): number[][] {
    return (this.blocksOf.get(scenario) ?? []).map((b) => {
      const out: number[] = [];
      for (let r = 1; r <= rounds(b); r++) {
        const v = this.pairedRound(scenario, b, r, target, reference, f);
        if (v !== null && Number.isFinite(v)) out.push(v);
      }
      return out;
    });
  }
}

/** Rounds recorded per block of a scenario, from the windows (resumed blocks included). */
function roundsPerBlock(windows: readonly WindowRecord[], scenario: string): (block: number) => number {
  const max = new Map<number, number>();
  for (const w of windows) if (w.scenario === scenario) max.set(w.block, Math.max(max.get(w.block) ?? 0, w.round));
  return (b) => max.get(b) ?? 0;
}

/** Grouped per-round ratios of a target to the reference (throughput), the headline samples. */
export function ratioGroups(windows: readonly WindowRecord[], scenario: string, target: string, reference: string, index = new WindowIndex(windows)): number[][] {
  return index.paired(scenario, target, reference, roundsPerBlock(windows, scenario), (t, r) => (r.rps > 0 ? t.rps / r.rps : null));
}

function noiseLabel(windowCov: number | null, excluded: number, meanSteal: number, t: DesignThresholds): NoiseLabel {
  if (excluded > 0 || meanSteal > t.disturbedSteal) return 'disturbed';
  if (windowCov !== null && windowCov > t.noisyWindowCov) return 'noisy';
  return 'quiet';
}

/** Pooled within-block coefficient of variation of grouped values. */
function withinCov(groups: Grouped): number | null {
  const vc = varianceComponents(groups.filter((g) => g.length > 1).map((g) => g.map((x) => Math.log(x))));
  return vc.within;
}

/** What `summarizePair` needs: the pair, the run's windows, the estimators and the recorded thresholds. */
export interface SummarizePairOptions {
  scenario: string;
  target: string;
  /** Every window of the run (the reference's included). */
  windows: readonly WindowRecord[];
  estimator: EstimatorOptions;
  /** Cores the server was pinned to. */
  serverCpus: number[];
  /** The thresholds the run recorded (`result.design`); `DEFAULTS` for those missing. */
  thresholds?: Partial<DesignThresholds> | undefined;
  /** An index of `windows`, shared across pairs to save rebuilding it. */
  index?: WindowIndex | undefined;
  /** The scenario's backend ceiling, req/s, for `backendShare`. */
  ceilingRps?: number | undefined;
  /** The scenario's connection steps, for a pair none of whose windows succeeded. */
  connectionSteps?: readonly number[] | undefined;
  /** The scenario's loader floor, for `loaderShare`. */
  loaderFloor?: Pick<LoaderFloor, 'steps'> | undefined;
  /** The run's blocks: a target that failed in one missed its remaining rounds there (`missed`). Without them, each failed window counts once. */
  blocks?: readonly BlockRecord[] | undefined;
}

/**
 * The load a pair missed (`PairSummary.missed`): per block where its target failed (not by an
 * interrupt), the rounds it did not complete, at least one; elsewhere (no block records, or a record
 * that does not say so), each failed window. Each missed window stands for the pair's median req/s × that block's window length (the
 * median over the scenario's measured windows there, else over the pair's), or its fixed count;
 * at least one request per connection of each step, the requests a failed window left unanswered
 * (all a pair with no measured window can be said to have sent).
 *
 * Why expected requests rather than the whole window as one failure: the error share stays a
 * share of sends, so one failed window among many counts as the traffic it stood for, not as a
 * single request (which would let a server that stops answering pass `errors<1%` on the windows
 * before) nor as everything.
 */
function missedOf(scenario: string, target: string, windows: readonly WindowRecord[], blocks: readonly BlockRecord[] | undefined, steps: readonly number[]): PairSummary['missed'] {
  const mine = windows.filter((w) => w.scenario === scenario && w.target === target);
  const okMine = mine.filter((w): w is OkWindow => w.status === 'ok');
  const perBlock: Array<{ block: number; windows: number }> = [];
  const failedIn = new Set<number>();
  for (const b of blocks ?? []) {
    if (b.scenario !== scenario) continue;
    const t = b.targets.find((x) => x.target === target);
    if (t?.status !== 'failed' || t.failure?.phase === 'interrupted') continue;
    failedIn.add(b.block);
    const measured = okMine.filter((w) => w.block === b.block).length;
    perBlock.push({ block: b.block, windows: Math.max(1, b.rounds - measured) });
  }
  // Failed windows of a block whose record does not say the target failed (older results, no records).
  for (const w of mine) if (w.status === 'failed' && w.failure.phase !== 'interrupted' && !failedIn.has(w.block)) perBlock.push({ block: w.block, windows: 1 });
  if (!perBlock.length) return undefined;
  const rate = okMine.length ? median(okMine.map((w) => w.rps)) : 0;
  const floor = (okMine[0]?.steps.map((s) => s.connections) ?? steps).reduce((a, c) => a + c, 0);
  let requests = 0;
  for (const { block, windows: n } of perBlock) {
    const fixed = okMine.find((w) => w.fixedRequests !== undefined);
    const inBlock = windows.filter((w): w is OkWindow => w.status === 'ok' && w.scenario === scenario && w.block === block).map((w) => w.durationSec);
    const durationSec = inBlock.length ? median(inBlock) : okMine.length ? median(okMine.map((w) => w.durationSec)) : 0;
    const expected = fixed ? fixed.fixedRequests! * fixed.steps.length : Math.round(rate * durationSec);
    requests += n * Math.max(floor, expected);
  }
  return { windows: perBlock.reduce((a, b) => a + b.windows, 0), requests };
}

/** A pair's windows by what happened to them: measured, failed, left out for steal, and each bottleneck flag. */
function windowCounts(ok: readonly OkWindow[], failed: number, excludedSteal: number): PairSummary['windows'] {
  return {
    ok: ok.length,
    failed,
    excludedSteal,
    clientBound: ok.filter((w) => w.clientBound).length,
    backendBound: ok.filter((w) => w.backendBound).length,
    serverNotSaturated: ok.filter((w) => w.serverNotSaturated).length,
    loaderBound: ok.filter((w) => w.loaderBound).length,
    ...(ok.some((w) => w.clientBound === null) ? { clientBoundUnknown: ok.filter((w) => w.clientBound === null).length } : {}),
  };
}

/** What `stepSummaries` reads of a pair: its names, the estimators, the index of the run's windows and its rounds per block. */
interface StepContext {
  scenario: string;
  target: string;
  estimator: EstimatorOptions;
  index: WindowIndex;
  rounds: (block: number) => number;
  connectionSteps?: readonly number[] | undefined;
}

/**
 * A pair's figures per connection step: req/s and its ratio to the reference over the usable
 * windows, latency (the pair's merged histogram when there is one step), counters over every
 * window that ran, the bottleneck flags, and a stepped load's own histogram and open-loop figures.
 */
function stepSummaries(c: StepContext, use: readonly OkWindow[], ok: readonly OkWindow[], blockIds: readonly number[], merged: ReturnType<typeof mergeHistograms>): PairSummary['steps'] {
  const { scenario, target, estimator: o, index, rounds, connectionSteps } = c;
  const isRef = target === o.reference;
  const key = [scenario, target];
  const stepCount = use[0]?.steps.length ?? ok[0]?.steps.length ?? connectionSteps?.length ?? 1;
  return Array.from({ length: stepCount }, (_, i) => {
    const st = use.map((w) => w.steps[i]).filter((s) => s !== undefined);
    const stepGroups = blockIds.map((b) =>
      use
        .filter((w) => w.block === b)
        .map((w) => w.steps[i]?.rps)
        .filter((v): v is number => v !== undefined),
    );
    const stepRatio = isRef ? null : index.paired(scenario, target, o.reference, rounds, (t, r) => (r.steps[i]?.rps ? (t.steps[i]?.rps ?? NaN) / r.steps[i]!.rps : null));
    // Counters over every window that ran, as the pair's: a window left out of the estimates (steal, an unsteady round 1) still sent and was answered.
    const ran = ok.map((w) => w.steps[i]).filter((s) => s !== undefined);
    const statusCounts: Record<string, number> = {};
    for (const x of ran) for (const [code, n] of Object.entries(x.statusCounts)) statusCounts[code] = (statusCounts[code] ?? 0) + n;
    const counters = {
      requests: ran.reduce((a, x) => a + x.requests, 0),
      statusCounts,
      errors: ran.reduce((a, x) => a + x.errors, 0),
      timeouts: ran.reduce((a, x) => a + x.timeouts, 0),
      unexpected: ran.reduce((a, x) => a + x.unexpected, 0),
    };
    const stepHistogram = stepCount === 1 ? merged : mergeHistograms(st.map((s) => decodeHistogram(s.histogram)));
    const stepOpenLoop = stepCount === 1 ? undefined : mergeOpenLoop(st.map((s) => s.openLoop));
    return {
      connections: st[0]?.connections ?? connectionSteps?.[i] ?? 1,
      rps: estimate(stepGroups, o, [...key, 'step', i, 'rps'], ABSOLUTE_METHOD),
      relativeRps: stepRatio?.flat().length ? estimate(stepRatio, o, [...key, 'step', i, 'ratio'], RATIO_METHOD) : null,
      latency: latencyOf(stepHistogram),
      clientBoundWindows: st.filter((s) => s.clientBound).length,
      backendBoundWindows: st.filter((s) => s.backendBound).length,
      serverNotSaturatedWindows: st.filter((s) => s.serverNotSaturated).length,
      ...counters,
      clean: isCleanLevel(counters),
      loaderBoundWindows: st.filter((s) => s.loaderBound).length,
      // A stepped load keeps each step's histogram: thresholds check any percentile step by step.
      ...(stepCount > 1 ? { histogram: encodeHistogram(stepHistogram) } : {}),
      ...(stepOpenLoop ? { openLoop: stepOpenLoop } : {}),
    };
  });
}

/** The summary of one (scenario, target) pair from its windows. */
export function summarizePair(p: SummarizePairOptions): PairSummary {
  const { scenario, target, windows, estimator: o, serverCpus, ceilingRps, connectionSteps } = p;
  const index = p.index ?? new WindowIndex(windows);
  const th = thresholdsOf(p.thresholds);
  const mine = windows.filter((w) => w.scenario === scenario && w.target === target);
  const ok = mine.filter((w): w is OkWindow => w.status === 'ok');
  const use = ok.filter((w) => w.excluded === null);
  const blockIds = [...new Set(use.map((w) => w.block))].sort((a, b) => a - b);
  const byBlock = (f: (w: OkWindow) => number | null) =>
    blockIds.map((b) =>
      use
        .filter((w) => w.block === b)
        .map(f)
        .filter((v): v is number => v !== null && Number.isFinite(v)),
    );
  const isRef = target === o.reference;
  const rounds = roundsPerBlock(windows, scenario);
  const key = [scenario, target];

  const rpsGroups = byBlock((w) => w.rps);
  const cpuGroups = byBlock((w) => w.cpuPerRequestUs);
  const ratio = isRef ? null : index.paired(scenario, target, o.reference, rounds, (t, r) => (r.rps > 0 ? t.rps / r.rps : null));
  const cpuRatio = isRef ? null : index.paired(scenario, target, o.reference, rounds, (t, r) => (t.cpuPerRequestUs !== null && r.cpuPerRequestUs ? t.cpuPerRequestUs / r.cpuPerRequestUs : null));
  const relativeRps = ratio?.flat().length ? estimate(ratio, o, [...key, 'ratio'], RATIO_METHOD) : null;
  const relativeCpu = cpuRatio?.flat().length ? estimate(cpuRatio, o, [...key, 'cpu-ratio'], RATIO_METHOD) : null;
  const rps = estimate(rpsGroups, o, [...key, 'rps'], ABSOLUTE_METHOD);
  const cpuPerRequestUs = cpuGroups.flat().length ? estimate(cpuGroups, o, [...key, 'cpu'], ABSOLUTE_METHOD) : null;
  const headline = isRef ? rps : relativeRps;
  const vc = varianceComponents((ratio ?? rpsGroups).map((g) => g.filter((x) => x > 0).map(Math.log)));

  const steal = ok.map((w) => w.resources.cpuSteal ?? 0);
  const excludedSteal = ok.filter((w) => w.excluded === 'steal').length;
  const meanSteal = steal.length ? steal.reduce((a, b) => a + b, 0) / steal.length : 0;
  const windowCov = withinCov(rpsGroups);
  const merged = mergeHistograms(use.map((w) => decodeHistogram(w.histogram)));
  // Counters are over every window that ran: steal leaves a window out of the estimates, not its errors.
  const total = (f: (w: OkWindow) => number) => ok.reduce((a, w) => a + f(w), 0);
  const steps = stepSummaries({ scenario, target, estimator: o, index, rounds, connectionSteps }, use, ok, blockIds, merged);
  const share = loaderShareOf(steps, p.loaderFloor, th.loaderShareFlag);
  for (const [i, x] of share.perStep.entries()) if (x !== undefined) Object.assign(steps[i]!, { loaderShare: x });
  const sweep = sweepOf(steps);
  const perProcess = perProcessOf(
    blockIds.map((b) => use.filter((w) => w.block === b).map((w) => ({ ...w.resources, rps: w.rps, requests: w.requests, durationSec: w.durationSec }))),
    (g, name) => estimate(g, o, [...key, name], ABSOLUTE_METHOD),
  );
  const reached = headline?.halfWidth ?? null;
  const missed = missedOf(scenario, target, windows, p.blocks, connectionSteps ?? steps.map((s) => s.connections));
  return {
    scenario,
    target,
    reference: o.reference,
    blocks: blockIds.length,
    windows: windowCounts(ok, mine.length - ok.length, excludedSteal),
    rps,
    relativeRps,
    cpuPerRequestUs,
    backendShare: ceilingRps && ceilingRps > 0 ? rps.point / ceilingRps : null,
    relativeCpu,
    variance: { betweenBlocks: vc.between, withinBlocks: vc.within },
    precision: { target: o.precision, reached, met: reached !== null && reached <= o.precision },
    noise: { label: noiseLabel(windowCov, excludedSteal, meanSteal, th), windowCov, meanSteal, maxSteal: steal.length ? Math.max(...steal) : 0 },
    verdict: pairVerdict(isRef ? rpsGroups : (ratio ?? []), windowCov, th.covBands),
    latency: latencyOf(merged),
    histogram: encodeHistogram(merged),
    errors: total((w) => w.errors),
    timeouts: total((w) => w.timeouts),
    non2xx: total((w) => w.non2xx),
    unexpected: total((w) => w.unexpected),
    requests: total((w) => w.requests),
    peakRssBytes: Math.max(0, ...ok.map((w) => w.resources.serverPeakRssBytes)),
    serverCpus,
    steps,
    ...(sweep ? { sweep } : {}),
    ...(perProcess ? { perProcess } : {}),
    ...(use.some((w) => w.openLoop) ? { openLoop: mergeOpenLoop(use.map((w) => w.openLoop)) } : {}),
    ...(share.pair ? { loaderShare: share.pair } : {}),
    ...(missed ? { missed } : {}),
  };
}

/** Two intervals are apart when they do not overlap and their points differ by more than the practical band. */
export function separated(a: Estimate, b: Estimate, band: number): boolean {
  const lo = (e: Estimate) => e.ci95?.[0] ?? e.point;
  const hi = (e: Estimate) => e.ci95?.[1] ?? e.point;
  const [top, bottom] = a.point >= b.point ? [a, b] : [b, a];
  if (Math.abs(top.point / bottom.point - 1) <= band) return false;
  return lo(top) > hi(bottom);
}

const RANKING_METHOD = `by relative throughput; a target's place is the range of ranks its 95% interval allows: from one more than the targets apart above it to the targets ranked less those apart below it (apart: intervals that do not overlap, and a difference beyond the practical band); a target loader-bound in at least ${Math.round(DEFAULTS.loaderBoundRankShare * 100)}% of its windows measured the loader, a lower bound of the server: it may rank first, and no target counts it as apart below`;

/**
 * Whether a pair's req/s is ranked as a lower bound: loader-bound (the server idle while the loader
 * was busy) in at least `DEFAULTS.loaderBoundRankShare` of its usable windows.
 */
function rankedAsLowerBound(s: Pick<PairSummary, 'windows'>): boolean {
  return s.windows.loaderBound > 0 && s.windows.loaderBound >= DEFAULTS.loaderBoundRankShare * s.windows.ok;
}

/**
 * Places within a scenario, as ranges of ranks: each target's best rank is 1 + the targets apart
 * above it (`separated`), its worst the targets ranked − those apart below it; a place is a run of
 * targets (in descending relative throughput) with the same range. One range per target, not a
 * partition: a partition chains ties — B overlapping A and C does not make A and C one place — and
 * on a noisy run (2026-12-03 22:43) it put Koa at 0.498 [0.373, 0.638] of node:http in a tie for
 * first with node:http itself, because each target overlapped the one above it.
 *
 * A target whose req/s was the loader's (`rankedAsLowerBound`) is only known to be at least where
 * it reads: its best rank is 1, and a target above it is not apart from it for its worst rank. A
 * target above it stays above (a lower bound under it). With the reference itself loader-bound
 * every ratio reads high by as much as its process was held back, and the same rule holds: the
 * reference may rank first. Measured with autocannon on a fast host (2026-12-04 12:51, no wrk):
 * node:http and Fastify both loader-bound at 70–76k req/s on conditional-get, Fastify 0.960 [0.938,
 * 0.984] of node:http, ranked second below it. Pure.
 */
export function rankScenario(scenario: string, summaries: readonly PairSummary[], band: number): Ranking {
  const entries = summaries
    .filter((s) => s.scenario === scenario && s.windows.ok > 0)
    .map((s) => ({ name: s.target, bound: rankedAsLowerBound(s), e: s.relativeRps ?? ({ point: 1, ci95: [1, 1], halfWidth: 0, n: 0, method: 'reference' } satisfies Estimate) }))
    .sort((a, b) => b.e.point - a.e.point);
  const ranged = entries.map((x) => {
    const apart = entries.filter((y) => y !== x && separated(x.e, y.e, band));
    const below = apart.filter((y) => y.e.point < x.e.point && !y.bound).length;
    return { ...x, best: x.bound ? 1 : 1 + apart.filter((y) => y.e.point > x.e.point).length, worst: entries.length - below };
  });
  const places: Ranking['places'] = [];
  for (const x of ranged) {
    const last = places.at(-1);
    if (last && last.place === x.best && last.worst === x.worst) {
      last.targets.push(x.name);
      last.relativeRps.push(x.e.point);
    } else places.push({ place: x.best, worst: x.worst, targets: [x.name], relativeRps: [x.e.point] });
  }
  return { scenario, places, method: RANKING_METHOD };
}

/**
 * The windows the host disturbed beyond steal (thresholds `hostDisturbance`): something else used
 * the measured cores (`resources.otherCpuShare`), or the loader ran slow, its CPU per request over
 * `loaderSlowdown` times its (scenario, target) median — its work per request is the same whatever
 * the server, so only the host makes it dearer. By window index. Pure.
 */
export function disturbedWindows(windows: readonly WindowRecord[], t: Pick<DesignThresholds, 'hostDisturbance'>): Map<number, { other: boolean; slowLoader: boolean }> {
  const ok = windows.filter((w): w is OkWindow => w.status === 'ok' && w.requests > 0);
  const perRequest = (w: OkWindow) => w.resources.loaderCpuSeconds / w.requests;
  const medians = new Map<string, number>();
  for (const key of new Set(ok.map((w) => `${w.scenario}\0${w.target}`))) {
    medians.set(key, median(ok.filter((w) => `${w.scenario}\0${w.target}` === key && w.resources.loaderCpuSeconds > 0).map(perRequest)));
  }
  const out = new Map<number, { other: boolean; slowLoader: boolean }>();
  for (const w of ok) {
    const m = medians.get(`${w.scenario}\0${w.target}`)!;
    const other = (w.resources.otherCpuShare ?? 0) > t.hostDisturbance.otherShare;
    const slowLoader = Number.isFinite(m) && m > 0 && w.resources.loaderCpuSeconds > 0 && perRequest(w) > t.hostDisturbance.loaderSlowdown * m;
    if (other || slowLoader) out.set(w.index, { other, slowLoader });
  }
  return out;
}

/** The run-level figures of a result: precision reached over all pairs, windows and steal. */
export function overallOf(summaries: readonly PairSummary[], windows: readonly WindowRecord[], overhead: number | null, thresholds?: Partial<DesignThresholds>): BenchResult['overall'] {
  const ok = windows.filter((w): w is OkWindow => w.status === 'ok');
  const steal = ok.map((w) => w.resources.cpuSteal ?? 0);
  const reached = summaries.map((s) => s.precision.reached).filter((h): h is number => h !== null);
  return {
    pairs: summaries.length,
    precisionMet: summaries.filter((s) => s.precision.met).length,
    medianHalfWidth: reached.length ? median(reached) : null,
    worstHalfWidth: reached.length ? Math.max(...reached) : null,
    windows: windows.length,
    excludedSteal: ok.filter((w) => w.excluded === 'steal').length,
    meanSteal: steal.length ? steal.reduce((a, b) => a + b, 0) / steal.length : 0,
    maxSteal: steal.length ? Math.max(...steal) : 0,
    overhead,
    disturbed: (() => {
      const d = [...disturbedWindows(windows, thresholdsOf(thresholds)).values()];
      return { windows: d.length, other: d.filter((x) => x.other).length, slowLoader: d.filter((x) => x.slowLoader).length };
    })(),
    verdict: runVerdict(
      summaries.flatMap((s) => (s.verdict ? [s.verdict.band] : [])),
      thresholdsOf(thresholds).verdictShare,
    ),
  };
}
