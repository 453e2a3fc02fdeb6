import { describe, expect, it } from 'vitest';
import { changeRule, findChanges, judgeNewest, NOISE_MODELS, simulateSeries, type NoiseModel } from '../src/index.js';
import { DEFAULTS, mulberry32 } from '@benchsuite/sdk';

/*
 * The README's detection table, checked: 1,000 simulated histories of 30 runs per noise model and
 * step (a step after run 20, so 10 runs follow it), made from the noise measured on the project's
 * VM (NOISE_MODELS). The bounds are the README's figures widened by about three binomial standard
 * errors, so the test fails when the rule gets worse, not when a seed changes.
 */
const RUNS = 1000;
const rule = changeRule();

function rates(model: NoiseModel, step: number, seedBase: number) {
  const better = model.kind === 'instructions' ? 'lower' : 'higher';
  const move = model.kind === 'instructions' ? -step : step;
  let found = 0;
  let other = 0;
  for (let s = 0; s < RUNS; s++) {
    const series = simulateSeries(model, { length: 30, stepAt: step ? 20 : null, step: move, seed: seedBase + s });
    const changes = findChanges(series.values, better, rule);
    if (step && changes.some((c) => Math.abs(c.index - 20) <= 2 && c.direction === 'worse')) found++;
    if (changes.some((c) => !step || Math.abs(c.index - 20) > 2)) other++;
  }
  return { found: found / RUNS, other: other / RUNS };
}

describe('change points in 1,000 simulated histories per case, on the noise measured on this VM', () => {
  it('run-level noise of the models: relative figures 0.04–0.08 in log SD (as two default runs that agree within 3% on a third of pairs imply), instructions far less', () => {
    const sd = (m: NoiseModel) => {
      const v = simulateSeries(m, { length: 2000, stepAt: null, step: 0, seed: 9 }).values.map(Math.log);
      const mean = v.reduce((a, b) => a + b, 0) / v.length;
      return Math.sqrt(v.reduce((a, b) => a + (b - mean) ** 2, 0) / (v.length - 1));
    };
    expect(sd(NOISE_MODELS.quiet)).toBeGreaterThan(0.035);
    expect(sd(NOISE_MODELS.quiet)).toBeLessThan(0.055);
    expect(sd(NOISE_MODELS.noisy)).toBeGreaterThan(0.06);
    expect(sd(NOISE_MODELS.noisy)).toBeLessThan(0.09);
    expect(sd(NOISE_MODELS.instructions)).toBeLessThan(0.01);
  });

  it('no step: at most 2.5% of histories show any change (quiet and noisy relative figures, instructions)', () => {
    for (const m of [NOISE_MODELS.quiet, NOISE_MODELS.noisy, NOISE_MODELS.instructions]) expect(rates(m, 0, 1_000_000).other, m.name).toBeLessThanOrEqual(0.025);
  });

  it('a 10% step: found in at least 85% of quiet histories and 27% of noisy ones', () => {
    expect(rates(NOISE_MODELS.quiet, -0.1, 4_000_000).found).toBeGreaterThanOrEqual(0.85);
    expect(rates(NOISE_MODELS.noisy, -0.1, 4_000_000).found).toBeGreaterThanOrEqual(0.27);
  });

  it('a 5% step: found in at least 13% of quiet histories; a 2% step is below what relative figures can show here', () => {
    expect(rates(NOISE_MODELS.quiet, -0.05, 3_000_000).found).toBeGreaterThanOrEqual(0.13);
    expect(rates(NOISE_MODELS.quiet, -0.02, 2_000_000).found).toBeLessThanOrEqual(0.05);
  });

  it('instruction counts: a 2% step found in at least 96% of histories, 5% and 10% in at least 99%', () => {
    expect(rates(NOISE_MODELS.instructions, -0.02, 2_000_000).found).toBeGreaterThanOrEqual(0.96);
    expect(rates(NOISE_MODELS.instructions, -0.05, 3_000_000).found).toBeGreaterThanOrEqual(0.99);
    expect(rates(NOISE_MODELS.instructions, -0.1, 4_000_000).found).toBeGreaterThanOrEqual(0.99);
  });
});

describe('the gate on a history growing one run at a time', () => {
  const gate = { ...rule, minRuns: DEFAULTS.history.gate.minRuns + 1 };

  it('says how many runs it needs when the history is too short', () => {
    expect(judgeNewest([1, 1, 1], 'higher', gate)).toEqual({ status: 'too-short', have: 3, need: DEFAULTS.history.gate.minRuns + 1 });
  });

  it('does not call one odd run at the old end of the window a change (a JIT tier-up inside one count)', () => {
    // 30 counts within 0.05% of each other after one 6.4% high: E-Divisive alone splits the odd run off
    // (p = 0.01), which would read as a 6% drop; a level needs 3 runs on each side.
    const rnd = mulberry32(7);
    const counts = [1.0644, ...Array.from({ length: 30 }, () => 1 + (rnd() - 0.5) * 0.001)];
    expect(judgeNewest(counts, 'higher', gate).status).toBe('pass');
    expect(findChanges(counts, 'higher', rule)).toEqual([]);
  });

  it('does not fail on one noisy run, however far off, and fails once a small lasting step is confirmed', () => {
    const series = simulateSeries(NOISE_MODELS.instructions, { length: 30, stepAt: null, step: 0, seed: 21 }).values;
    // One run 30% worse at the end: a lone run is not a lasting change.
    expect(judgeNewest([...series, series.at(-1)! * 1.3], 'lower', gate).status).toBe('pass');
    // A 2% step that lasts: passes while unconfirmed, fails within 4 runs, naming where it came.
    const verdicts: string[] = [];
    let stepped = [...series];
    for (let k = 0; k < 6; k++) {
      stepped = [...stepped, 404_189 * 1.02 * (1 + 0.0002 * Math.sin(k))];
      verdicts.push(
        judgeNewest(
          stepped.map((v, i) => (i < 30 ? v * 404_189 : v)),
          'lower',
          gate,
        ).status,
      );
    }
    expect(verdicts[0]).toBe('pass');
    const first = verdicts.indexOf('regression');
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThanOrEqual(3);
  });
});
