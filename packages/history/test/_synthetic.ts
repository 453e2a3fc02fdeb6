import { readFileSync } from 'node:fs';
import { DEFAULTS, meanFactor, type BenchResult } from '@benchsuite/sdk';
import { NOISE_MODELS, simulateSeries } from '../src/index.js';

/** The report package's fixture run (3 scenarios; fastify and express against node-http), without its windows. */
function fixtureResult(): BenchResult {
  const r = JSON.parse(readFileSync(new URL('../../report/test/fixtures/result.json', import.meta.url), 'utf8')) as BenchResult;
  return { ...r, windows: [], blocks: [] };
}

export interface SyntheticOptions {
  runs: number;
  /** Index of the first run after a step in fastify's baseline figures (relative throughput down, CPU and instructions up). */
  stepAt?: number | null;
  step?: number;
  seed?: number;
  /** Another machine: a different CPU model. */
  cpuModel?: string;
  /** Hours after 2026-11-01 of the first run. */
  startHour?: number;
}

/** A 40-hex commit id for run `i`. */
export const commitOf = (i: number, salt = 0) => (i * 7919 + salt * 104729 + 0x1000000).toString(16).padEnd(40, 'c');

/**
 * `runs` results of the fixture, one an hour, each with its own commit and seed; fastify's baseline
 * relative throughput, CPU per request and instruction count follow simulated histories on the
 * VM's quiet noise (instructions: their own), moving by `step` from `stepAt` on.
 */
export function syntheticResults(o: SyntheticOptions): BenchResult[] {
  const base = fixtureResult();
  const seed = o.seed ?? 1;
  const step = o.step ?? 0;
  const stepAt = o.stepAt ?? null;
  const rps = simulateSeries(NOISE_MODELS.quiet, { length: o.runs, stepAt, step: -step, seed, base: 0.758 }).values;
  const cpu = simulateSeries(NOISE_MODELS.quiet, { length: o.runs, stepAt, step, seed: seed + 1, base: 1.374 }).values;
  const ins = simulateSeries(NOISE_MODELS.instructions, { length: o.runs, stepAt, step, seed: seed + 2, base: 404_189 }).values;
  return Array.from({ length: o.runs }, (_, i) => {
    const r = structuredClone(base);
    const start = new Date(Date.UTC(2026, 10, 1) + ((o.startHour ?? 0) + i) * 3_600_000);
    r.startedAt = start.toISOString();
    r.finishedAt = new Date(start.getTime() + 1_080_000).toISOString();
    r.seed = seed * 1000 + i;
    r.environment = { ...r.environment, git: { commit: commitOf(i, seed), dirty: false }, ...(o.cpuModel ? { cpuModel: o.cpuModel } : {}) };
    for (const s of r.summaries) {
      if (s.scenario !== 'baseline' || s.target !== 'fastify') continue;
      const scale = (e: typeof s.relativeRps, v: number) => e && { ...e, point: v, ci95: [v * 0.9, v * 1.1] as [number, number] };
      s.relativeRps = scale(s.relativeRps, rps[i]!);
      s.relativeCpu = scale(s.relativeCpu, cpu[i]!);
    }
    r.instructions = [
      {
        scenario: 'baseline',
        target: 'fastify',
        status: 'ok',
        warmupRequests: 3000,
        levels: [{ connections: 1, requests: 2000, perProcess: [ins[i]!, ins[i]!, ins[i]!], perRequest: ins[i]!, spread: 0 }],
      },
    ];
    return r;
  });
}

/**
 * `r` with an A/A control: one scenario per entry of `held` (the fixture's scenarios in turn),
 * whose interval holds 1 (true), misses it (false) or is not there yet (null); one process's SD
 * `sd` (null: none).
 */
export function withControl(r: BenchResult, held: readonly (boolean | null)[], sd: number | null): BenchResult {
  const names = r.scenarios.map((s) => s.name);
  const reference = r.design.reference;
  return {
    ...r,
    control: {
      reference,
      twin: `${reference}.twin`,
      scenarios: held.map((h, i) => {
        const point = h === false ? 1.08 : 1.01;
        return {
          scenario: names[i]!,
          blocks: h === null ? 1 : 4,
          ratio: { point, ci95: h === null ? null : ([point - 0.03, point + 0.03] as [number, number]), halfWidth: h === null ? null : 0.03, n: 16, method: 'median of per-round ratios' },
          containsOne: h,
          between: h === null ? null : 0.02,
          within: 0.05,
        };
      }),
      processSd: sd === null ? null : { point: sd, ci95: [sd * 0.6, sd * 2.9], df: 3 },
      holds: held.every((h) => h === null) ? null : held.every((h) => h !== false),
    },
  };
}

/** `r` with the design-bias check of round 1 over blocks whose effects (log of round 1 ÷ the later rounds) are `logs`. */
export function withRoundOne(r: BenchResult, logs: readonly number[]): BenchResult {
  return {
    ...r,
    designBias: { flag: DEFAULTS.designBias.flag, roundOne: { overall: meanFactor(logs), overallOver: 'blocks', pairs: [] }, slotHalves: { targets: [], pairs: [] } },
  };
}

/** `r` with a forecast whose last range (said before the run) is [low, high], claiming `coverage`; what it reached is the fixture's own (`forecastOutcome`). */
export function withForecastRange(r: BenchResult, low: number, high: number, coverage = 0.8): BenchResult {
  const forecast = {
    method: 'sliced',
    source: 'prior' as const,
    components: { between: 0.03, within: 0.1 },
    blocks: 4,
    rounds: 2,
    halfWidth: (low + high) / 2,
    budgetFor: [],
    likely: { low, high, coverage },
  };
  return { ...r, design: { ...r.design, budgetPlan: { minimumSec: 60, givenMinimumSec: 60, changes: [], overBySec: 0, forecast } } };
}
