import { DEFAULTS } from '../defaults.js';
import { createHistogram, type Histogram } from '../histogram.js';
import type { RequestSpec } from '../scenario.js';

/**
 * k6 scripts generated from a scenario, shared by the k6 driver (one window at a time on this
 * machine) and `benchsuite export k6` (whole runs on the k6-operator). The script records what
 * the other drivers record — every measured response's latency, status counts, errors and
 * timeouts — and its `handleSummary` prints them as one JSON line, the latency as a dense grid of
 * exact quantiles from which the µs HDR histogram is rebuilt (as the wrk driver does).
 */

/** Closed loop: every virtual user (one keep-alive connection) waits for its response before sending again. */
export interface ClosedLoad {
  kind: 'closed';
  /** One entry per step; several steps become a `ramping-vus` schedule holding each for `durationSec`. */
  connections: readonly number[];
}
/**
 * Open loop: requests arrive on a schedule at `rate` per second whatever the server does
 * (`constant-arrival-rate`); latency is also taken from each request's intended send time.
 */
export interface OpenLoad {
  kind: 'open';
  rate: number;
  /** Virtual users allocated before the window (each holds one connection while a request is in flight). */
  preAllocated: number;
  /** Most requests in flight at once; a send with no free user is dropped and counted. */
  maxInFlight: number;
}

export interface K6ScriptOptions {
  requests: readonly RequestSpec[];
  expectStatus: readonly number[];
  load: ClosedLoad | OpenLoad;
  durationSec: number;
  timeoutSec: number;
  /** Extra tags on every sample (scenario and target names in exported scripts). */
  tags?: Record<string, string>;
}

/** What a script logs (with `BS_MARKERS` set) when its measured phase starts and ends: the k6 driver samples CPU between them. */
export const MEASURE_MARKERS = { start: '@@BS-MEASURE start', end: '@@BS-MEASURE end' } as const;

/** k6 rejects executor durations under one second. */
export const K6_MIN_SECONDS = 1;

/**
 * Status codes counted one by one: every code IANA registers (k6 cannot make a counter once the
 * test runs, so the list is fixed in the script). Any other code is counted in its class, `2xx` to
 * `5xx` (a 2xx stays a 2xx), or `other`.
 */
const COUNTED_STATUSES = [
  100, 101, 102, 103, 200, 201, 202, 203, 204, 205, 206, 207, 208, 226, 300, 301, 302, 303, 304, 305, 307, 308, 400, 401, 402, 403, 404, 405, 406, 407, 408, 409, 410, 411, 412, 413, 414, 415, 416,
  417, 421, 422, 423, 424, 425, 426, 428, 429, 431, 451, 500, 501, 502, 503, 504, 505, 506, 507, 508, 510, 511,
];

/** What the script asked for, as its summary line reports it (the same in every runner of a run). */
export type K6Schedule =
  | { executor: 'constant-arrival-rate'; rate: number; durationSec: number; maxVUs: number }
  | { executor: 'constant-vus'; vus: number; durationSec: number }
  | { executor: 'ramping-vus'; steps: number[]; durationSec: number };

/** The schedule of a script's measured scenario (all runners together, before execution segments split it). */
function scheduleOf(o: Pick<K6ScriptOptions, 'load' | 'durationSec'>): K6Schedule {
  const durationSec = Math.max(K6_MIN_SECONDS, Math.round(o.durationSec * 1000) / 1000);
  if (o.load.kind === 'open') return { executor: 'constant-arrival-rate', rate: Math.round(o.load.rate), durationSec, maxVUs: Math.max(o.load.preAllocated, o.load.maxInFlight) };
  const steps = [...o.load.connections];
  return steps.length === 1 ? { executor: 'constant-vus', vus: steps[0]!, durationSec } : { executor: 'ramping-vus', steps, durationSec };
}

/** The quantile grid printed by the summary: 0.5% steps to p99, 0.01% to p99.99, 0.001% to p99.999. */
export function quantileGrid(): number[] {
  const grid: number[] = [];
  for (let i = 1; i <= 198; i++) grid.push(i / 2);
  for (let i = 1; i <= 99; i++) grid.push(Number((99 + i / 100).toFixed(2)));
  for (let i = 1; i <= 9; i++) grid.push(Number((99.99 + i / 1000).toFixed(3)));
  return grid;
}

const seconds = (s: number) => `${Math.max(K6_MIN_SECONDS, Math.round(s * 1000)) / 1000}s`;

/** The executor of the measured scenario. */
function executor(o: K6ScriptOptions): Record<string, unknown> {
  const d = Math.max(K6_MIN_SECONDS, o.durationSec);
  if (o.load.kind === 'open') {
    return {
      executor: 'constant-arrival-rate',
      rate: Math.round(o.load.rate),
      timeUnit: '1s',
      duration: seconds(d),
      preAllocatedVUs: o.load.preAllocated,
      maxVUs: Math.max(o.load.preAllocated, o.load.maxInFlight),
      gracefulStop: seconds(o.timeoutSec),
    };
  }
  const steps = o.load.connections;
  if (steps.length === 1) return { executor: 'constant-vus', vus: steps[0], duration: seconds(d), gracefulStop: seconds(o.timeoutSec) };
  return {
    executor: 'ramping-vus',
    startVUs: steps[0],
    stages: steps.flatMap((n) => [
      { target: n, duration: '0s' },
      { target: n, duration: seconds(d) },
    ]),
    gracefulRampDown: '0s',
    gracefulStop: seconds(o.timeoutSec),
  };
}

/** The k6 script for one scenario's load against `__ENV.BASE_URL`. */
export function k6Script(o: K6ScriptOptions): string {
  const grid = quantileGrid();
  const trendStats = [...grid.map((p) => `p(${p})`), 'min', 'max', 'count'];
  const statuses = [...new Set([...COUNTED_STATUSES, ...o.expectStatus])].sort((a, b) => a - b);
  const open = o.load.kind === 'open';
  const options = {
    discardResponseBodies: true,
    summaryTrendStats: trendStats,
    ...(o.tags ? { tags: o.tags } : {}),
    scenarios: { measure: executor(o) },
    // A threshold that always holds makes k6 keep these per-scenario sub-metrics in its summary.
    thresholds: { 'dropped_iterations{scenario:measure}': ['count>=0'] },
  };
  const specs = o.requests.map((r) => ({ method: r.method, path: r.path, headers: r.headers, body: r.body ?? null }));
  const schedule = scheduleOf(o);
  return `// Generated by benchsuite (k6 driver / benchsuite export k6). Edit the scenario, not this file.
import http from 'k6/http';
import exec from 'k6/execution';
import { Counter, Trend } from 'k6/metrics';

export const options = ${JSON.stringify(options, null, 2)};

const BASE_URL = __ENV.BASE_URL;
const SPECS = ${JSON.stringify(specs)};
const EXPECT = new Set(${JSON.stringify([...o.expectStatus])});
const PARAMS = SPECS.map((s) => ({ headers: s.headers, timeout: '${seconds(o.timeoutSec)}', responseType: 'none' }));
const RATE = ${open ? Math.round((o.load as OpenLoad).rate) : 0};

const latency = new Trend('bs_latency', true);
const corrected = new Trend('bs_corrected', true);
const late = new Counter('bs_late');
const errors = new Counter('bs_errors');
const timeouts = new Counter('bs_timeouts');
const unexpected = new Counter('bs_unexpected');
const other = new Counter('bs_status_other');
const byStatus = {};
for (const s of ${JSON.stringify(statuses)}) byStatus[s] = new Counter('bs_status_' + s);
const CLASSES = ['2xx', '3xx', '4xx', '5xx'];
const byClass = {};
for (const c of CLASSES) byClass[c] = new Counter('bs_status_' + c);

// The measured phase, for a loader that samples CPU (the benchsuite k6 driver sets BS_MARKERS):
// setup() runs once every virtual user is made, teardown() once the scenario has ended.
export function setup() {
  if (__ENV.BS_MARKERS) console.log(${JSON.stringify(MEASURE_MARKERS.start)});
}
export function teardown() {
  if (__ENV.BS_MARKERS) console.log(${JSON.stringify(MEASURE_MARKERS.end)});
}

let next = 0;
export default function () {
  // The intended send time of this arrival: the scenario's start plus its rank over the rate.
  const intended = RATE ? exec.scenario.startTime + (exec.scenario.iterationInTest * 1000) / RATE : 0;
  const lag = RATE ? Math.max(0, Date.now() - intended) : 0;
  const i = next++ % SPECS.length;
  const s = SPECS[i];
  const r = http.request(s.method, BASE_URL + s.path, s.body, PARAMS[i]);
  if (r.error_code === 1050) timeouts.add(1);
  else if (r.status === 0) errors.add(1);
  if (r.status === 0) return;
  latency.add(r.timings.duration);
  if (RATE) {
    corrected.add(lag + r.timings.duration);
    if (lag > ${DEFAULTS.openLoop.lateSendMs}) late.add(1);
  }
  if (byStatus[r.status]) byStatus[r.status].add(1);
  else if (byClass[Math.floor(r.status / 100) + 'xx']) byClass[Math.floor(r.status / 100) + 'xx'].add(1);
  else other.add(1);
  if (!EXPECT.has(r.status)) unexpected.add(1);
}

export function handleSummary(data) {
  const m = data.metrics;
  const count = (name) => (m[name] ? m[name].values.count : 0);
  const trend = (name) => (m[name] ? m[name].values : null);
  const statusCounts = {};
  for (const s of [...Object.keys(byStatus), ...CLASSES]) if (count('bs_status_' + s)) statusCounts[s] = count('bs_status_' + s);
  if (count('bs_status_other')) statusCounts.other = count('bs_status_other');
  // Who this runner was: its execution segment (the k6-operator gives each runner one) and its host.
  const test = exec.test.options;
  const out = {
    benchsuite: 'k6-summary/2',
    tags: options.tags || {},
    runner: { segment: test.executionSegment || null, sequence: test.executionSegmentSequence || null, instance: __ENV.BS_INSTANCE || __ENV.HOSTNAME || null },
    schedule: ${JSON.stringify(schedule)},
    expect: ${JSON.stringify([...o.expectStatus])},
    durationMs: data.state.testRunDurationMs,
    latency: trend('bs_latency'),
    corrected: trend('bs_corrected'),
    statusCounts,
    errors: count('bs_errors'),
    timeouts: count('bs_timeouts'),
    unexpected: count('bs_unexpected'),
    late: count('bs_late'),
    dropped: count('dropped_iterations{scenario:measure}'),
  };
  const line = JSON.stringify(out);
  return __ENV.BS_SUMMARY_FILE ? { [__ENV.BS_SUMMARY_FILE]: line + '\\n' } : { stdout: '@@BS ' + line + '\\n' };
}
`;
}

/** The JSON line a generated script's `handleSummary` writes. */
export interface K6Summary {
  benchsuite: 'k6-summary/2';
  tags: Record<string, string>;
  /** Which runner printed it: its execution segment (`0:1/2`; null: the whole test) and its host (pod name). */
  runner: { segment: string | null; sequence: string | null; instance: string | null };
  /** What the script asked for, all runners together. */
  schedule: K6Schedule;
  /** The scenario's expected statuses (the rest counts as `unexpected`). */
  expect: number[];
  durationMs: number;
  latency: Record<string, number> | null;
  corrected: Record<string, number> | null;
  statusCounts: Record<string, number>;
  errors: number;
  timeouts: number;
  unexpected: number;
  late: number;
  dropped: number;
}

/** Parse a summary line (with or without the `@@BS ` prefix the driver reads on stdout). */
export function parseK6Summary(text: string): K6Summary {
  const line = text
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l.startsWith('@@BS {') || l.startsWith('{"benchsuite":"k6-summary/'));
  if (!line) throw new Error(`k6 printed no benchsuite summary: ${text.trim().slice(-400)}`);
  const parsed = JSON.parse(line.replace(/^@@BS /, '')) as { benchsuite?: string };
  if (parsed.benchsuite === 'k6-summary/1') {
    throw new Error('a runner summary without its execution segment and schedule (k6-summary/1, from an older benchsuite export k6): export the scripts again and rerun');
  }
  if (parsed.benchsuite !== 'k6-summary/2') throw new Error(`not a benchsuite k6 summary: ${line.slice(0, 80)}`);
  return parsed as K6Summary;
}

/**
 * Rebuild a µs histogram from k6's trend quantiles (ms): each grid point stands for the responses
 * between it and the previous point, at its exact value; the rest up to the count sit at the max.
 */
export function histogramFromTrend(values: Record<string, number> | null): Histogram {
  const h = createHistogram();
  if (!values) return h;
  const total = values.count ?? 0;
  if (!total) return h;
  let prev = 0;
  for (const p of quantileGrid()) {
    const v = values[`p(${p})`];
    if (v === undefined) continue;
    const rank = Math.round((total * p) / 100);
    if (rank > prev) h.recordValueWithCount(Math.max(1, Math.round(v * 1000)), rank - prev);
    prev = Math.max(prev, rank);
  }
  if (total > prev) h.recordValueWithCount(Math.max(1, Math.round((values.max ?? 0) * 1000)), total - prev);
  return h;
}
