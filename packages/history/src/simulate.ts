import { median, mulberry32 } from '@benchsuite/sdk';

/**
 * Simulated histories, for the detection tests and `npm run bench:history`: each run's figure is
 * made the way a run makes it, from the noise components measured on the project's 2-vCPU VM, so
 * the run-to-run noise is not assumed but follows from the design.
 */
export interface NoiseModel {
  name: string;
  /** `ratio`: a relative figure (median of per-round ratios over blocks × rounds); `instructions`: a callgrind count (median of processes). */
  kind: 'ratio' | 'instructions';
  /** SD of the log-ratio between blocks (fresh processes). */
  betweenBlocks: number;
  /** SD of a window's log-ratio within a block; drawn from Student's t with `tailDf` degrees of freedom (dips). */
  withinBlocks: number;
  tailDf: number;
  blocks: number;
  rounds: number;
  /** Instructions: per-process relative noise, and the chance that a process catches a JIT tier-up of `outlier` (relative). */
  outlierChance?: number;
  outlier?: [number, number];
}

/**
 * The noise models of the README's detection table. Ratios: 4 blocks of 4 rounds (a default run's
 * design on this VM), between-block SD 0.07 (quiet) to 0.09 (noisy), within-block SD 0.10 (a quiet
 * hour) to 0.24 (the noisiest run, dips included), heavy-tailed (t, 4 df). Instructions: 3
 * processes, each within 0.05% of the others, one in ten off by 0.4–12% (a JIT tier-up inside its count).
 */
export const NOISE_MODELS = {
  quiet: { name: 'quiet', kind: 'ratio', betweenBlocks: 0.07, withinBlocks: 0.1, tailDf: 4, blocks: 4, rounds: 4 },
  noisy: { name: 'noisy', kind: 'ratio', betweenBlocks: 0.09, withinBlocks: 0.24, tailDf: 4, blocks: 4, rounds: 4 },
  instructions: { name: 'instructions', kind: 'instructions', betweenBlocks: 0.0005, withinBlocks: 0, tailDf: 4, blocks: 3, rounds: 1, outlierChance: 0.1, outlier: [0.004, 0.12] },
} as const satisfies Record<string, NoiseModel>;

function normal(rnd: () => number): number {
  let u = 0;
  while (u === 0) u = rnd();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rnd());
}

/** Student's t with `df` degrees of freedom, scaled to unit SD. */
function studentT(rnd: () => number, df: number): number {
  let chi = 0;
  for (let i = 0; i < df; i++) chi += normal(rnd) ** 2;
  return (normal(rnd) / Math.sqrt(chi / df)) * Math.sqrt((df - 2) / df);
}

/** One run's figure at true level `level` (1 = the reference's). */
export function simulateRun(model: NoiseModel, level: number, rnd: () => number): number {
  if (model.kind === 'instructions') {
    const procs = Array.from({ length: model.blocks }, () => {
      const jit = model.outlier && rnd() < (model.outlierChance ?? 0) ? model.outlier[0] + rnd() * (model.outlier[1] - model.outlier[0]) : 0;
      return level * (1 + model.betweenBlocks * normal(rnd)) * (1 + jit);
    });
    return median(procs);
  }
  const logs: number[] = [];
  for (let b = 0; b < model.blocks; b++) {
    const block = model.betweenBlocks * normal(rnd);
    for (let r = 0; r < model.rounds; r++) logs.push(Math.log(level) + block + model.withinBlocks * studentT(rnd, model.tailDf));
  }
  return Math.exp(median(logs));
}

export interface SimulatedSeries {
  values: number[];
  /** Index of the first run after the step; null without one. */
  stepAt: number | null;
  step: number;
}

/** A history of `length` runs whose level moves by `step` (relative, −0.05 = 5% lower) at `stepAt`. */
export function simulateSeries(model: NoiseModel, o: { length: number; stepAt: number | null; step: number; seed: number; base?: number }): SimulatedSeries {
  const rnd = mulberry32(o.seed);
  const base = o.base ?? 1;
  const values = Array.from({ length: o.length }, (_, i) => simulateRun(model, o.stepAt !== null && i >= o.stepAt ? base * (1 + o.step) : base, rnd));
  return { values, stepAt: o.stepAt, step: o.step };
}
