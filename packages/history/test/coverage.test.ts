import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { scratch } from '@benchsuite/testkit';
import { forecastOutcome, meanFactor } from '@benchsuite/sdk';
import {
  binomialLowerTail,
  checkRun,
  coverageByMachine,
  coverageOf,
  forecastCoverageOf,
  HistoryStore,
  pooledRoundOne,
  recordOf,
  roundOneOf,
  withHistory,
  type ForecastFacts,
  type RoundOneFacts,
} from '../src/index.js';
import { syntheticResults, withControl, withForecastRange, withRoundOne } from './_synthetic.js';

describe('the one-sided binomial test of A/A coverage', () => {
  it('gives P(this few or fewer held | 95%) as computed by hand', () => {
    // P(X ≤ 2 | 3) = 1 − 0.95³ = 0.142625; P(X = 0 | 3) = 0.05³.
    expect(binomialLowerTail(2, 3, 0.95)).toBeCloseTo(0.142625, 12);
    expect(binomialLowerTail(0, 3, 0.95)).toBeCloseTo(0.000125, 12);
    // 37 of 39: 1 − 0.95³⁹ − 39 · 0.05 · 0.95³⁸ = 1 − 0.1352760 − 0.2776717.
    expect(binomialLowerTail(37, 39, 0.95)).toBeCloseTo(0.5870524, 6);
    // 16 of 20: 1 − (0.3584859 + 0.3773536 + 0.1886768 + 0.0595821), under 5%; 17 of 20 is not.
    expect(binomialLowerTail(16, 20, 0.95)).toBeCloseTo(0.0159015, 6);
    expect(binomialLowerTail(17, 20, 0.95)).toBeCloseTo(0.0754837, 6);
    expect(binomialLowerTail(20, 20, 0.95)).toBe(1);
    expect(binomialLowerTail(-1, 20, 0.95)).toBe(0);
    // A long history neither underflows nor loses its tail: 4,700 of 5,000 (94%) against 95%.
    expect(binomialLowerTail(4700, 5000, 0.95) / 0.00087833928).toBeCloseTo(1, 6);
  });

  it('calls 16 of 20 too narrow at α = 5% and 17 of 20 not', () => {
    const runs = (missed: number) => Array.from({ length: 20 }, (_, i) => recordOf(withControl(syntheticResults({ runs: 1, seed: 5 })[0]!, [i >= missed], 0.03)).control);
    expect(coverageOf(runs(4))).toMatchObject({ runs: 20, controlled: 20, intervals: 20, held: 16, share: 0.8, nominal: 0.95, alpha: 0.05, tooNarrow: true });
    expect(coverageOf(runs(4)).pValue).toBeCloseTo(0.0159015, 6);
    expect(coverageOf(runs(3))).toMatchObject({ held: 17, tooNarrow: false });
    expect(coverageOf([null, null])).toMatchObject({ runs: 2, controlled: 0, intervals: 0, held: 0, share: null, pValue: null, tooNarrow: false, processSd: null });
  });
});

describe('a history whose runs carry their A/A control (and older ones without)', () => {
  let file: string;
  // Machine A: 2 runs from before the control, then 8 with two scenarios each; run 5's json-post
  // misses 1 and run 9's json-post has no interval yet (nor a process SD): 14 of 15 held.
  const A = syntheticResults({ runs: 10, seed: 21 }).map((r, i) => (i < 2 ? r : withControl(r, [true, i === 5 ? false : i === 9 ? null : true], i === 9 ? null : 0.02 + 0.005 * (i - 2))));
  // Machine B: 20 runs of one scenario, 4 of them missing 1: 16 of 20.
  const B = syntheticResults({ runs: 21, seed: 22, cpuModel: 'Intel(R) Xeon(R) Platinum 8370C CPU @ 2.80GHz', startHour: 100 }).map((r, i) => withControl(r, [i % 5 !== 4], 0.04));

  beforeAll(async () => {
    file = join(scratch('benchsuite-history-coverage'), 'h.sqlite');
    await withHistory(file, (store) => {
      for (const r of [...A, ...B.slice(0, 20)]) store.add(recordOf(r));
    });
  });

  it('stores each run’s control: per scenario the ratio, its interval and whether it holds 1, and the process SD with df; none for older runs', async () => {
    const store = await HistoryStore.open(file);
    const controls = store.controls();
    store.close();
    expect(controls).toHaveLength(30);
    expect(controls.slice(0, 2).map((c) => c.control)).toEqual([null, null]);
    expect(controls[5]!.control).toEqual({
      twin: 'node-http.twin',
      scenarios: [
        { scenario: 'baseline', blocks: 4, point: 1.01, lo: 1.01 - 0.03, hi: 1.01 + 0.03, containsOne: true, withinSd: 0.05, betweenSd: 0.02 },
        { scenario: 'json-post', blocks: 4, point: 1.08, lo: 1.08 - 0.03, hi: 1.08 + 0.03, containsOne: false, withinSd: 0.05, betweenSd: 0.02 },
      ],
      processSd: { point: 0.035, lo: 0.035 * 0.6, hi: 0.035 * 2.9, df: 3 },
    });
    expect(controls[9]!.control).toMatchObject({ scenarios: [{ containsOne: true }, { containsOne: null, lo: null, hi: null, blocks: 1 }], processSd: null });
  });

  it('counts, per machine and over all, the intervals that held 1, and judges the share by the binomial test', async () => {
    const store = await HistoryStore.open(file);
    const report = coverageByMachine(store.controls());
    store.close();
    const [a, b] = report.machines;
    expect(report.machines).toHaveLength(2);
    expect(a).toMatchObject({ runs: 10, controlled: 8, intervals: 15, held: 14, tooNarrow: false, processSd: { runs: 7, median: 0.035, min: 0.02, max: 0.05 } });
    // 14 of 15: P(X ≤ 14) = 1 − 0.95¹⁵.
    expect(a!.pValue).toBeCloseTo(1 - 0.95 ** 15, 12);
    expect(b).toMatchObject({ runs: 20, controlled: 20, intervals: 20, held: 16, tooNarrow: true, processSd: { runs: 20, median: 0.04, min: 0.04, max: 0.04 } });
    expect(b!.machine.cpuModel).toMatch(/Xeon/);
    expect(b!.pValue).toBeCloseTo(0.0159015, 6);
    // 30 of 35 over both machines: P(X ≤ 30 | 35, 0.95) = 0.0290263.
    expect(report.overall).toMatchObject({ runs: 30, controlled: 28, intervals: 35, held: 30, tooNarrow: true });
    expect(report.overall.pValue).toBeCloseTo(0.0290263, 6);
    // Only json-post's intervals: machine A's one miss among 7, machine B has none of that scenario.
    const store2 = await HistoryStore.open(file);
    const jsonPost = coverageByMachine(store2.controls({ scenarios: ['json-post'] }));
    store2.close();
    expect(jsonPost.machines.map((m) => [m.intervals, m.held])).toEqual([
      [7, 6],
      [0, 0],
    ]);
  });

  it('history check reports the coverage of the new run’s machine, the new run included', async () => {
    const store = await HistoryStore.open(file);
    const outcome = checkRun(store, recordOf(B[20]!));
    const again = checkRun(store, recordOf(B[19]!));
    store.close();
    // 16 of 20 stored and the new run's interval, which holds: 17 of 21, P(X ≤ 17 | 21) = 0.0188806.
    expect(outcome.control).toMatchObject({ runs: 21, controlled: 21, intervals: 21, held: 17, tooNarrow: true });
    expect(outcome.control.pValue).toBeCloseTo(0.0188806, 6);
    expect(outcome.control.fingerprint).toBe(recordOf(B[20]!).fingerprint);
    // A run already stored is not counted twice.
    expect(again.control).toMatchObject({ runs: 20, intervals: 20, held: 16 });
  });
});

describe('round 1 pooled over runs (the design-bias check one run reads to ±3–5%)', () => {
  /** A run's round-1 check as the run computes it from its blocks' effects (logs): `meanFactor`. */
  const facts = (logs: readonly number[]): RoundOneFacts => {
    const f = meanFactor(logs)!;
    return { point: f.point, lo: f.ci95?.[0] ?? null, hi: f.ci95?.[1] ?? null, n: f.n };
  };
  // Two runs of one design whose blocks scatter alike around −1%: their blocks pooled are one sample.
  const a = [-0.04, 0.02, -0.03, 0.01, -0.01, 0.0, -0.02];
  const b = [0.01, -0.05, 0.02, -0.03, -0.01];

  it('pools the runs’ blocks as one sample: the figure the blocks themselves give', () => {
    const pooled = pooledRoundOne([
      { designKey: 'd', roundOne: facts(a) },
      { designKey: 'd', roundOne: facts(b) },
    ])!;
    const all = meanFactor([...a, ...b])!;
    expect(pooled).toMatchObject({ designKey: 'd', runs: 2, blocks: 12, otherDesigns: 0, widthFrom: 'blocks', flag: 0.01 });
    expect(pooled.point).toBeCloseTo(all.point, 12);
    expect(pooled.ci95![0]).toBeCloseTo(all.ci95![0], 12);
    expect(pooled.ci95![1]).toBeCloseTo(all.ci95![1], 12);
    expect(pooled.verdict).toBe('unresolved');
    expect(pooled.runsToResolve).toBeGreaterThan(0);
  });

  it('widens to the runs’ own spread when the runs disagree beyond their blocks (each hour its own trend)', () => {
    const shift = (xs: readonly number[], d: number) => xs.map((x) => x / 10 + d);
    const runs = [shift(a, -0.06), shift(b, 0.04), shift(a, -0.05), shift(b, 0.05)];
    const pooled = pooledRoundOne(runs.map((r) => ({ designKey: 'd', roundOne: facts(r) })))!;
    const asBlocks = meanFactor(runs.flat())!;
    expect(pooled.widthFrom).toBe('runs');
    // Taken as blocks alone the same figures would read three times narrower, and wrongly so.
    expect(Math.log(pooled.ci95![1] / pooled.ci95![0])).toBeGreaterThan(3 * Math.log(asBlocks.ci95![1] / asBlocks.ci95![0]));
  });

  it('says within, beyond or unresolved against the flag, and pools only one design', () => {
    const tight = (centre: number) => Array.from({ length: 40 }, (_, i) => centre + (i % 2 ? 0.01 : -0.01));
    const runsAt = (centres: readonly number[]) => centres.map((c) => ({ designKey: 'd', roundOne: facts(tight(c)) }));
    const within = pooledRoundOne(runsAt([-0.002, 0.001, 0.0, -0.001, 0.002, -0.001]))!;
    expect(within).toMatchObject({ runs: 6, blocks: 240, verdict: 'within', runsToResolve: null });
    // Two runs alone: the runs' own interval is on 1 degree of freedom, and says so.
    expect(pooledRoundOne(runsAt([-0.002, 0.002]))).toMatchObject({ widthFrom: 'runs', verdict: 'unresolved' });
    const beyond = pooledRoundOne(runsAt([-0.03, -0.028, -0.031]))!;
    expect(beyond).toMatchObject({ verdict: 'beyond', runsToResolve: null });
    expect(beyond.point).toBeLessThan(0.975);
    // The newest run's design by default; the other design's run and a run without the check are not pooled.
    const mixed = [
      { designKey: 'old', roundOne: facts(tight(-0.03)) },
      { designKey: 'new', roundOne: facts(tight(0.0)) },
      { designKey: 'new', roundOne: null },
    ];
    expect(pooledRoundOne(mixed)).toMatchObject({ designKey: 'new', runs: 1, otherDesigns: 1, verdict: 'within' });
    expect(pooledRoundOne(mixed, { designKey: 'old' })).toMatchObject({ designKey: 'old', runs: 1, otherDesigns: 1, verdict: 'beyond' });
    expect(pooledRoundOne([{ designKey: 'd', roundOne: null }])).toBeNull();
    // One block: a figure, no interval, nothing resolved.
    expect(pooledRoundOne([{ designKey: 'd', roundOne: facts([0.01]) }])).toMatchObject({ blocks: 1, ci95: null, verdict: 'unresolved', runsToResolve: null });
  });

  it('is kept per run in the history, and the machine’s check and history check pool it; a result whose unit was the pairs is not', async () => {
    const results = syntheticResults({ runs: 4, seed: 31 }).map((r, i) => withRoundOne(r, i % 2 ? a : b));
    const older = { ...results[3]!, designBias: { ...results[3]!.designBias!, roundOne: { ...results[3]!.designBias!.roundOne, overallOver: undefined } } };
    expect(roundOneOf(older)).toBeNull();
    const file = join(scratch('benchsuite-history-round-one'), 'h.sqlite');
    await withHistory(file, (store) => {
      for (const r of results.slice(0, 3)) store.add(recordOf(r));
    });
    const store = await HistoryStore.open(file);
    const stored = store.controls();
    const machine = coverageByMachine(stored).machines[0]!;
    const outcome = checkRun(store, recordOf(results[3]!));
    store.close();
    expect(stored.map((s) => s.roundOne?.n)).toEqual([5, 7, 5]);
    expect(stored[1]!.roundOne!.point).toBeCloseTo(meanFactor(a)!.point, 12);
    expect(machine.roundOne).toMatchObject({ runs: 3, blocks: 17 });
    expect(machine.roundOne!.point).toBeCloseTo(meanFactor([...b, ...a, ...b])!.point, 12);
    // The new run counts once, with the stored ones.
    expect(outcome.control.roundOne).toMatchObject({ runs: 4, blocks: 24, designKey: recordOf(results[3]!).designKey });
    expect(coverageByMachine(stored).overall.roundOne).toBeNull();
  });
});

describe('the forecasts over runs: how often the half-width reached fell inside the range said', () => {
  const f = (reached: number, low = 0.1, high = 0.2): ForecastFacts => ({ low, high, coverage: 0.8, reached });

  it('counts inside, narrower and wider, and judges the share by a two-sided binomial test', () => {
    // 8 of 10 inside an 80% range: as claimed.
    const asClaimed = forecastCoverageOf([...Array.from({ length: 8 }, () => f(0.15)), f(0.05), f(0.3)])!;
    expect(asClaimed).toMatchObject({ runs: 10, inside: 8, narrower: 1, wider: 1, share: 0.8, verdict: null });
    // 3 of 12: P(X ≤ 3 | 12, 0.8) = 0.0000779, twice that under 5%: the ranges are too narrow.
    const narrow = forecastCoverageOf([...Array.from({ length: 3 }, () => f(0.15)), ...Array.from({ length: 9 }, () => f(0.25))])!;
    expect(narrow).toMatchObject({ inside: 3, narrower: 0, wider: 9, verdict: 'too-narrow' });
    expect(narrow.pValue).toBeCloseTo(2 * binomialLowerTail(3, 12, 0.8), 12);
    // 30 of 30: P(X ≥ 30 | 30, 0.8) = 0.8³⁰ = 0.00124: more often inside than claimed, the ranges too wide.
    const wide = forecastCoverageOf(Array.from({ length: 30 }, () => f(0.15)))!;
    expect(wide).toMatchObject({ inside: 30, verdict: 'too-wide' });
    expect(wide.pValue).toBeCloseTo(2 * 0.8 ** 30, 12);
    expect(forecastCoverageOf([null, undefined])).toBeNull();
  });

  it('is kept per run in the history and counted per machine and by history check', async () => {
    const [base] = syntheticResults({ runs: 1, seed: 41 });
    const reached = forecastOutcome(withForecastRange(base!, 0, 1))!.reached!;
    expect(reached).toBeGreaterThan(0);
    const results = syntheticResults({ runs: 4, seed: 41 }).map((r, i) => (i === 0 ? withForecastRange(r, reached * 1.1, reached * 1.5) : withForecastRange(r, reached * 0.8, reached * 1.2)));
    const file = join(scratch('benchsuite-history-forecast'), 'h.sqlite');
    await withHistory(file, (store) => {
      for (const r of results.slice(0, 3)) store.add(recordOf(r));
    });
    const store = await HistoryStore.open(file);
    const stored = store.controls();
    const outcome = checkRun(store, recordOf(results[3]!));
    store.close();
    expect(stored[0]!.forecast).toEqual({ low: reached * 1.1, high: reached * 1.5, coverage: 0.8, reached });
    expect(coverageByMachine(stored).machines[0]!.forecast).toMatchObject({ runs: 3, inside: 2, narrower: 1, wider: 0 });
    expect(coverageByMachine(stored).overall.forecast).toMatchObject({ runs: 3, inside: 2 });
    expect(outcome.control.forecast).toMatchObject({ runs: 4, inside: 3 });
    // A run without a range to judge is not counted.
    expect(recordOf(base!).forecast).toBeNull();
  });
});
