// Concurrency sweeps (best clean point, knee, status mix per level) and per-process / per-core
// figures, on fixed inputs. No process starts here, so this file needs no load lock.
import { describe, expect, it } from 'vitest';
import {
  bestCleanPoint,
  createHistogram,
  DEFAULTS,
  encodeHistogram,
  isCleanLevel,
  kneeOf,
  okWindowSchema,
  pairSummarySchema,
  perProcessOf,
  processFigures,
  summarizePair,
  sweepOf,
  workerCount,
  type Estimate,
  type EstimatorOptions,
  type OkWindow,
  type SweepLevel,
} from '../src/index.js';
import { zeroResources } from './_helpers.js';

const e = (point: number): Estimate => ({ point, ci95: [point * 0.98, point * 1.02], halfWidth: 0.02, n: 10, method: 'test' });
/** A level: connections, median req/s, p99 µs, and its error counters (clean unless given). */
function level(connections: number, rps: number, p99: number, bad: { errors?: number; timeouts?: number; unexpected?: number } = {}): SweepLevel {
  return { connections, rps: e(rps), relativeRps: null, latency: { p50: p99 / 2, p99 }, requests: 1000, errors: 0, timeouts: 0, unexpected: 0, ...bad };
}

describe('best clean point', () => {
  it('is the highest req/s among levels where every answer was expected, with no error or timeout', () => {
    const levels = [level(1, 1000, 1000), level(2, 1900, 1100), level(4, 3500, 1200), level(8, 3600, 2400), level(16, 4200, 9000, { errors: 3, timeouts: 2 })];
    // 16 connections has the most req/s but 3 errors and 2 timeouts: it is left out.
    expect(bestCleanPoint(levels)).toEqual({ connections: 8, rps: e(3600), relativeRps: null, p50: 1200, p99: 2400 });
    expect(sweepOf(levels)!.uncleanLevels).toEqual([16]);
  });

  it('leaves out a level with unexpected statuses alone, and a level that never answered', () => {
    expect(bestCleanPoint([level(1, 900, 100), level(2, 1500, 200, { unexpected: 1 })])!.connections).toBe(1);
    expect(isCleanLevel({ requests: 0, errors: 0, timeouts: 0, unexpected: 0 })).toBe(false);
    expect(isCleanLevel({ requests: 10, errors: 0, timeouts: 0, unexpected: 0 })).toBe(true);
  });

  it('is null when no level was clean, and goes to fewer connections on a tie; order of levels does not matter', () => {
    expect(bestCleanPoint([level(1, 900, 100, { errors: 1 }), level(2, 1500, 200, { timeouts: 1 })])).toBeNull();
    expect(bestCleanPoint([level(4, 2000, 300), level(2, 2000, 200), level(1, 100, 100)])!.connections).toBe(2);
  });
});

describe('knee', () => {
  it('is the first level past which req/s gains less than 5% while p99 still grows', () => {
    const levels = [level(1, 1000, 1000), level(2, 1900, 1100), level(4, 3500, 1200), level(8, 3600, 2400), level(16, 3650, 5000)];
    const knee = kneeOf(levels)!;
    expect(knee).toMatchObject({ connections: 4, nextConnections: 8, p99: 1200 });
    expect(knee.nextGain).toBeCloseTo(3600 / 3500 - 1, 12);
    expect(DEFAULTS.sweep.kneeGain).toBe(0.05);
  });

  it('is not a flat step where p99 fell; is null when every step gains enough', () => {
    // 1 → 2 gains 2% but p99 falls; 2 → 4 gains 1% and p99 grows: the knee is 2.
    expect(kneeOf([level(1, 1000, 500), level(2, 1020, 400), level(4, 1030, 900)])!.connections).toBe(2);
    expect(kneeOf([level(1, 1000, 100), level(2, 1800, 150), level(4, 3000, 300)])).toBeNull();
    // A step that loses throughput (gain < 0) with p99 growing is past the knee too.
    expect(kneeOf([level(1, 1000, 100), level(2, 900, 300)])!.connections).toBe(1);
  });

  it('takes its threshold as an argument; a single level is no sweep', () => {
    const levels = [level(1, 1000, 100), level(2, 1080, 200)];
    expect(kneeOf(levels, 0.05)).toBeNull();
    expect(kneeOf(levels, 0.1)!.connections).toBe(1);
    expect(sweepOf([level(1, 1000, 100)])).toBeUndefined();
  });
});

// A pair summary of a stepped load from hand-built windows: the status mix per level reaches the summary.
const est: EstimatorOptions = { reference: 'ref', precision: 0.02, practicalBand: 0.01, bootstrapResamples: 200, confidence: 0.95, seed: 3 };
function histogramOf(count: number, us: number): string {
  const h = createHistogram();
  h.recordValueWithCount(us, count);
  return encodeHistogram(h);
}
let index = 0;
/** A window over levels 1, 2, 4 of a sweep: req/s and p99 per level; level 4 of a `failing` window answers some 500s. */
function sweepWindow(target: string, block: number, round: number, failing: boolean): OkWindow {
  const spec = [
    { connections: 1, rps: 1000, us: 1000 },
    { connections: 2, rps: 1800, us: 1100 },
    { connections: 4, rps: 2500, us: 1600 },
  ];
  const resources = zeroResources({ serverProcesses: 1, serverWorkers: 1, serverCpuSeconds: 0.1 });
  const steps = spec.map((s) => {
    const requests = s.rps * 0.5;
    const bad = failing && s.connections === 4 ? 7 : 0;
    const latency = { p50: s.us, p90: s.us, p99: s.us, p999: s.us, min: s.us, max: s.us, mean: s.us, stdev: 0, count: requests };
    return {
      connections: s.connections,
      durationSec: 0.5,
      rps: s.rps,
      requests,
      statusCounts: bad ? { '200': requests - bad, '500': bad } : { '200': requests },
      errors: 0,
      timeouts: 0,
      non2xx: bad,
      unexpected: bad,
      latency,
      histogram: histogramOf(requests, s.us),
      resources,
      clientBound: false,
      backendBound: false,
      serverNotSaturated: false,
      loaderBound: false,
      rpsPerCpuSecond: null,
    };
  });
  const requests = steps.reduce((a, s) => a + s.requests, 0);
  return okWindowSchema.parse({
    scenario: 'sweep',
    target,
    block,
    round,
    position: 0,
    index: index++,
    startedAt: new Date(0).toISOString(),
    elapsedSec: 1,
    status: 'ok',
    durationSec: 1.5,
    rps: requests / 1.5,
    requests,
    statusCounts: { '200': requests },
    errors: 0,
    timeouts: 0,
    non2xx: 0,
    unexpected: 0,
    latency: steps[0]!.latency,
    histogram: steps[0]!.histogram,
    resources: { ...resources, serverCpuSeconds: 0.3 },
    clientBound: false,
    backendBound: false,
    serverNotSaturated: false,
    loaderBound: false,
    cpuPerRequestUs: (0.3 / requests) * 1e6,
    steps,
    excluded: null,
  });
}

describe('a sweep in the pair summary', () => {
  const windows = [1, 2].flatMap((block) => [1, 2, 3].flatMap((round) => [sweepWindow('ref', block, round, false), sweepWindow('t', block, round, block === 2 && round === 2)]));
  const summary = (t: string) => pairSummarySchema.parse(summarizePair({ scenario: 'sweep', target: t, windows, estimator: est, serverCpus: [0] }));

  it('records the status mix of every level and leaves a level with unexpected statuses out of the best clean point', () => {
    const s = summary('t');
    expect(s.steps.map((x) => x.connections)).toEqual([1, 2, 4]);
    expect(s.steps.map((x) => x.clean)).toEqual([true, true, false]);
    expect(s.steps[2]).toMatchObject({ requests: 6 * 1250, statusCounts: { '200': 6 * 1250 - 7, '500': 7 }, errors: 0, timeouts: 0, unexpected: 7 });
    expect(s.steps[0]!.statusCounts).toEqual({ '200': 6 * 500 });
    expect(s.sweep!.uncleanLevels).toEqual([4]);
    expect(s.sweep!.bestClean).toMatchObject({ connections: 2, p99: 1100 });
    expect(s.sweep!.bestClean!.rps.point).toBe(1800);
    expect(s.sweep!.bestClean!.relativeRps!.point).toBe(1);
    // 2 → 4 gains 39%: no knee within these levels.
    expect(s.sweep!.knee).toBeNull();
  });

  it('the reference, all clean, has its best clean point at the top level', () => {
    const s = summary('ref');
    expect(s.sweep!.bestClean).toMatchObject({ connections: 4, p99: 1600, relativeRps: null });
    expect(s.sweep!.uncleanLevels).toEqual([]);
  });
});

describe('per-process and per-core figures', () => {
  it('counts the processes that did the work, not an idle supervisor or resource tracker', () => {
    // uvicorn --workers 4: supervisor, resource tracker, four busy workers (CPU seconds in the window).
    expect(workerCount([0.001, 0, 0.24, 0.26, 0.25, 0.25])).toBe(4);
    expect(workerCount([0.9])).toBe(1);
    expect(workerCount([0, 0])).toBe(0);
    expect(DEFAULTS.workerCpuShare).toBe(0.05);
  });

  it('gives req/s per process and per core used from one window', () => {
    // 8000 req/s over 0.5 s = 4000 responses; 0.8 CPU s → 1.6 cores used; 4 workers.
    expect(processFigures({ rps: 8000, requests: 4000, durationSec: 0.5, serverCpuSeconds: 0.8, serverProcesses: 6, serverWorkers: 4 })).toEqual({
      processes: 4,
      coresUsed: 1.6,
      rpsPerProcess: 2000,
      rpsPerCore: 5000,
    });
    // Without a worker count (older records, or no CPU per process), the tree's size stands in.
    expect(processFigures({ rps: 100, requests: 50, durationSec: 0.5, serverCpuSeconds: 0.25, serverProcesses: 2 })!.processes).toBe(2);
    // No sampled server (a URL target) or no CPU: no figure.
    expect(processFigures({ rps: 100, requests: 50, durationSec: 0.5, serverCpuSeconds: 0, serverProcesses: 0 })).toBeNull();
  });

  it('one process against four workers: the same req/s is four times more per process; per core shows who uses the CPU better', () => {
    const est = (g: readonly (readonly number[])[]): Estimate => {
      const all = g.flat().sort((a, b) => a - b);
      return { point: all[Math.floor(all.length / 2)]!, ci95: null, halfWidth: null, n: all.length, method: 'median' };
    };
    const one = perProcessOf([[{ rps: 10_000, requests: 5000, durationSec: 0.5, serverCpuSeconds: 0.5, serverProcesses: 1, serverWorkers: 1 }]], est)!;
    const four = perProcessOf(
      [
        [
          { rps: 10_000, requests: 5000, durationSec: 0.5, serverCpuSeconds: 2, serverProcesses: 6, serverWorkers: 4 },
          { rps: 10_000, requests: 5000, durationSec: 0.5, serverCpuSeconds: 2, serverProcesses: 6, serverWorkers: 4 },
        ],
      ],
      est,
    )!;
    expect(one).toMatchObject({ processes: 1, treeProcesses: 1, coresUsed: { point: 1 }, rpsPerProcess: { point: 10_000 }, rpsPerCore: { point: 10_000 } });
    expect(four).toMatchObject({ processes: 4, treeProcesses: 6, coresUsed: { point: 4 }, rpsPerProcess: { point: 2500 }, rpsPerCore: { point: 2500 } });
    expect(perProcessOf([[{ rps: 1, requests: 1, durationSec: 1, serverCpuSeconds: 0, serverProcesses: 0 }]], est)).toBeUndefined();
  });

  it('reaches the pair summary with intervals', () => {
    const windows = [1, 2].flatMap((block) => [1, 2, 3].map((round) => sweepWindow('t', block, round, false)));
    const s = pairSummarySchema.parse(summarizePair({ scenario: 'sweep', target: 't', windows, estimator: { ...est, reference: 't' }, serverCpus: [0] }));
    // Each window: 500 + 900 + 1250 = 2650 responses in 1.5 s with 0.3 CPU s, one worker.
    expect(s.perProcess!.processes).toBe(1);
    expect(s.perProcess!.coresUsed.point).toBeCloseTo(0.2, 12);
    expect(s.perProcess!.rpsPerProcess.point).toBeCloseTo(2650 / 1.5, 9);
    expect(s.perProcess!.rpsPerCore.point).toBeCloseTo(2650 / 0.3, 9);
    expect(s.perProcess!.rpsPerCore.ci95).not.toBeNull();
  });
});
