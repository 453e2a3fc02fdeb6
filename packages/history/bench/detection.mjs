#!/usr/bin/env node
// npm run bench:history — how well the history's change-point rule finds a lasting step, and how
// often it cries wolf, on simulated histories made from the noise measured on the project's VM
// (NOISE_MODELS in packages/history/src/simulate.ts). Pure computation: no server, no load.
//
//   changes: 1,000 series of 30 runs per (noise, step); the step (if any) comes at run 21, so 10
//            runs follow it. Found: a change within 2 runs of it, the right way. False alarm: any
//            other change (in a series without a step: any change at all).
//   gate:    `history check` after every run from the 11th to the 40th of 40-run series (step at
//            run 21): the share of series where a check before the step failed, and after how many
//            runs past the step the first check failed (median, and the share caught by run 40).
//
// Options: --series N (1000), --gate-series N (200), --models quiet,noisy,instructions, --alpha P
// (the permutation test's level; default DEFAULTS.history.alpha).
import { benchArgs } from '../../../scripts/bench-args.mjs';
import { DEFAULTS } from '@benchsuite/sdk';
import { changeRule, findChanges, judgeNewest, NOISE_MODELS, simulateSeries } from '../dist/index.js';

const { values: a } = benchArgs(import.meta.url, {
  options: {
    series: { type: 'string', default: '1000' },
    'gate-series': { type: 'string', default: '200' },
    models: { type: 'string', default: 'quiet,noisy,instructions' },
    alpha: { type: 'string' },
  },
});
const N = Number(a.series);
const G = Number(a['gate-series']);
const rule = changeRule(a.alpha ? { alpha: Number(a.alpha) } : {});
const steps = [0, -0.02, -0.05, -0.1];
const pct = (x, n) => `${((100 * x) / n).toFixed(1)}%`;
const t0 = Date.now();

console.log(
  `rule: α ${rule.alpha}, ${rule.permutations} shuffles, minimum change ${rule.minMagnitude * 100}%; gate window ${DEFAULTS.history.gate.window}, at least ${DEFAULTS.history.gate.minRuns} earlier runs`,
);
console.log('\nchanges (30 runs, step after run 20)');
console.log('| noise | run-level SD of the log figure | no step: false alarms | 2% step: found / other changes | 5% | 10% |');
console.log('|---|---|---|---|---|---|');
for (const name of a.models.split(',')) {
  const model = NOISE_MODELS[name];
  const cells = [];
  let sd = 0;
  for (const step of steps) {
    let found = 0;
    let other = 0;
    for (let s = 0; s < N; s++) {
      const series = simulateSeries(model, { length: 30, stepAt: step ? 20 : null, step: model.kind === 'instructions' ? -step : step, seed: 1_000_000 * (steps.indexOf(step) + 1) + s });
      if (!step) {
        const l = series.values.map(Math.log);
        const m = l.reduce((x, y) => x + y, 0) / l.length;
        sd += Math.sqrt(l.reduce((x, y) => x + (y - m) ** 2, 0) / (l.length - 1)) / N;
      }
      const better = model.kind === 'instructions' ? 'lower' : 'higher';
      const ch = findChanges(series.values, better, rule);
      if (step && ch.some((c) => Math.abs(c.index - 20) <= 2 && c.direction === 'worse')) found++;
      if (ch.some((c) => !step || Math.abs(c.index - 20) > 2)) other++;
    }
    cells.push(step ? `${pct(found, N)} / ${pct(other, N)}` : pct(other, N));
  }
  console.log(`| ${name} | ${sd.toFixed(4)} | ${cells.join(' | ')} |`);
}

console.log(`\ngate (40 runs, step after run 20, a check after every run from the ${DEFAULTS.history.gate.minRuns + 1}th)`);
console.log('| noise | no step: series with a failed check | step: series failing a check before it | 2%: caught by run 40, median runs after the step | 5% | 10% |');
console.log('|---|---|---|---|---|---|');
for (const name of a.models.split(',')) {
  const model = NOISE_MODELS[name];
  const cells = [];
  let before = 0;
  let beforeN = 0;
  for (const step of steps) {
    let caught = 0;
    let failedAny = 0;
    const delays = [];
    for (let s = 0; s < G; s++) {
      const series = simulateSeries(model, { length: 40, stepAt: step ? 20 : null, step: model.kind === 'instructions' ? -step : step, seed: 7_000_000 * (steps.indexOf(step) + 1) + s });
      let first = null;
      for (let i = DEFAULTS.history.gate.minRuns; i < 40; i++) {
        const window = series.values.slice(Math.max(0, i - DEFAULTS.history.gate.window), i + 1);
        const v = judgeNewest(window, model.kind === 'instructions' ? 'lower' : 'higher', { ...rule, minRuns: DEFAULTS.history.gate.minRuns + 1 });
        if (v.status === 'regression') {
          first = i;
          break;
        }
      }
      if (first !== null) failedAny++;
      if (step) {
        beforeN++;
        if (first !== null && first < 20) before++;
        else if (first !== null) {
          caught++;
          delays.push(first - 20 + 1);
        }
      }
    }
    delays.sort((x, y) => x - y);
    cells.push(step ? `${pct(caught, G)}, ${delays.length ? delays[Math.floor(delays.length / 2)] : '—'}` : pct(failedAny, G));
  }
  console.log(`| ${name} | ${cells[0]} | ${pct(before, beforeN)} | ${cells.slice(1).join(' | ')} |`);
}
console.error(`\n${((Date.now() - t0) / 1000).toFixed(0)} s`);
