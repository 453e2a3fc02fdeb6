import { DEFAULTS } from '../defaults.js';
import { captureEnvironment } from '../environment.js';
import { encodeHistogram, latencyOf, mergeHistograms } from '../histogram.js';
import { designOptionsSchema } from '../design-options.js';
import { RESULT_SCHEMA_VERSION, resultSchema, type BenchResult, type OkWindow } from '../result-schema.js';
import { evaluateThresholds, parseThresholds } from '../analysis/thresholds.js';
import { INTERVAL_METHOD, overallOf, summarizePair, type EstimatorOptions } from '../analysis/summarize.js';
import { recordedThresholds } from '../design-thresholds.js';
import { openLoopRecord } from '../open-loop.js';
import { emptyResources } from '../run/window.js';
import { histogramFromTrend, parseK6Summary, type K6Schedule, type K6Summary } from './script.js';
import { FRESH_WARMUP } from '../run/warmup.js';

/** Every `@@BS {…}` summary line in a runner's output (a log may hold several runners). */
export function summariesIn(text: string): K6Summary[] {
  return text
    .split('\n')
    .filter((l) => l.includes('@@BS {') || l.trim().startsWith('{"benchsuite":"k6-summary/'))
    .map((l) => parseK6Summary(l.slice(Math.max(0, l.indexOf('@@BS {')))));
}

/** A runner summary and the file it was read from (named when merge refuses it). */
export type SourcedSummary = K6Summary & { source?: string | undefined };

export interface MergeK6Options {
  /** Runner summaries, from `summariesIn` over every runner's output (with `source`, the file each came from). */
  summaries: readonly SourcedSummary[];
  /** Reference target of the relative figures (default: `node-http` when present, else the first). */
  reference?: string;
  thresholds?: readonly string[];
  /** Where the summaries came from (file names), recorded in the result. */
  sources?: readonly string[];
  seed?: number;
}

/** A fraction n/d with BigInt parts, as k6 writes segment ends (`1/3`, `0.25`, `25%`). */
type Fraction = readonly [bigint, bigint];
const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? (a < 0n ? -a : a) : gcd(b, a % b));
function fraction(text: string): Fraction | null {
  const t = text.trim();
  const ratio = /^(\d+)\/(\d+)$/.exec(t);
  const decimal = /^(\d*)(?:\.(\d+))?(%?)$/.exec(t);
  let f: Fraction | null = null;
  if (ratio) f = [BigInt(ratio[1]!), BigInt(ratio[2]!)];
  else if (decimal && (decimal[1] || decimal[2])) {
    const decimals = decimal[2] ?? '';
    f = [BigInt(`${decimal[1] || '0'}${decimals}`), 10n ** BigInt(decimals.length) * (decimal[3] ? 100n : 1n)];
  }
  if (!f || f[1] === 0n) return null;
  const g = gcd(f[0], f[1]) || 1n;
  return [f[0] / g, f[1] / g];
}
const cmp = (a: Fraction, b: Fraction) => {
  const d = a[0] * b[1] - b[0] * a[1];
  return d < 0n ? -1 : d > 0n ? 1 : 0;
};
const show = (f: Fraction) => (f[1] === 1n ? `${f[0]}` : `${f[0]}/${f[1]}`);

/**
 * The runners of one (scenario, target) must be one run's, each once: their execution segments
 * must tile 0..1 exactly (a log given twice repeats a segment; a runner left out leaves a gap),
 * and they must have run the same script. Returns the problems, each naming the files.
 */
function runnerProblems(pair: string, runs: readonly SourcedSummary[]): string[] {
  const files = (xs: readonly SourcedSummary[]) => [...new Set(xs.map((r) => r.source ?? 'an unnamed input'))].join(', ');
  const problems: string[] = [];
  const schedules = new Set(runs.map((r) => JSON.stringify(r.schedule)));
  if (schedules.size > 1) problems.push(`${pair}: the runners ran different schedules (${[...schedules].join(' vs ')}), so they are not one run: ${files(runs)}`);
  const segs: Array<{ from: Fraction; to: Fraction; text: string; run: SourcedSummary }> = [];
  for (const r of runs) {
    const text = r.runner.segment ?? '0:1';
    const [a, b, extra] = text.split(':');
    const from = a !== undefined ? fraction(a) : null;
    const to = b !== undefined ? fraction(b) : null;
    if (!from || !to || extra !== undefined || cmp(from, to) >= 0 || cmp(to, [1n, 1n]) > 0) problems.push(`${pair}: execution segment "${text}" is not FROM:TO within 0..1 (${files([r])})`);
    else segs.push({ from, to, text, run: r });
  }
  segs.sort((x, y) => cmp(x.from, y.from) || cmp(x.to, y.to));
  let end: Fraction = [0n, 1n];
  let last: (typeof segs)[number] | undefined;
  for (const s of segs) {
    const c = cmp(s.from, end);
    if (c > 0) problems.push(`${pair}: no runner covers the execution segment ${show(end)}:${show(s.from)} (a runner's output is missing; given: ${files(runs)})`);
    else if (c < 0 && last) {
      const same = cmp(last.from, s.from) === 0 && cmp(last.to, s.to) === 0;
      problems.push(
        same
          ? `${pair}: execution segment ${s.text} appears twice, in ${files([last.run, s.run])}: the same runner's output given twice would be counted twice`
          : `${pair}: execution segments ${last.text} and ${s.text} overlap (${files([last.run, s.run])})`,
      );
    }
    if (cmp(s.to, end) > 0) end = s.to;
    last = s;
  }
  if (segs.length && cmp(end, [1n, 1n]) < 0) problems.push(`${pair}: no runner covers the execution segment ${show(end)}:1 (a runner's output is missing; given: ${files(runs)})`);
  return problems;
}

/** The merged figures of one (scenario, target): counters summed, histograms combined. */
interface MergedPair {
  scenario: string;
  target: string;
  runners: number;
  requests: number;
  durationSec: number;
  schedule: K6Schedule;
  expect: number[];
  window: Omit<OkWindow, 'scenario' | 'target' | 'block' | 'round' | 'position' | 'index' | 'startedAt' | 'elapsedSec'>;
}

/**
 * Combine N runners' summaries into one figure set per (scenario, target): request and status
 * counts are summed; latency histograms (rebuilt from each runner's quantile grid) are combined,
 * so merged percentiles are those of the combined histogram, never averaged percentiles; the
 * rate is the summed requests over the longest runner's duration. The offered rate of an open
 * loop is the scripts' schedule, and the sends it asked for are kept (`openLoop.scheduled`), so a
 * shortfall shows. Throws, naming the files, when the runners of a pair are not one whole run.
 */
function mergePairs(summaries: readonly SourcedSummary[]): MergedPair[] {
  const groups = new Map<string, SourcedSummary[]>();
  for (const s of summaries) {
    const key = `${s.tags.bs_scenario ?? 'k6'}\u0000${s.tags.bs_target ?? 'target'}`;
    groups.set(key, [...(groups.get(key) ?? []), s]);
  }
  const problems = [...groups.entries()].flatMap(([key, runs]) => runnerProblems(key.replace('\u0000', ' × '), runs));
  if (problems.length) throw new Error(problems.join('\n'));
  return [...groups.entries()].map(([key, runs]) => {
    const [scenario, target] = key.split('\u0000') as [string, string];
    const histogram = mergeHistograms(runs.map((r) => histogramFromTrend(r.latency)));
    const statusCounts: Record<string, number> = {};
    for (const r of runs) for (const [k, v] of Object.entries(r.statusCounts)) statusCounts[k] = (statusCounts[k] ?? 0) + v;
    const sum = (f: (r: K6Summary) => number) => runs.reduce((a, r) => a + f(r), 0);
    const durationSec = Math.max(...runs.map((r) => r.durationMs / 1000));
    const requests = histogram.totalCount;
    // `2xx` is a 2xx outside the counted codes: a success, as any 2xx.
    const non2xx = Object.entries(statusCounts).reduce((a, [k, v]) => a + (k.startsWith('2') ? 0 : v), 0);
    const schedule = runs[0]!.schedule;
    const open =
      schedule.executor === 'constant-arrival-rate'
        ? openLoopRecord({ corrected: mergeHistograms(runs.map((r) => histogramFromTrend(r.corrected))), late: sum((r) => r.late), dropped: sum((r) => r.dropped) }, schedule.rate)
        : undefined;
    if (open && schedule.executor === 'constant-arrival-rate') open.scheduled = Math.round(schedule.rate * schedule.durationSec);
    // The k6 pods' machines were not sampled: no resource figures, and whether the runners were
    // the limit is unknown (their logs do not carry their CPU).
    const resources = emptyResources();
    const counters = { statusCounts, errors: sum((r) => r.errors), timeouts: sum((r) => r.timeouts), non2xx, unexpected: sum((r) => r.unexpected) };
    const rps = durationSec > 0 ? requests / durationSec : 0;
    const flags = { clientBound: null, backendBound: false, serverNotSaturated: false, loaderBound: false };
    const connections = schedule.executor === 'constant-vus' ? schedule.vus : schedule.executor === 'ramping-vus' ? Math.max(...schedule.steps) : schedule.maxVUs;
    const step = {
      connections,
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
      schedule,
      expect: runs[0]!.expect,
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
    freshWarmup: FRESH_WARMUP,
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
    scenarios: scenarios.map((name) => {
      const mine = pairs.filter((p) => p.scenario === name);
      const schedule = mine[0]!.schedule;
      return {
        name,
        requests: [],
        expect: { status: mine[0]!.expect },
        load: {
          // A ramp's steps are pooled by the runners' summaries: one level, its largest.
          connections: [mine[0]!.window.steps[0]!.connections],
          warmupSec: 0,
          durationSec: Math.max(...mine.map((p) => p.durationSec)),
          ...(schedule.executor === 'constant-arrival-rate' ? { rate: schedule.rate } : {}),
          timeoutSec: DEFAULTS.timeoutSec,
        },
      };
    }),
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
