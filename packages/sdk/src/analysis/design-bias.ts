import { DEFAULTS } from '../defaults.js';
import type { DesignBiasRecord, WindowRecord } from '../result-schema.js';
import { tQuantile } from './student-t.js';
import { WindowIndex } from './summarize.js';
import { twinOf } from '../replicas.js';

type OkWindow = Extract<WindowRecord, { status: 'ok' }>;
type Effect = DesignBiasRecord['roundOne']['overall'];

/** Mean of logs with its t-interval (n − 1 degrees of freedom), as a factor: exp(mean) [exp(lo), exp(hi)]. Null without a value. Exported for the bench that pools runs (`bench:round-one`). */
export function meanFactor(logs: readonly number[], confidence: number = DEFAULTS.confidence): Effect {
  const xs = logs.filter(Number.isFinite);
  if (!xs.length) return null;
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  if (xs.length < 2) return { point: Math.exp(m), ci95: null, n: xs.length };
  const sd = Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1));
  const h = tQuantile(1 - (1 - confidence) / 2, xs.length - 1) * (sd / Math.sqrt(xs.length));
  return { point: Math.exp(m), ci95: [Math.exp(m - h), Math.exp(m + h)], n: xs.length };
}

/** An effect beyond the flag: its interval excludes 1 and its point is more than `flag` away from it. */
const flagged = (e: Effect, flag: number = DEFAULTS.designBias.flag): boolean => e !== null && e.ci95 !== null && (e.ci95[0] > 1 || e.ci95[1] < 1) && Math.abs(e.point - 1) > flag;

/**
 * Round 1 against the block's later rounds, per block: log(ratio in round 1) − the mean log of the
 * later rounds' ratios (ratio = target ÷ reference, both measured in the same round). Blocks with
 * fewer than two paired rounds give nothing.
 */
function roundOneLogs(index: WindowIndex, blocks: readonly number[], rounds: (b: number) => number, scenario: string, target: string, reference: string): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const b of blocks) {
    const logs: Array<[number, number]> = [];
    for (let r = 1; r <= rounds(b); r++) {
      const ratio = index.pairedRound(scenario, b, r, target, reference, (t, ref) => (t.rps > 0 && ref.rps > 0 ? t.rps / ref.rps : null));
      if (ratio !== null && ratio > 0) logs.push([r, Math.log(ratio)]);
    }
    const first = logs.find(([r]) => r === 1);
    const later = logs.filter(([r]) => r > 1).map(([, x]) => x);
    if (first && later.length) out.push([b, first[1] - later.reduce((a, x) => a + x, 0) / later.length]);
  }
  return out;
}

/** A scenario's blocks among these windows, in order, and each block's last round. */
function blocksOf(mine: readonly OkWindow[]): { blocks: number[]; rounds: (b: number) => number } {
  const blocks = [...new Set(mine.map((w) => w.block))].sort((a, b) => a - b);
  const maxRound = new Map<number, number>();
  for (const w of mine) maxRound.set(w.block, Math.max(maxRound.get(w.block) ?? 0, w.round));
  return { blocks, rounds: (b) => maxRound.get(b) ?? 0 };
}

/**
 * The round-1 effect per unit of processes, the overall figure's samples (`designBiasOf`): for each
 * block (a scenario's block with processes per scenario; a block with shared ones), the mean over its
 * pairs of log(round 1's ratio) − the mean log of its later rounds'. Windows left out are not read.
 * Exported so a bench can pool the units of several runs.
 */
export function roundOneUnits(windows: readonly WindowRecord[], scenarios: readonly string[], reference: string, processes: 'shared' | 'per-scenario' = DEFAULTS.processes): number[] {
  const index = new WindowIndex(windows);
  const ok = windows.filter((w): w is OkWindow => w.status === 'ok' && w.excluded === null);
  const perUnit = new Map<string, number[]>();
  for (const scenario of scenarios) {
    const mine = ok.filter((w) => w.scenario === scenario);
    const { blocks, rounds } = blocksOf(mine);
    for (const target of new Set(mine.map((w) => w.target))) {
      if (target === reference) continue;
      for (const [b, x] of roundOneLogs(index, blocks, rounds, scenario, target, reference)) {
        const u = processes === 'shared' ? `${b}` : `${scenario}\u0000${b}`;
        perUnit.set(u, [...(perUnit.get(u) ?? []), x]);
      }
    }
  }
  return [...perUnit.values()].map((xs) => xs.reduce((a, x) => a + x, 0) / xs.length);
}

/** Per window, log(first half ÷ second half) of its slots' responses (all its steps); null when not counted. */
function halvesLog(w: OkWindow): number | null {
  let head = 0;
  let tail = 0;
  for (const s of w.steps) {
    if (!s.slice?.halves) return null;
    head += s.slice.halves[0];
    tail += s.slice.halves[1];
  }
  return head > 0 && tail > 0 ? Math.log(head / tail) : null;
}

/**
 * The two biases of the design that more blocks do not shrink (issue 38), measured in this run:
 * - round 1 ÷ the block's later rounds, per pair (the ratio to the reference, a t-interval over
 *   its blocks) and over all pairs: a trend while a figure is taken. Over all pairs the unit is a
 *   set of processes, not a pair: every pair of a block divides by the same reference windows, so
 *   their round-1 effects share the reference's and are not independent (a t over the pairs took
 *   them as such and read 1.058 [1.008, 1.109] on a default run whose 20 blocks read 1.075
 *   [0.981, 1.177]). The overall figure is the mean over blocks of each block's mean over its pairs,
 *   with a t-interval over blocks; with `processes` shared a block's processes serve every scenario,
 *   so its scenarios are one unit;
 * - time-sliced rounds: each target's slots' first half ÷ second half (over blocks), and what it
 *   does to each pair's ratio: a slot's rate counts both halves, a settled server's would be twice
 *   the second, so a target's figure is (1 + first ÷ second) ÷ 2 of its settled one, and a pair's
 *   ratio that factor ÷ the reference's, taken per block and with its own t-interval over the
 *   blocks. Every server pays a switch cost, so a target's own first half reads under its second
 *   in any run; what moves a ratio is the difference, and on a noisy host a difference's point
 *   strays past 1% by chance (the A/A twin's read ×0.988 and ×1.060 on 2026-12-01 while its own
 *   halves' intervals excluded 1, and the rule then flagged it on that alone).
 * A pair is flagged when either of its intervals excludes 1 by more than `DEFAULTS.designBias.flag`.
 */
export function designBiasOf(
  windows: readonly WindowRecord[],
  scenarios: readonly string[],
  reference: string,
  confidence: number = DEFAULTS.confidence,
  processes: 'shared' | 'per-scenario' = DEFAULTS.processes,
): DesignBiasRecord | undefined {
  const index = new WindowIndex(windows);
  const ok = windows.filter((w): w is OkWindow => w.status === 'ok' && w.excluded === null);
  const pairs: DesignBiasRecord['roundOne']['pairs'] = [];
  const slots: DesignBiasRecord['slotHalves']['targets'] = [];
  const ratios: DesignBiasRecord['slotHalves']['pairs'] = [];
  for (const scenario of scenarios) {
    const mine = ok.filter((w) => w.scenario === scenario);
    if (!mine.length) continue;
    const { blocks, rounds } = blocksOf(mine);
    const targets = [...new Set(mine.map((w) => w.target))];
    // Per target and block, the mean log(first ÷ second half) of its windows.
    const halvesByBlock = new Map<string, Map<number, number>>();
    for (const target of targets) {
      const byBlock = new Map<number, number>();
      for (const b of blocks) {
        const xs = mine
          .filter((w) => w.block === b && w.target === target)
          .map(halvesLog)
          .filter((x): x is number => x !== null);
        if (xs.length) byBlock.set(b, xs.reduce((a, x) => a + x, 0) / xs.length);
      }
      halvesByBlock.set(target, byBlock);
      const e = meanFactor([...byBlock.values()], confidence);
      if (e) slots.push({ scenario, target, firstHalf: e, flagged: flagged(e) });
      if (target === reference) continue;
      const logs = roundOneLogs(index, blocks, rounds, scenario, target, reference);
      const r1 = meanFactor(
        logs.map(([, x]) => x),
        confidence,
      );
      if (r1) pairs.push({ scenario, target, roundOne: r1, flagged: flagged(r1) });
    }
    const ref = halvesByBlock.get(reference);
    if (!ref?.size) continue;
    // A slot's rate counts both halves, a settled server's twice the second: log((1 + first ÷ second) ÷ 2).
    const onRate = (h: number) => Math.log((1 + Math.exp(h)) / 2);
    // The reference's side of a pair's ratio, as the ratio takes it (`WindowIndex.referenceSide`):
    // with the A/A twin, the mean over both processes on the log scale, except for the twin's own pair.
    const twin = halvesByBlock.get(twinOf(reference));
    const refOn = (b: number, target: string) => (target !== twinOf(reference) && twin?.has(b) ? (onRate(ref.get(b)!) + onRate(twin.get(b)!)) / 2 : onRate(ref.get(b)!));
    for (const target of targets) {
      const t = halvesByBlock.get(target);
      if (target === reference || !t?.size) continue;
      // Per block, the factor on the pair's ratio: the target's over the reference's, paired in the block.
      const e = meanFactor(
        blocks.filter((b) => t.has(b) && ref.has(b)).map((b) => onRate(t.get(b)!) - refOn(b, target)),
        confidence,
      );
      if (e) ratios.push({ scenario, target, onRatio: e.point, ci95: e.ci95, n: e.n, flagged: flagged(e) });
    }
  }
  if (!pairs.length && !slots.length) return undefined;
  return {
    flag: DEFAULTS.designBias.flag,
    roundOne: {
      overall: meanFactor(roundOneUnits(windows, scenarios, reference, processes), confidence),
      overallOver: 'blocks',
      pairs,
    },
    slotHalves: { targets: slots, pairs: ratios },
  };
}

/**
 * The windows with round 1 of every pair the check flagged left out (`excluded: 'unsteady'`): the
 * pair's target's round-1 windows, so its ratio is taken from the rounds after (the reference's
 * round 1 still serves the other pairs). Windows already left out keep their reason.
 */
export function withoutUnsteadyRounds(windows: readonly WindowRecord[], bias: DesignBiasRecord | undefined, reference: string): WindowRecord[] {
  const unsteady = new Set((bias?.roundOne.pairs ?? []).filter((p) => p.flagged && p.target !== reference).map((p) => `${p.scenario}\u0000${p.target}`));
  if (!unsteady.size) return [...windows];
  return windows.map((w) => (w.status === 'ok' && w.round === 1 && w.excluded === null && unsteady.has(`${w.scenario}\u0000${w.target}`) ? { ...w, excluded: 'unsteady' as const } : w));
}
