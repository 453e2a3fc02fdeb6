import { decodeHistogram } from '../histogram.js';
import type { Latency, PairSummary, ThresholdOutcome, VerifyOutcome } from '../result-schema.js';

/**
 * Absolute pass/fail checks on a pair's merged figures, as k6's `thresholds` do, written
 * `METRIC OP VALUE[UNIT]` and joined by commas: `p99<50ms,errors<0.1%,rps>20000`.
 *
 * - latency `p50 p90 p99 p999 max mean`, and any percentile 0 < N < 100 as k6 writes it (`p(95)`,
 *   `p(99.95)`) or as `p95`, `p99.5` (`p999`, `p9999`: 99.9, 99.99): µs, ms (the default unit, as in
 *   k6) or s. For an open-loop scenario they read the latency timed from each request's intended
 *   send, which is what a user arriving on schedule waits. On a stepped load (several connection
 *   levels) a latency term is checked at every step, and holds only when it holds at all of them.
 * - `errors`: failed sends (connection errors, timeouts, unexpected statuses, dropped open-loop
 *   sends, and the sends of windows that failed: `PairSummary.missed`) ÷ all sends, as a share
 *   (`0.001`) or a percentage (`0.1%`). Windows left out of the estimates for steal count here
 *   (the summary's counters are over every window that ran): steal slows a server, it does not
 *   excuse its errors.
 * A target that failed verify on a scenario has no figures there, and fails every term named on it.
 * - `rps`: the pair's median req/s; `cpu`: server CPU µs per request (µs default, or ms).
 */
export interface ThresholdTerm {
  expression: string;
  /** `p50 p90 p99 p999 max mean errors rps cpu`, or `p(N)` for another percentile. */
  metric: string;
  /** The percentile of a latency percentile term (50, 95, 99.9); absent for the other metrics. */
  percentile?: number | undefined;
  op: '<' | '<=' | '>' | '>=';
  /** In the metric's unit: µs for latency and cpu, a share for errors, req/s for rps. */
  limit: number;
}

const NAMED = ['max', 'mean'] as const;
const OTHER = ['errors', 'rps', 'cpu'] as const;
/** The percentiles every `Latency` holds by name. */
const LATENCY_FIELDS: Record<string, 'p50' | 'p90' | 'p99' | 'p999'> = { '50': 'p50', '90': 'p90', '99': 'p99', '99.9': 'p999' };
const METRIC_LIST = 'p50, p90, p99, p999, p(N) for any 0 < N < 100 (e.g. p(95)), max, mean, errors, rps, cpu';

/** Parse a comma-separated list of terms; throws an `Error` naming the term that is wrong. */
export function parseThresholds(text: string): ThresholdTerm[] {
  const terms = text
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  if (!terms.length) throw new Error(`expected terms like p99<50ms,errors<0.1%,rps>20000, got "${text}"`);
  return terms.map(parseTerm);
}

/**
 * The percentile a metric names, or null when it names none: `p(95)` and `p95` → 95, `p99.5` →
 * 99.5, `p999` → 99.9 and `p9999` → 99.99 (the usual shorthand: after a leading 99 the digits
 * are decimals). Throws when the name is a percentile outside 0 < N < 100.
 */
function percentileOf(name: string, term: string): number | null {
  const k6 = /^p\((\d+(?:\.\d+)?)\)$/.exec(name);
  const short = /^p(\d+(?:\.\d+)?)$/.exec(name);
  if (!k6 && !short) return null;
  const digits = (k6 ?? short)![1]!;
  const n = short && /^99\d+$/.test(digits) ? Number(`99.${digits.slice(2)}`) : Number(digits);
  if (!(n > 0 && n < 100)) throw new Error(`"${term}": a percentile is between 0 and 100 (exclusive), got ${digits}`);
  return n;
}

function parseTerm(term: string): ThresholdTerm {
  const m = /^([a-z0-9().]+)\s*(<=|>=|<|>)\s*([0-9]*\.?[0-9]+)\s*([a-zµ%/]*)$/i.exec(term);
  if (!m) throw new Error(`"${term}": expected METRIC<VALUE or METRIC>VALUE, e.g. p99<50ms, errors<0.1%, rps>20000`);
  const [, rawMetric, op, rawValue, rawUnit] = m as unknown as [string, string, ThresholdTerm['op'], string, string];
  const name = rawMetric.toLowerCase();
  const percentile = percentileOf(name, term);
  const metric = percentile !== null ? (LATENCY_FIELDS[String(percentile)] ?? `p(${percentile})`) : name;
  if (percentile === null && !(NAMED as readonly string[]).includes(metric) && !(OTHER as readonly string[]).includes(metric)) {
    throw new Error(`"${term}": unknown metric "${rawMetric}"; expected one of: ${METRIC_LIST}`);
  }
  const value = Number(rawValue);
  const unit = rawUnit.toLowerCase();
  let limit: number;
  if (metric === 'errors') {
    if (unit !== '' && unit !== '%') throw new Error(`"${term}": errors are a share (0.001) or a percentage (0.1%), not "${rawUnit}"`);
    limit = unit === '%' ? value / 100 : value;
    if (limit > 1) throw new Error(`"${term}": an error share is at most 1 (100%)`);
  } else if (metric === 'rps') {
    if (unit !== '' && unit !== '/s') throw new Error(`"${term}": rps takes a plain number of requests per second`);
    limit = value;
  } else {
    const factor: Record<string, number> = { '': metric === 'cpu' ? 1 : 1000, us: 1, µs: 1, ms: 1000, s: 1_000_000 };
    if (!(unit in factor)) throw new Error(`"${term}": unit "${rawUnit}" is not a time; use us, ms or s`);
    limit = value * factor[unit]!;
  }
  return { expression: term, metric, ...(percentile !== null ? { percentile } : {}), op, limit };
}

/** Latency figures a term reads: the percentiles by name, and the histogram for any other percentile. */
interface LatencyFigures {
  latency: Latency;
  /** The encoded HDR histogram behind `latency` (µs), for a percentile `Latency` has no field for. */
  histogram?: string | undefined;
  openLoop?: { corrected: Latency; correctedHistogram?: string | undefined; dropped: number } | undefined;
}

/** What a term is checked against: a pair's merged figures, or one window's (a capacity probe). */
export interface CheckedFigures extends LatencyFigures {
  requests: number;
  errors: number;
  timeouts: number;
  unexpected: number;
  /** Sends of failed windows (`PairSummary.missed.requests`): counted as failed sends. */
  missed?: number | undefined;
  rps: number;
  cpuPerRequestUs: number | null;
  /** The levels of a stepped load, each checked on its own by latency terms. */
  steps?: ReadonlyArray<LatencyFigures & { connections: number }> | undefined;
}

/** A pair's merged figures as checked by thresholds. */
function pairFigures(s: PairSummary): CheckedFigures {
  return {
    requests: s.requests,
    errors: s.errors,
    timeouts: s.timeouts,
    unexpected: s.unexpected,
    missed: s.missed?.requests ?? 0,
    latency: s.latency,
    histogram: s.histogram,
    openLoop: s.openLoop,
    rps: s.rps.point,
    cpuPerRequestUs: s.cpuPerRequestUs?.point ?? null,
    ...(s.steps.length > 1 ? { steps: s.steps.map((st) => ({ connections: st.connections, latency: st.latency, histogram: st.histogram, openLoop: st.openLoop })) } : {}),
  };
}

/**
 * The error share: failed sends over all sends. Dropped open-loop sends count as failed, and so
 * do the sends a failed window would have carried (`missed`), so a server that stops answering
 * cannot pass on the windows it still answered.
 */
export function errorShare(s: Pick<CheckedFigures, 'requests' | 'errors' | 'timeouts' | 'unexpected' | 'openLoop' | 'missed'>): number {
  const dropped = s.openLoop?.dropped ?? 0;
  const missed = s.missed ?? 0;
  const sent = s.requests + s.errors + s.timeouts + dropped + missed;
  return sent > 0 ? (s.errors + s.timeouts + s.unexpected + dropped + missed) / sent : 0;
}

/** A latency term's value on one set of latency figures (open loop: from the intended send); null without responses. */
function latencyValue(f: LatencyFigures, t: ThresholdTerm): number | null {
  const latency = f.openLoop?.corrected ?? f.latency;
  if (latency.count === 0) return null;
  if (t.metric === 'max' || t.metric === 'mean') return latency[t.metric];
  const field = LATENCY_FIELDS[String(t.percentile)];
  if (field) return latency[field];
  const encoded = f.openLoop ? f.openLoop.correctedHistogram : f.histogram;
  return encoded ? decodeHistogram(encoded).getValueAtPercentile(t.percentile!) : null;
}

const isLatency = (t: ThresholdTerm) => t.percentile !== undefined || t.metric === 'max' || t.metric === 'mean';

/** The value of a metric in the metric's unit; null when there is no such figure. */
function measure(s: CheckedFigures, t: ThresholdTerm): number | null {
  switch (t.metric) {
    case 'errors':
      return errorShare(s);
    case 'rps':
      return s.rps;
    case 'cpu':
      return s.cpuPerRequestUs;
    default:
      return latencyValue(s, t);
  }
}

const holds = (v: number, op: ThresholdTerm['op'], limit: number) => (op === '<' ? v < limit : op === '<=' ? v <= limit : op === '>' ? v > limit : v >= limit);

/** A term checked on figures: its measured value (a stepped load's worst step), each step's, and whether it holds. */
function check(f: CheckedFigures, t: ThresholdTerm): Pick<ThresholdOutcome, 'measured' | 'pass' | 'steps'> {
  if (!(isLatency(t) && f.steps && f.steps.length > 1)) {
    const measured = measure(f, t);
    return { measured, pass: measured !== null && holds(measured, t.op, t.limit) };
  }
  const steps = f.steps.map((st) => {
    const measured = latencyValue(st, t);
    return { connections: st.connections, measured, pass: measured !== null && holds(measured, t.op, t.limit) };
  });
  // The value shown is the step that decides: the highest for an upper limit, the lowest for a lower one.
  const values = steps.map((s) => s.measured).filter((v): v is number => v !== null);
  const measured = values.length ? (t.op.startsWith('<') ? Math.max(...values) : Math.min(...values)) : null;
  return { measured, pass: steps.every((s) => s.pass), steps };
}

/** The first term the figures fail (a missing figure fails: it cannot be shown to hold), or null. */
export function firstFailed(f: CheckedFigures, terms: readonly ThresholdTerm[]): ThresholdTerm | null {
  return terms.find((t) => !check(f, t).pass) ?? null;
}

/** Check terms against one pair. A missing figure fails its term (it cannot be shown to hold). */
export function checkThresholds(s: PairSummary, terms: readonly ThresholdTerm[]): ThresholdOutcome[] {
  const f = pairFigures(s);
  return terms.map((t) => ({
    scenario: s.scenario,
    target: s.target,
    expression: t.expression,
    metric: t.metric,
    op: t.op,
    limit: t.limit,
    ...check(f, t),
    ...(t.metric === 'errors' && s.missed ? { missed: s.missed } : {}),
    ...(t.metric === 'errors' && s.windows.excludedSteal > 0 ? { excludedSteal: s.windows.excludedSteal } : {}),
  }));
}

/**
 * Every pair against the run's terms and its scenario's own (`scenario.thresholds`); and every
 * (scenario, target) that failed verify and has no summary fails each of those terms (`failedVerify`):
 * a target that answers wrongly has not met a limit, and the run's exit is the thresholds' one.
 * `verify`: the outcomes of the scenarios that are loaded (a verify-only scenario has no terms to judge).
 */
export function evaluateThresholds(
  summaries: readonly PairSummary[],
  runTerms: readonly ThresholdTerm[],
  scenarioTerms: ReadonlyMap<string, readonly ThresholdTerm[]>,
  verify: readonly VerifyOutcome[] = [],
): ThresholdOutcome[] {
  const termsOf = (scenario: string) => [...runTerms, ...(scenarioTerms.get(scenario) ?? [])];
  const judged = summaries.flatMap((s) => checkThresholds(s, termsOf(s.scenario)));
  const summarized = new Set(summaries.map((s) => `${s.scenario}\0${s.target}`));
  const failed = verify.filter((v) => !v.ok && !summarized.has(`${v.scenario}\0${v.target}`));
  return [...judged, ...failed.flatMap((v) => failedVerifyOutcomes(v, termsOf(v.scenario)))];
}

/** Every term on a (scenario, target) that failed verify, failed: nothing measured, the verify's reason kept. */
export function failedVerifyOutcomes(v: Pick<VerifyOutcome, 'scenario' | 'target' | 'reason'>, terms: readonly ThresholdTerm[]): ThresholdOutcome[] {
  return terms.map((t) => ({
    scenario: v.scenario,
    target: v.target,
    expression: t.expression,
    metric: t.metric,
    op: t.op,
    limit: t.limit,
    measured: null,
    pass: false,
    failedVerify: v.reason ?? '',
  }));
}
