import { DEFAULTS } from '../defaults.js';
import type { BenchResult, BlockRecord, WindowRecord } from '../result-schema.js';
import { median } from './bootstrap.js';
import { normalQuantile, tQuantile } from './student-t.js';
import type { Grouped } from './bootstrap.js';
import { ratioGroups, WindowIndex } from './summarize.js';
import { paceOfBegun, scenarioShares } from './stopping.js';

/**
 * The noise of a pair's per-round log-ratio, split the way the interval sees it: `between`, the SD
 * of a block's true level around the pair's (processes differ); `within`, the robust SD of one
 * round around its block's level (the host, window by window). Both on the log scale (0.05 ≈ 5%).
 */
export interface NoiseComponents {
  between: number;
  within: number;
}

/**
 * The median of |x − y| over pairs of rounds of one block, scaled to an SD under normal noise:
 * x − y has SD σ·√2, and the median of |Z| is 0.6745, so σ = median ÷ (0.6745·√2) = 1.0483 × median.
 */
const PAIR_DIFF_TO_SD = 1 / (0.674489750196 * Math.SQRT2);

/**
 * Components from a pair's grouped log-ratios (`groups[b]`: block b's rounds). `within` is the
 * median of the absolute differences between two rounds of one block, over every such pair of
 * rounds of every block (robust: one dip does not inflate it, and block levels cancel). It replaces
 * the MAD around each block's median, which with the run's 3 rounds per block read half the SD
 * (one of 3 deviations from a median of 3 is 0 by construction; 0.46σ at 3 rounds, 0.73σ at 4).
 * `between` is what the spread of the block medians leaves once the within-block part of a median
 * of that many rounds is taken out (method of moments, never below 0; 0 with one block), that part
 * from the rounds' mean square within blocks (`withinMeanSquare`, unbiased, as in `betweenSquared`)
 * rather than the robust `within` squared, the spread read at its expectation rather than its median
 * (÷ the median of χ²(B−1)/(B−1), Wilson–Hilferty's: 0.47 for 2 blocks), so that the median over many
 * pairs is the typical pair's and not half of it. Pure.
 */
export function noiseComponents(groups: Grouped): NoiseComponents | undefined {
  const gs = groups.filter((g) => g.length > 0);
  const diffs: number[] = [];
  for (const g of gs) for (let i = 0; i < g.length; i++) for (let j = i + 1; j < g.length; j++) diffs.push(Math.abs(g[i]! - g[j]!));
  if (!diffs.length) return undefined;
  const within = PAIR_DIFF_TO_SD * median(diffs);
  if (gs.length < 2) return { between: 0, within };
  const meds = gs.map((g) => median(g));
  const mean = meds.reduce((a, b) => a + b, 0) / meds.length;
  const df = meds.length - 1;
  const spread = meds.reduce((a, m) => a + (m - mean) ** 2, 0) / df;
  const nH = gs.length / gs.reduce((a, g) => a + 1 / g.length, 0);
  return { between: Math.sqrt(Math.max(0, spread / (chiSquareMedian(df) / df) - medianVarianceOf(withinMeanSquare(gs), nH))), within };
}

/**
 * n × the variance of the median of n normal values ÷ σ², for n = 1…10 (the median of 1 or 2 is
 * their mean; an even n averages the middle two): from tables of the median's efficiency (3: 0.743,
 * 4: 0.838, 5: 0.697), checked by simulation here within 3%. Beyond 10, π/2.
 */
const MEDIAN_VARIANCE_FACTOR = [1, 1, 1, 1.348, 1.193, 1.435, 1.287, 1.479, 1.361, 1.502, 1.408];

/**
 * The variance of the median of n rounds of within-block SD `within`: the factor of n's own
 * median (`MEDIAN_VARIANCE_FACTOR`; a non-whole n, a harmonic mean of rounds, takes the nearest)
 * × σ²/n. It was π/2 · σ²/n at every n, the large-sample value, which at the default's 2 rounds
 * per block took 57% too much of the spread of block medians for the rounds' part and read the
 * processes' part as 0 after 2 blocks in all three runs of 2026-11-28 afternoon.
 */
export const medianVariance = (within: number, rounds: number): number => medianVarianceOf(within ** 2, rounds);

/** `medianVariance` from the rounds' variance rather than their SD. */
const medianVarianceOf = (variance: number, rounds: number): number => {
  const n = Math.max(1, rounds);
  const factor = MEDIAN_VARIANCE_FACTOR[Math.round(n)] ?? Math.PI / 2;
  return (factor * variance) / n;
};

/**
 * The typical (median) relative half-width of a pair's 95% interval after `blocks` blocks of
 * `rounds` rounds, as the run reports it (`summarize.ts` `estimate`): the wider of
 *  - the t-interval on block medians (log scale, t with blocks − 1 degrees of freedom), whose SD of
 *    block medians comes out at its median, √(χ²(B−1) median ÷ (B−1)) of the true SD; and
 *  - the two-level bootstrap of the pooled median: resampling blocks gives the block medians' spread
 *    as plugged in ((B − 1)/B of its sample variance, at its median), and resampling the rounds of
 *    each drawn block adds the within part of a median of all B·R rounds once more (π/2·σ²/(B·R)),
 *    at the normal quantile.
 * With few blocks the t-interval is the wider (t = 3.18 at 4 blocks); from about 8 blocks the
 * bootstrap nears it. One block: the bootstrap over rounds alone (no between-block part).
 * The run reports neither interval but their hull (`hullFactor`), which the formula times `hull`.
 */
export function expectedHalfWidth(c: NoiseComponents, blocks: number, rounds: number, confidence = 0.95, hull = hullFactor(blocks)): number {
  const q = 1 - (1 - confidence) / 2;
  const vw = medianVariance(c.within, rounds);
  if (blocks < 2) return Math.sinh(normalQuantile(q) * Math.sqrt(vw));
  const df = blocks - 1;
  const spreadAtMedian = (chiSquareMedian(df) / df) * (c.between ** 2 + vw);
  const tHalf = tQuantile(q, df) * Math.sqrt(spreadAtMedian / blocks);
  const bootHalf = normalQuantile(q) * Math.sqrt((((blocks - 1) / blocks) * spreadAtMedian + vw) / blocks);
  return hull * Math.sinh(Math.max(tHalf, bootHalf));
}

/**
 * The median half-width a run reports ÷ the wider of the two intervals' (`expectedHalfWidth`'s
 * formula), by blocks. A pair's interval is the hull of both (`estimate`), the t-interval centred at
 * the pooled median of all rounds and the bootstrap's where its resampled medians fall; the two
 * centres differ by a fraction of a standard error in every pair, and the hull takes the outer end
 * of each side. Simulated with the estimator itself (`npm run bench:hull-factor -- --pairs 600`: 600
 * pairs per cell, 2 and 3 rounds, SD between blocks 0–1.5 × within; the median over those eight cells, which
 * spread about ±0.05 around it). Without it, the forecast read 0.68–0.82 of the median half-width
 * the run reached even with every block's components (five runs of 2026-11-28,
 * docs/measurements.md). Between listed blocks, the nearer; beyond the last, the last.
 */
const HULL_FACTOR: ReadonlyArray<readonly [blocks: number, factor: number]> = [
  [2, 1.006],
  [3, 1.018],
  [4, 1.027],
  [5, 1.096],
  [6, 1.085],
  [8, 1.119],
  [10, 1.131],
  [12, 1.138],
  [16, 1.134],
];

/** The hull's factor at `blocks` blocks (`HULL_FACTOR`); 1 with one block, where the bootstrap is the interval. */
export function hullFactor(blocks: number): number {
  if (blocks < 2) return 1;
  let best = HULL_FACTOR[0]!;
  for (const row of HULL_FACTOR) if (Math.abs(row[0] - blocks) < Math.abs(best[0] - blocks)) best = row;
  return best[1];
}

/** Wilson–Hilferty's median of χ² with k degrees of freedom. */
const chiSquareMedian = (k: number): number => k * (1 - 2 / (9 * k)) ** 3;

/**
 * The SD between blocks a forecast uses once the run has measured its own: the prior's and the
 * measured one pooled as variances, each weighted by the degrees of freedom it was measured on
 * (`priorDf`: `DEFAULTS.forecast.priorDf`; `runDf`: `measuredDf` of the pairs). An SD read
 * from 2 blocks of one pair is often near 0, and the prior keeps such a run from promising a
 * narrow interval; an SD read from 2 blocks of 45 pairs says more about this run's processes than
 * the prior, whose run-to-run spread it cannot know. Pure.
 */
export function pooledBetween(prior: number, measured: number, runDf: number, priorDf: number): number {
  const df = Math.max(0, runDf);
  return Math.sqrt((priorDf * prior ** 2 + df * measured ** 2) / (priorDf + df));
}

/**
 * The degrees of freedom behind a typical pair's SD between blocks: blocks − 1 per pair, the pairs
 * of a scenario counted as k ÷ (1 + (k − 1)·ρ²) independent ones. ρ = ½: two pairs of one scenario
 * share the reference's process in each block, so their block levels (target − reference, processes
 * of equal spread) correlate by ½, and their sample variances by ρ² = ¼. Pure.
 */
export function measuredDf(pairs: ReadonlyArray<Pick<PairNoise, 'scenario' | 'blocks'>>): number {
  const byScenario = new Map<string, number[]>();
  for (const p of pairs) byScenario.set(p.scenario, [...(byScenario.get(p.scenario) ?? []), p.blocks]);
  let df = 0;
  for (const blocks of byScenario.values()) {
    const k = blocks.length;
    df += (Math.max(0, median(blocks) - 1) * k) / (1 + (k - 1) * SHARED_REFERENCE_RHO ** 2);
  }
  return df;
}

/** The correlation of two pairs' block levels through their shared reference process (see `measuredDf`). */
const SHARED_REFERENCE_RHO = 0.5;

/**
 * The blocks a run reaches at the pace of its first ones: those done, and as many more as fit the
 * time left at their mean wall time (starts, warm-ups and rounds as they ran), at most the maximum.
 * After block 2 the planner's own costs (`forecastBudget`) read 5 blocks where the default runs of
 * 2026-11-28 went on to run 6 (all four, the sixth in part), and 7 where two 6-minute runs ran 8
 * and 7: the forecast then priced an interval of a run that did not happen. Pure.
 */
export function blocksAtPace(done: { blocks: number; wallSec: number; endSec: number }, o: { budgetSec: number; maxBlocks: number }): number {
  if (done.blocks < 1 || done.wallSec <= 0) return Math.min(o.maxBlocks, done.blocks);
  const ahead = Math.floor(Math.max(0, o.budgetSec - done.endSec) / (done.wallSec / done.blocks));
  return Math.min(o.maxBlocks, done.blocks + ahead);
}

/**
 * The noise a forecast prices once the run has measured its own: the typical pair's SD within
 * blocks as measured, and between blocks the prior's and the run's pooled by their degrees of
 * freedom (`pooledBetween`, `DEFAULTS.forecast.priorDf`). Undefined before any pair has rounds. Pure.
 */
export function measuredNoise(measured: readonly PairNoise[], priorBetweenSd: number): NoiseComponents | undefined {
  const typical = typicalNoise(measured);
  if (!typical) return undefined;
  return { between: pooledBetween(priorBetweenSd, typical.between, measuredDf(measured), DEFAULTS.forecast.priorDf), within: typical.within };
}

/**
 * The blocks and rounds a run reaches at the pace of its blocks up to `maxBlock` (`blocksAtPace`:
 * their wall seconds, the budget clock when the last of their windows ended; the rounds they ran),
 * and the typical half-width then. With processes per scenario a scenario runs all its blocks
 * before the next begins, so the pace is a scenario's: the budget over one block of every scenario,
 * each at the mean wall time of its blocks so far, and the scenarios not begun at the planner's
 * price scaled as the begun ones ran (`blocksPerScenarioAtPace`). Undefined before such a block has
 * rounds. Pure.
 */
export function forecastAtPace(
  noise: NoiseComponents,
  run: { windows: ReadonlyArray<Pick<WindowRecord, 'block' | 'elapsedSec'>>; blocks: ReadonlyArray<Pick<BlockRecord, 'scenario' | 'block' | 'rounds' | 'wallSec'>> },
  maxBlock: number,
  design: {
    budgetSec: number;
    blocks: { max: number };
    rounds: { min: number };
    processes?: 'shared' | 'per-scenario' | undefined;
    scenarios?: number | undefined;
    /** Each scenario's block as the planner prices it (`plannedBlockSecs`). */
    plannedSec?: ReadonlyMap<string, number> | undefined;
  },
): { blocks: number; rounds: number; halfWidth: number } | undefined {
  const parts = run.blocks.filter((b) => b.block <= maxBlock && b.rounds > 0);
  const done = new Set(parts.map((b) => b.block)).size;
  const endSec = run.windows.reduce((a, w) => (w.block <= maxBlock ? Math.max(a, w.elapsedSec) : a), 0);
  if (!done || !endSec) return undefined;
  const blocks =
    design.processes === 'per-scenario'
      ? blocksPerScenarioAtPace(parts, { budgetSec: design.budgetSec, maxBlocks: design.blocks.max, scenarios: design.scenarios ?? 1, plannedSec: design.plannedSec })
      : blocksAtPace({ blocks: done, wallSec: parts.reduce((a, b) => a + b.wallSec, 0), endSec }, { budgetSec: design.budgetSec, maxBlocks: design.blocks.max });
  const rounds = Math.max(design.rounds.min, Math.round(median(parts.map((b) => b.rounds))));
  return { blocks, rounds, halfWidth: expectedHalfWidth(noise, blocks, rounds) };
}

/**
 * With processes per scenario, a forecast after the first scenario's blocks knows that scenario
 * only: the scenarios not measured yet are priced at the prior's components, each scenario weighing
 * the same in the mean of the variances (`seen` of `all` measured), within blocks as between. A
 * default run's first scenario read 0.018 within blocks where its nine read 0.041: alone it forecast
 * ±2.8% for ±6.4%. Within blocks it was never below what the first scenario measured (that part
 * taken for the host's, the same hour for the scenarios to come) until 2026-12-02: over the ten runs
 * of that day kept on disk, the first scenario's two blocks read 0.029–0.230 within, 0.49–4.69× less
 * or more than the whole run's (which stayed at 0.067–0.138): two blocks of one scenario catch a
 * burst of the host or miss it, and the scenarios to come are noisier or quieter in their own ways.
 * The floor let a burst in the first blocks price the whole run (a default run said ±24.0%, range
 * ±18.0–69.9%, and reached ±12.2%); mixed like the part between blocks, the SD of log(forecast ÷
 * reached) over those runs fell from 0.565 to 0.315 (`npm run bench:forecast-replay`,
 * docs/measurements.md). Pure.
 */
export function withUnseenScenarios(measured: NoiseComponents, prior: NoiseComponents, seen: number, all: number): NoiseComponents {
  if (seen >= all || all <= 0) return measured;
  const mix = (m: number, p: number) => Math.sqrt((seen * m ** 2 + (all - seen) * p ** 2) / all);
  return { between: mix(measured.between, prior.between), within: mix(measured.within, prior.within) };
}

/**
 * Blocks a typical scenario reaches in a run with processes per scenario: the scheduler's rule
 * (`scenarioShares`) over the budget, each scenario's block at the mean wall time of its blocks so
 * far and the `scenarios` not begun at the mean of those that have; the median over scenarios, at
 * least 1 and at most the maximum. The pace of the whole run
 * (`blocksAtPace`) read 2 blocks there: its blocks ≤ 2 span nearly the whole run. With the planner's
 * price of each scenario's block (`plannedSec`), a scenario not begun costs its price × the largest
 * measured ÷ priced of those begun: the default suite's concurrency ramp takes 3× a baseline
 * block, and priced at the first scenario's mean a fresh-clone run on a slow host (2026-11-29
 * 10:38) was forecast 3 blocks per scenario after block 2 and ran 2, ±11.3% said for ±39.1%. Pure.
 */
export function blocksPerScenarioAtPace(
  parts: ReadonlyArray<Pick<BlockRecord, 'scenario' | 'wallSec'>>,
  o: { budgetSec: number; maxBlocks: number; scenarios: number; plannedSec?: ReadonlyMap<string, number> | undefined },
): number {
  const byScenario = new Map<string, number[]>();
  for (const p of parts) byScenario.set(p.scenario, [...(byScenario.get(p.scenario) ?? []), p.wallSec]);
  const meanOf = new Map([...byScenario].map(([s, xs]) => [s, xs.reduce((a, x) => a + x, 0) / xs.length]));
  const means = [...meanOf.values()];
  if (!means.length) return 1;
  const seen = means.reduce((a, x) => a + x, 0);
  const priced = o.plannedSec;
  // As the scheduler prices them (`paceOfBegun`).
  const scale = priced && [...meanOf.keys()].every((s) => (priced.get(s) ?? 0) > 0) ? paceOfBegun([...meanOf].map(([s, m]) => m / priced.get(s)!)) : undefined;
  const unseen = scale !== undefined ? [...priced!].filter(([s]) => !meanOf.has(s)).map(([, sec]) => sec * scale) : Array<number>(Math.max(0, o.scenarios - means.length)).fill(seen / means.length);
  // The scheduler's rule over the whole budget: the common number of blocks, then one more each while it lasts (`scenarioShares`); a typical scenario's.
  const { blocks } = scenarioShares(
    o.budgetSec,
    [...means, ...unseen].map((blockSec) => ({ blockSec, done: 0 })),
    o.maxBlocks,
  );
  return Math.max(1, Math.floor(median(blocks)));
}

/**
 * Where the half-width a run reaches is likely to fall, given a forecast and the record of its
 * kind: the forecast × e^(−logBias ± z · logSd), z the normal quantile of the record's coverage
 * (after block 2 `DEFAULTS.forecast.record`: ±8.95–20.33% for a forecast of ±6.5%, 80%; before the
 * run `priorRecord`). A record is of runs replayed, so the coverage is what those runs showed, not
 * a promise. Pure.
 */
export function likelyRange(halfWidth: number, record: ForecastRecord = DEFAULTS.forecast.record): { low: number; high: number; coverage: number } {
  const spread = normalQuantile((1 + record.coverage) / 2) * record.logSd;
  return { low: halfWidth * Math.exp(-record.logBias - spread), high: halfWidth * Math.exp(-record.logBias + spread), coverage: record.coverage };
}

/**
 * The record of the forecast after block 2 (fitted on forecasts said with one scenario of a run's
 * begun, processes per scenario) for one said with `begun` of `all` begun. Its bias is the prior's:
 * the scenarios to come are priced at the method's typical noise, about half what runs read, and
 * with every scenario begun none is. So the bias is scaled by the share of the later scenarios not
 * yet begun, and the spread kept. Said unscaled, the 2026-12-03 05:02 default run's later lines read
 * ±17.7–23.7% (9 of 9 begun: range ±15.8–35.8%) for the ±14.5% it reached; scaled, ±11.4–17.0%, all
 * eight inside their ranges. Over that run and three 6-minute runs after it, 14 of 14 later lines
 * fell inside (6 unscaled); with three more runs, out of sample, 24 of 26 (10 unscaled), log(centre
 * ÷ reached) mean +0.10, SD 0.23 (`npm run bench:forecast-replay`, which replays the windows as the
 * run saw them; docs/measurements.md).
 */
export function recordWithScenariosBegun(record: ForecastRecord, begun: number, all: number): ForecastRecord {
  if (all <= 1 || begun <= 1) return record;
  return { ...record, logBias: (record.logBias * Math.max(0, all - begun)) / (all - 1) };
}

/** How near a kind of forecast came to what its runs reached: log(forecast ÷ reached) has mean `logBias` and SD `logSd`; its range holds `coverage` of them. */
export interface ForecastRecord {
  logBias: number;
  logSd: number;
  coverage: number;
}

/** What a design costs and allows: its wall seconds at a number of blocks and rounds per block, and the limits. */
export interface ForecastPlan {
  /** Wall seconds of the whole run with this many blocks of this many rounds (the budget planner's estimate). */
  costSec: (blocks: number, rounds: number) => number;
  blocks: { min: number; max: number };
  rounds: { min: number; max: number };
}

/** What a budget buys: the blocks and rounds the run's own rule picks (blocks before rounds), and the typical half-width then. */
export interface BudgetForecast {
  blocks: number;
  rounds: number;
  halfWidth: number;
}

/**
 * The blocks and rounds a budget buys, by the run's rule: as many blocks as fit at the minimum of
 * rounds (at least the minimum of blocks, at most the maximum), then as many rounds per block as
 * still fit; and the typical half-width then. Pure.
 */
export function forecastBudget(c: NoiseComponents, budgetSec: number, p: ForecastPlan): BudgetForecast {
  let blocks = p.blocks.min;
  while (blocks < p.blocks.max && p.costSec(blocks + 1, p.rounds.min) <= budgetSec) blocks++;
  let rounds = p.rounds.min;
  while (rounds < p.rounds.max && p.costSec(blocks, rounds + 1) <= budgetSec) rounds++;
  return { blocks, rounds, halfWidth: expectedHalfWidth(c, blocks, rounds) };
}

/**
 * The least budget whose forecast (by the run's own rule, `forecastBudget`) reaches `precision`, or
 * null when even the maximum of blocks and rounds does not. The candidates are the costs of every
 * design in the limits. Pure.
 */
export function budgetFor(c: NoiseComponents, precision: number, p: ForecastPlan): number | null {
  const candidates: number[] = [];
  for (let blocks = p.blocks.min; blocks <= p.blocks.max; blocks++) for (let rounds = p.rounds.min; rounds <= p.rounds.max; rounds++) candidates.push(p.costSec(blocks, rounds));
  candidates.sort((x, y) => x - y);
  return candidates.find((sec) => forecastBudget(c, sec, p).halfWidth <= precision) ?? null;
}

/** A typical pair's components: the median, over pairs, of each component. */
export function typicalComponents(all: readonly NoiseComponents[]): NoiseComponents | undefined {
  if (!all.length) return undefined;
  return { between: median(all.map((c) => c.between)), within: median(all.map((c) => c.within)) };
}

/**
 * The run's typical pair from its first blocks, as the forecast reads it: the SD within blocks the
 * median over pairs of each pair's robust SD, corrected for its median bias at so few rounds
 * (`withinMedianBias`); the SD between blocks from the MEAN over pairs of each pair's unbiased
 * estimate of its variance (`betweenSquared`, negative ones included), not the median of per-pair
 * SDs cut at 0: after 2 blocks most per-pair estimates are cut at 0 and their median said 0.000
 * where the run went on to read 0.042 (default run of 2026-11-28 10:56: forecast ±6.5%, ratios
 * reached ±11.3%; from the same two blocks the pooled mean says 0.044 and ±11.1%). Pure.
 */
export function typicalNoise(pairs: readonly PairNoise[]): NoiseComponents | undefined {
  if (!pairs.length) return undefined;
  const known = pairs.filter((p) => p.betweenSquared !== undefined);
  const between = known.length ? Math.sqrt(Math.max(0, known.reduce((a, p) => a + p.betweenSquared!, 0) / known.length)) : median(pairs.map((p) => p.components.between));
  return { between, within: median(pairs.map((p) => p.components.within / withinMedianBias(p.blocks, p.rounds))) };
}

/**
 * The median over many pairs of the robust SD within blocks (`noiseComponents`) ÷ the true SD, for
 * pairs of normal rounds, by blocks × rounds (per pair): a median of few differences is not theirs
 * at the median. With 2 blocks of 2 rounds it is the mean of 2 differences, and reads 1.10 σ at the
 * median over pairs (the forecast after block 2 of a default run); one block of 3 rounds, 3
 * differences of 3 rounds (not independent), 1.19 σ. Simulated on 200,000 pairs each (mulberry32,
 * seed 99; forecast.test.ts checks 2 × 2); every shape not listed read within 2% of σ (1 × 2, 3 × 2,
 * 5 × 2, 6 × 2, 3 × 3).
 */
const WITHIN_MEDIAN_BIAS: Readonly<Record<string, number>> = { '2x2': 1.103, '4x2': 1.031, '1x3': 1.194, '2x3': 1.037, '1x4': 1.107, '2x4': 1.041 };

/** The robust SD's median bias for a pair of `blocks` blocks of `rounds` rounds (`WITHIN_MEDIAN_BIAS`; 1 elsewhere). */
export const withinMedianBias = (blocks: number, rounds: number): number => WITHIN_MEDIAN_BIAS[`${blocks}x${Math.round(rounds)}`] ?? 1;

/**
 * The unbiased estimate of a pair's variance between blocks: the sample variance of its block
 * medians less the within part of a median of that many rounds, that part read from the rounds'
 * mean square within blocks (the mean over pairs of rounds of one block of (x − y)²/2, unbiased for
 * σ² at any count), not from the robust `within` squared: after 2 blocks of 2 rounds a pair's robust
 * SD has 2 differences, and its square is 1.85 σ² on average (1.33 σ² at 6 blocks; simulated), so
 * the subtraction took nearly twice the rounds' part (forecast.test.ts: its mean over pairs fell
 * below 0 where the processes differ by 0.03). Negative when the block medians agree more than
 * their rounds would have them; only its mean over pairs is read (`typicalNoise`). Pure.
 */
export function betweenSquared(groups: Grouped): number | undefined {
  const gs = groups.filter((g) => g.length > 0);
  if (gs.length < 2) return undefined;
  const meds = gs.map((g) => median(g));
  const mean = meds.reduce((a, b) => a + b, 0) / meds.length;
  const spread = meds.reduce((a, m) => a + (m - mean) ** 2, 0) / (meds.length - 1);
  const nH = gs.length / gs.reduce((a, g) => a + 1 / g.length, 0);
  return spread - medianVarianceOf(withinMeanSquare(gs), nH);
}

/** The mean over every pair of rounds of one block of (x − y)²/2: unbiased for the rounds' variance within a block; 0 with no such pair. Pure. */
function withinMeanSquare(groups: Grouped): number {
  let sum = 0;
  let n = 0;
  for (const g of groups)
    for (let i = 0; i < g.length; i++)
      for (let j = i + 1; j < g.length; j++) {
        sum += (g[i]! - g[j]!) ** 2 / 2;
        n++;
      }
  return n ? sum / n : 0;
}

/**
 * The SD between blocks the forecast expects of a pair before the run has measured its own:
 * `oneScenario`, and with shared processes `perScenario` more for each scenario the block's
 * processes serve after the first, summed as SDs (`DEFAULTS.forecast.priorBetween` has the
 * figures). `scenarios`: what a block's processes serve (1 with processes per scenario). Pure.
 */
export function priorBetween(scenarios: number): number {
  const { oneScenario, perScenario } = DEFAULTS.forecast.priorBetween;
  return Math.hypot(oneScenario, perScenario * Math.max(0, scenarios - 1));
}

/** A pair's noise as measured: its components, and the blocks and rounds per block (median) it had. */
export interface PairNoise {
  scenario: string;
  target: string;
  components: NoiseComponents;
  /** The unbiased estimate of its variance between blocks (`betweenSquared`); absent with one block. */
  betweenSquared?: number | undefined;
  blocks: number;
  rounds: number;
}

/**
 * Every relative pair's noise from a run's windows (those of blocks up to `maxBlock` when given):
 * the per-round log-ratios to the reference, grouped by block. Pure.
 */
export function pairNoise(windows: readonly WindowRecord[], pairs: ReadonlyArray<{ scenario: string; target: string }>, reference: string, maxBlock = Number.POSITIVE_INFINITY): PairNoise[] {
  const ws = Number.isFinite(maxBlock) ? windows.filter((w) => w.block <= maxBlock) : windows;
  const index = new WindowIndex(ws);
  return pairs.flatMap((p) => {
    if (p.target === reference) return [];
    const groups = ratioGroups(ws, p.scenario, p.target, reference, index)
      .map((g) => g.filter((x) => x > 0).map(Math.log))
      .filter((g) => g.length > 0);
    const components = noiseComponents(groups);
    if (!components) return [];
    return [{ ...p, components, betweenSquared: betweenSquared(groups), blocks: groups.length, rounds: median(groups.map((g) => g.length)) }];
  });
}

/** What a run's forecast said and what the run reached (`forecastOutcome`). */
export interface ForecastOutcome {
  /** The half-width reached: the median over the ratios to the reference (the forecast's own figure), else over every pair; null when no pair had one. */
  reached: number | null;
  over: 'ratios' | 'pairs';
  /** The ratios behind `reached` (0 when over pairs). */
  n: number;
  /** The last range said (after the first blocks, else before the run) and the share of runs its record says it holds; null: a forecast without a range. */
  range: { low: number; high: number; coverage: number } | null;
  /** Where the reached figure fell against that range; null without one, or without a reached figure. */
  fell: 'inside' | 'narrower' | 'wider' | null;
}

/**
 * A finished run's forecast against what it reached: the one home of that judgement, for the
 * report's "Forecast" line and the history's count over runs. The forecast is of a typical ratio to
 * the reference, so the reached figure is the median over those, not over every headline (the
 * reference's own is an absolute req/s, wider by the host's drift). Judged against the last range
 * said: after the first blocks, else before the run. Null: the run had no forecast.
 */
export function forecastOutcome(r: Pick<BenchResult, 'design' | 'summaries' | 'overall'>): ForecastOutcome | null {
  const p = r.design.budgetPlan;
  if (!p?.forecast) return null;
  const ratios = r.summaries.filter((x) => x.target !== r.design.reference && x.relativeRps?.halfWidth != null).map((x) => x.relativeRps!.halfWidth!);
  const reached = ratios.length ? median(ratios) : r.overall.medianHalfWidth;
  const m = p.measuredForecast;
  const range = (m ? m.likely : p.forecast.likely) ?? null;
  const known = reached !== null && Number.isFinite(reached);
  return {
    reached: known ? reached : null,
    over: ratios.length ? 'ratios' : 'pairs',
    n: ratios.length,
    range,
    fell: range === null || !known ? null : fellAgainst(reached, range),
  };
}

/** Where a reached half-width fell against a forecast's range: the one rule for a run's report and the history's count. */
export const fellAgainst = (reached: number, range: { low: number; high: number }): 'inside' | 'narrower' | 'wider' => (reached < range.low ? 'narrower' : reached > range.high ? 'wider' : 'inside');
