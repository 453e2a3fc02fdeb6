#!/usr/bin/env node
// What pooling the pairs' variances of block medians would buy, and what it would cost: a
// simulation, not a benchmark (no servers, seeded, the same figures on every machine). Each
// simulated run has S scenarios of T targets beside a reference, B blocks of R rounds; every
// (scenario, block) draws the reference's process level once (shared by the scenario's pairs, as a
// run's blocks do) and each target's, and each round adds the host's noise. Processes and rounds
// differ by target (a process SD 0.003–0.033, a round SD 0.03–0.08 times a host factor per run).
// Per pair, the 95% interval of the mean log-ratio over blocks:
//  - plain: Student's t on the block medians, B − 1 degrees of freedom (the run's `blockInterval`);
//  - pooled: the same with the variance shrunk toward a prior fitted over all the run's pairs
//    (empirical Bayes, Smyth 2004's `fitFDist`: s̃² = (d0·s0² + d·s²)/(d0 + d), t on d0 + d df),
//    d0 capped at the pairs' independent degrees of freedom (a scenario's k pairs share the
//    reference's process: k ÷ (1 + (k − 1)/4) of them, as `measuredDf` in analysis/forecast.ts).
// Prints each interval's coverage of the true ratio, over all pairs and by fifths of a pair's true
// variance ÷ the fitted prior (the noisiest pairs last), and the median half-width.
//
// Usage: npm run bench:pooled-variance -- [--runs 300]
import { benchArgs } from '../../../scripts/bench-args.mjs';
import { median, normalDraw, tQuantile } from '@benchsuite/sdk';

const { values: args } = benchArgs(import.meta.url, { options: { runs: { type: 'string', default: '300' } } });
const RUNS = Number(args.runs);

// ψ, ψ′ and ψ″ by recurrence and their asymptotic series; ψ′⁻¹ by Newton's method as limma does.
function digamma(x) {
  let r = 0;
  for (; x < 6; x++) r -= 1 / x;
  const f = 1 / (x * x);
  return r + Math.log(x) - 0.5 / x - f * (1 / 12 - f * (1 / 120 - f * (1 / 252 - f * (1 / 240 - f / 132))));
}
function trigamma(x) {
  let r = 0;
  for (; x < 6; x++) r += 1 / (x * x);
  const f = 1 / (x * x);
  return r + 1 / x + f / 2 + (f / x) * (1 / 6 - f * (1 / 30 - f * (1 / 42 - f / 30)));
}
function tetragamma(x) {
  let r = 0;
  for (; x < 8; x++) r -= 2 / (x * x * x);
  const x2 = x * x;
  return r - 1 / x2 - 1 / (x2 * x) - 1 / (2 * x2 * x2) + 1 / (6 * x2 * x2 * x2) - 1 / (6 * x2 * x2 * x2 * x2);
}
function trigammaInverse(y) {
  if (y > 1e7) return 1 / Math.sqrt(y);
  if (y < 1e-6) return 1 / y;
  let x = 0.5 + 1 / y;
  for (let i = 0; i < 60; i++) {
    const tri = trigamma(x);
    const step = (tri * (1 - tri / y)) / tetragamma(x);
    x += step;
    if (-step / x < 1e-8) break;
  }
  return x;
}
/** The scaled-inverse-χ² prior of sample variances `v` on `d` df: { d0, s0² } (d0 Infinity when they vary no more than sampling explains). */
function fitPrior(samples) {
  const s = samples.filter((x) => x.d > 0 && x.v > 0);
  if (s.length < 3) return null;
  const e = s.map((x) => Math.log(x.v) - digamma(x.d / 2) + Math.log(x.d / 2));
  const mean = e.reduce((a, b) => a + b, 0) / e.length;
  const spread = e.reduce((a, b) => a + (b - mean) ** 2, 0) / (e.length - 1) - s.reduce((a, x) => a + trigamma(x.d / 2), 0) / s.length;
  if (spread <= 0) return { d0: Number.POSITIVE_INFINITY, s02: Math.exp(mean) };
  const d0 = 2 * trigammaInverse(spread);
  return { d0, s02: Math.exp(mean + digamma(d0 / 2) - Math.log(d0 / 2)) };
}

let seed = 20261129;
const rnd = () => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
};
const gauss = () => normalDraw(rnd);
const pct = (x) => `${(100 * x).toFixed(1)}%`;

function simulate({ S, T, B, R }) {
  const plain = [];
  const pooled = [];
  for (let run = 0; run < RUNS; run++) {
    const host = Math.exp(0.4 * gauss());
    const pairs = [];
    for (let s = 0; s < S; s++) {
      const refSd = 0.005 + 0.02 * rnd();
      const targets = Array.from({ length: T }, () => ({ proc: 0.003 + 0.03 * rnd() * rnd(), round: host * (0.03 + 0.05 * rnd()) }));
      const blocks = Array.from({ length: B }, () => {
        const ref = refSd * gauss();
        return targets.map((t) => {
          const level = t.proc * gauss() - ref;
          return median(Array.from({ length: R }, () => level + t.round * gauss()));
        });
      });
      for (const [k, t] of targets.entries()) {
        const meds = blocks.map((b) => b[k]);
        const mean = meds.reduce((a, b) => a + b, 0) / B;
        const v = meds.reduce((a, b) => a + (b - mean) ** 2, 0) / (B - 1);
        pairs.push({ mean, v, d: B - 1, truth: t.proc ** 2 + refSd ** 2 + (Math.PI / 2) * (t.round ** 2 / R) });
      }
    }
    const prior = fitPrior(pairs);
    const cap = (S * (B - 1) * T) / (1 + (T - 1) / 4);
    for (const p of pairs) {
      const h = tQuantile(0.975, p.d) * Math.sqrt(p.v / B);
      plain.push({ hit: Math.abs(p.mean) <= h, h, rel: prior ? p.truth / prior.s02 : 1 });
      const d0 = prior ? Math.min(prior.d0, cap) : 0;
      const v = prior ? (d0 * prior.s02 + p.d * p.v) / (d0 + p.d) : p.v;
      const hp = tQuantile(0.975, d0 + p.d) * Math.sqrt(v / B);
      pooled.push({ hit: Math.abs(p.mean) <= hp, h: hp, rel: prior ? p.truth / prior.s02 : 1 });
    }
  }
  const fifths = (xs) => {
    const sorted = [...xs].sort((a, b) => a.rel - b.rel);
    const n = sorted.length / 5;
    return [0, 1, 2, 3, 4].map((i) => sorted.slice(Math.round(i * n), Math.round((i + 1) * n))).map((g) => pct(g.filter((x) => x.hit).length / g.length));
  };
  const row = (xs) => [pct(xs.filter((x) => x.hit).length / xs.length), fifths(xs).join(' / '), `±${pct(Math.expm1(median(xs.map((x) => x.h))))}`];
  return { plain: row(plain), pooled: row(pooled) };
}

const designs = [
  { name: 'default suite, 3 blocks × 5 rounds', S: 9, T: 6, B: 3, R: 5 },
  { name: 'default suite, 4 blocks × 2 rounds', S: 9, T: 6, B: 4, R: 2 },
  { name: 'default suite, 2 blocks × 5 rounds', S: 9, T: 6, B: 2, R: 5 },
  { name: '6-minute run, 4 blocks × 6 rounds', S: 3, T: 4, B: 4, R: 6 },
  { name: 'one scenario, 3 blocks × 3 rounds', S: 1, T: 6, B: 3, R: 3 },
];
console.log(`| design (${RUNS} runs each) | interval | coverage | by fifths of the pair's true variance ÷ the prior (quietest first) | median half-width |`);
console.log('|---|---|---|---|---|');
for (const d of designs) {
  const r = simulate(d);
  console.log(`| ${d.name} | t on blocks − 1 df | ${r.plain.join(' | ')} |`);
  console.log(`| | pooled (d0 capped) | ${r.pooled.join(' | ')} |`);
}
