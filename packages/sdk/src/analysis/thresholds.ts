import type { Latency, PairSummary, ThresholdOutcome } from '../result-schema.js';

/**
 * Absolute pass/fail checks on a pair's merged figures, as k6's `thresholds` do, written
 * `METRIC OP VALUE[UNIT]` and joined by commas: `p99<50ms,errors<0.1%,rps>20000`.
 *
 * - latency `p50 p90 p99 p999 max mean` (also k6's `p(99)`): µs, ms (the default unit, as in k6)
 *   or s. For an open-loop scenario they read the latency timed from each request's intended send,
 *   which is what a user arriving on schedule waits.
 * - `errors`: failed sends (connection errors, timeouts, unexpected statuses, dropped open-loop
 *   sends) ÷ all sends, as a share (`0.001`) or a percentage (`0.1%`).
 * - `rps`: the pair's median req/s; `cpu`: server CPU µs per request (µs default, or ms).
 */
export interface ThresholdTerm {
  expression: string;
  metric: ThresholdMetric;
  op: '<' | '<=' | '>' | '>=';
  /** In the metric's unit: µs for latency and cpu, a share for errors, req/s for rps. */
  limit: number;
}

const LATENCY = ['p50', 'p90', 'p99', 'p999', 'max', 'mean'] as const;
const METRICS = [...LATENCY, 'errors', 'rps', 'cpu'] as const;
type ThresholdMetric = (typeof METRICS)[number];

const K6_PERCENTILES: Record<string, (typeof LATENCY)[number]> = { '50': 'p50', '90': 'p90', '99': 'p99', '99.9': 'p999' };

/** Parse a comma-separated list of terms; throws an `Error` naming the term that is wrong. */
export function parseThresholds(text: string): ThresholdTerm[] {
  const terms = text
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  if (!terms.length) throw new Error(`expected terms like p99<50ms,errors<0.1%,rps>20000, got "${text}"`);
  return terms.map(parseTerm);
}

function parseTerm(term: string): ThresholdTerm {
  const m = /^([a-z0-9().]+)\s*(<=|>=|<|>)\s*([0-9]*\.?[0-9]+)\s*([a-zµ%]*)$/i.exec(term);
  if (!m) throw new Error(`"${term}": expected METRIC<VALUE or METRIC>VALUE, e.g. p99<50ms, errors<0.1%, rps>20000`);
  const [, rawMetric, op, rawValue, rawUnit] = m as unknown as [string, string, ThresholdTerm['op'], string, string];
  const k6 = /^p\((\d+(?:\.\d+)?)\)$/.exec(rawMetric.toLowerCase());
  const metric = (k6 ? K6_PERCENTILES[k6[1]!] : rawMetric.toLowerCase()) as ThresholdMetric | undefined;
  if (!metric || !(METRICS as readonly string[]).includes(metric)) {
    throw new Error(`"${term}": unknown metric "${rawMetric}"; expected one of: ${METRICS.join(', ')} (or p(50), p(90), p(99), p(99.9))`);
  }
  const value = Number(rawValue);
  const unit = rawUnit.toLowerCase();
  let limit: number;
  if ((LATENCY as readonly string[]).includes(metric) || metric === 'cpu') {
    const factor: Record<string, number> = { '': metric === 'cpu' ? 1 : 1000, us: 1, µs: 1, ms: 1000, s: 1_000_000 };
    if (!(unit in factor)) throw new Error(`"${term}": unit "${rawUnit}" is not a time; use us, ms or s`);
    limit = value * factor[unit]!;
  } else if (metric === 'errors') {
    if (unit !== '' && unit !== '%') throw new Error(`"${term}": errors are a share (0.001) or a percentage (0.1%), not "${rawUnit}"`);
    limit = unit === '%' ? value / 100 : value;
    if (limit > 1) throw new Error(`"${term}": an error share is at most 1 (100%)`);
  } else {
    if (unit !== '' && unit !== '/s') throw new Error(`"${term}": rps takes a plain number of requests per second`);
    limit = value;
  }
  return { expression: term, metric, op, limit };
}

/** What a term is checked against: a pair's merged figures, or one window's (a capacity probe). */
export interface CheckedFigures {
  requests: number;
  errors: number;
  timeouts: number;
  unexpected: number;
  latency: Latency;
  openLoop?: { corrected: Latency; dropped: number } | undefined;
  rps: number;
  cpuPerRequestUs: number | null;
}

/** A pair's merged figures as checked by thresholds. */
function pairFigures(s: PairSummary): CheckedFigures {
  return {
    requests: s.requests,
    errors: s.errors,
    timeouts: s.timeouts,
    unexpected: s.unexpected,
    latency: s.latency,
    openLoop: s.openLoop,
    rps: s.rps.point,
    cpuPerRequestUs: s.cpuPerRequestUs?.point ?? null,
  };
}

/** The error share: failed sends over all sends (dropped open-loop sends count as failed). */
export function errorShare(s: Pick<CheckedFigures, 'requests' | 'errors' | 'timeouts' | 'unexpected' | 'openLoop'>): number {
  const dropped = s.openLoop?.dropped ?? 0;
  const sent = s.requests + s.errors + s.timeouts + dropped;
  return sent > 0 ? (s.errors + s.timeouts + s.unexpected + dropped) / sent : 0;
}

/** The value of a metric in the metric's unit; null when there is no such figure. */
function measure(s: CheckedFigures, metric: ThresholdMetric): number | null {
  const latency = s.openLoop?.corrected ?? s.latency;
  switch (metric) {
    case 'errors':
      return errorShare(s);
    case 'rps':
      return s.rps;
    case 'cpu':
      return s.cpuPerRequestUs;
    default:
      return latency.count > 0 ? latency[metric] : null;
  }
}

const holds = (v: number, op: ThresholdTerm['op'], limit: number) => (op === '<' ? v < limit : op === '<=' ? v <= limit : op === '>' ? v > limit : v >= limit);

/** The first term the figures fail (a missing figure fails: it cannot be shown to hold), or null. */
export function firstFailed(f: CheckedFigures, terms: readonly ThresholdTerm[]): ThresholdTerm | null {
  return (
    terms.find((t) => {
      const v = measure(f, t.metric);
      return v === null || !holds(v, t.op, t.limit);
    }) ?? null
  );
}

/** Check terms against one pair. A missing figure fails its term (it cannot be shown to hold). */
export function checkThresholds(s: PairSummary, terms: readonly ThresholdTerm[]): ThresholdOutcome[] {
  const f = pairFigures(s);
  return terms.map((t) => {
    const measured = measure(f, t.metric);
    return { scenario: s.scenario, target: s.target, expression: t.expression, metric: t.metric, op: t.op, limit: t.limit, measured, pass: measured !== null && holds(measured, t.op, t.limit) };
  });
}

/** Every pair against the run's terms and its scenario's own (`scenario.thresholds`). */
export function evaluateThresholds(summaries: readonly PairSummary[], runTerms: readonly ThresholdTerm[], scenarioTerms: ReadonlyMap<string, readonly ThresholdTerm[]>): ThresholdOutcome[] {
  return summaries.flatMap((s) => checkThresholds(s, [...runTerms, ...(scenarioTerms.get(s.scenario) ?? [])]));
}
