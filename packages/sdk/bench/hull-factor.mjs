#!/usr/bin/env node
// How far the forecast's formula for a pair's half-width (`expectedHalfWidth` before its hull
// factor) sits under what the estimator reports (`estimate`: the hull of the two-level bootstrap
// and the t-interval on block medians, centred at the pooled median of all rounds). A simulation,
// not a benchmark: no servers, seeded, the same figures on every machine. Prints, per number of
// blocks, the median half-width the estimator reports over N simulated pairs ÷ the formula's, for
// rounds per block 2 and 3 and SDs between blocks of 0, 0.5, 1 and 1.5 × the SD within.
//
// Why the hull is wider than either interval: the t-interval is centred at the pooled median of
// all rounds, the bootstrap's percentiles where the resampled medians fall; the two centres differ
// by a fraction of a standard error in every pair, and the hull takes the outer end of each side.
//
// Usage: npm run bench:hull-factor -- [--pairs 1000] [--resamples 1000] [--within 0.04]
import { benchArgs } from '../../../scripts/bench-args.mjs';
import { estimate, expectedHalfWidth, median, normalDraw } from '@benchsuite/sdk';

const { values: args } = benchArgs(import.meta.url, {
  options: { pairs: { type: 'string', default: '1000' }, resamples: { type: 'string', default: '1000' }, within: { type: 'string', default: '0.04' } },
});
const pairs = Number(args.pairs);
const within = Number(args.within);
let state = 12345;
const rnd = () => {
  state = (state * 1103515245 + 12345) % 2147483648;
  return state / 2147483648;
};
const gauss = () => normalDraw(rnd);
const est = { reference: 'r', precision: 0.02, practicalBand: 0.01, bootstrapResamples: Number(args.resamples), confidence: 0.95, seed: 7 };
const BLOCKS = [2, 3, 4, 5, 6, 8, 10, 12, 16];
const SHAPES = [0, 0.5, 1, 1.5].flatMap((b) => [2, 3].map((rounds) => ({ between: b * within, rounds })));

process.stderr.write(`hull-factor: ${pairs} pairs per cell, ${est.bootstrapResamples} resamples, within ${within}\n`);
const rows = [];
for (const blocks of BLOCKS) {
  const factors = [];
  for (const { between, rounds } of SHAPES) {
    const hws = [];
    for (let i = 0; i < pairs; i++) {
      const groups = Array.from({ length: blocks }, () => {
        const level = between * gauss();
        return Array.from({ length: rounds }, () => Math.exp(level + within * gauss()));
      });
      hws.push(estimate(groups, { ...est, seed: i }, ['hull', blocks, i], 'sim').halfWidth);
    }
    factors.push(median(hws) / expectedHalfWidth({ between, within }, blocks, rounds, 0.95, 1));
  }
  rows.push({ blocks, factors, median: median(factors) });
  process.stderr.write(`  ${blocks} blocks done\n`);
}
const head = SHAPES.map((s) => `b ${(s.between / within).toFixed(1)}w, ${s.rounds} r`);
console.log(`| blocks | ${head.join(' | ')} | median |`);
console.log(`|---|${head.map(() => '---|').join('')}---|`);
for (const r of rows) console.log(`| ${r.blocks} | ${r.factors.map((f) => f.toFixed(3)).join(' | ')} | **${r.median.toFixed(3)}** |`);
