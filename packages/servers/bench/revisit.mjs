#!/usr/bin/env node
// Is a pair's block level a property of its processes, or of each visit the processes make to a
// scenario? (issue 41; a benchmark script, not a test.) One run of the suite through the run loop
// (shared processes, time-sliced rounds, wrk, the tool's defaults: young generation fixed, the A/A
// control on), where every scenario is served twice in each block under two names (`<name>` and
// `<name>.again`: the same requests), each visit at its own place in the block's seeded order, on the
// same processes.
//
// Printed, over the blocks, for each pair's block deviation (its block median's log-ratio to the
// reference less its mean over blocks):
//   revisit   the correlation between a scenario's deviation and its second visit's (same processes,
//             same code, another visit): near 1 if the level belongs to the processes (or to the code
//             they run), near 0 if each visit draws its own;
//   other     the same between two different scenarios of the block (same processes, other code);
//   SD        the SD between blocks of a pair (variance components), and of the mean of both visits.
//   later     a scenario's later visit in the block ÷ its earlier one (by when each began), the
//             geometric mean over scenarios and blocks with a t-interval: the processes' drift with the
//             work served between the two visits. It also pulls the revisit correlation down (the
//             earlier visit's deviation is low where the later's is high), so read them together.
// If revisits are independent draws, serving a scenario twice per block buys a second process sample
// at the cost of a rotation round, not of a block.
//
// Usage: npm run bench:revisit -- [--targets node-http,fastify,koa,hono] [--scenario baseline,json-post,auth]
//        [--blocks 8] [--rounds 2] [--seed N] [--json FILE]
//        npm run bench:revisit -- --from FILE (the tables again from a run's --json, no load)
import { readFileSync, writeFileSync } from 'node:fs';
import { benchArgs } from '../../../scripts/bench-args.mjs';
import { median, runSuite, tQuantile, varianceComponents, WindowIndex } from '@benchsuite/sdk';
import { contractAScenariosByName, nodeTargets } from '../dist/index.js';
import { ratioGroups } from '../../sdk/dist/analysis/summarize.js';

const { values: args } = benchArgs(import.meta.url, {
  options: {
    targets: { type: 'string', default: 'node-http,fastify,koa,hono' },
    scenario: { type: 'string', default: 'baseline,json-post,auth' },
    blocks: { type: 'string', default: '8' },
    rounds: { type: 'string', default: '2' },
    seed: { type: 'string' },
    json: { type: 'string' },
    from: { type: 'string' },
  },
});
const fail = (m) => {
  process.stderr.write(`bench:revisit: ${m}\n`);
  process.exit(2);
};
const saved = args.from ? readSaved(args.from) : null;
function readSaved(file) {
  try {
    const j = JSON.parse(readFileSync(file, 'utf8'));
    if (!j.result?.windows) throw new Error('no result.windows in it (write one with --json)');
    return j;
  } catch (e) {
    fail(`--from: ${file}: ${e.message}`);
  }
}
if (saved) {
  const visits = [...new Set(saved.result.windows.map((w) => w.scenario))];
  args.scenario = visits.filter((v) => !v.endsWith('.again')).join(',');
  args.targets = saved.result.design.reference;
  args.blocks = String(saved.blocks);
  args.rounds = String(saved.rounds);
  args.seed = String(saved.seed);
}
const names = args.targets.split(',').filter(Boolean);
for (const n of names) if (!(n in nodeTargets)) fail(`--targets: ${n} is not one of ${Object.keys(nodeTargets).join(', ')}`);
const base = args.scenario.split(',').filter(Boolean);
for (const s of base) if (!(s in contractAScenariosByName)) fail(`--scenario: ${s} is not a contract A scenario`);
if (base.length < 2) fail('--scenario: name at least two scenarios (their correlation is the comparison)');
const blocks = Number(args.blocks);
const rounds = Number(args.rounds);
if (!Number.isInteger(blocks) || blocks < 3) fail(`--blocks: ${args.blocks} is not a whole number of at least 3`);
if (!Number.isInteger(rounds) || rounds < 1) fail(`--rounds: ${args.rounds} is not a whole number of at least 1`);
const seed = args.seed ? Number(args.seed) : Math.floor(Math.random() * 2 ** 31);
const AGAIN = '.again';
const scenarios = base.flatMap((s) => [contractAScenariosByName[s], { ...contractAScenariosByName[s], name: `${s}${AGAIN}` }]);
const reference = names[0];
if (!saved) process.stderr.write(`bench:revisit: ${names.length} targets and the reference's twin, ${scenarios.length} visits per block, ${blocks} blocks × ${rounds} rounds, seed ${seed}\n`);
const t0 = Date.now();
const result = saved
  ? saved.result
  : await runSuite({
      suite: 'revisit',
      scenarios,
      targets: names.map((n) => nodeTargets[n]),
      seed,
      driver: 'wrk',
      costs: false,
      design: { reference, processes: 'shared', rounds: { min: rounds, max: rounds }, blocks: { min: blocks, max: blocks }, precision: 0.001, budgetSec: 6 * 3600 },
      onEvent: (e) => {
        if (e.type === 'block-start' || e.type === 'block') process.stderr.write(`  ${e.scenario ?? ''} block ${e.block} (${Math.round((Date.now() - t0) / 1000)} s)\n`);
      },
    });
const index = new WindowIndex(result.windows);
const targets = [...new Set(result.windows.map((w) => w.target))].filter((t) => t !== reference);
// A pair's block medians of log-ratios, and their deviations from the pair's mean over blocks (NaN for a block it lacks).
const groupsOf = (s, t) => ratioGroups(result.windows, s, t, reference, index).map((g) => g.filter((x) => x > 0).map(Math.log));
const deviations = (s, t) => {
  const m = groupsOf(s, t).map((g) => (g.length ? median(g) : Number.NaN));
  const ok = m.filter(Number.isFinite);
  const mean = ok.reduce((a, b) => a + b, 0) / ok.length;
  return m.map((x) => x - mean);
};
// Correlation pooled over products of deviations (the same block, two series).
const correlation = (pairs) => {
  let xy = 0;
  let xx = 0;
  let yy = 0;
  let n = 0;
  for (const [x, y] of pairs)
    for (let b = 0; b < Math.min(x.length, y.length); b++) {
      if (!Number.isFinite(x[b]) || !Number.isFinite(y[b])) continue;
      xy += x[b] * y[b];
      xx += x[b] ** 2;
      yy += y[b] ** 2;
      n++;
    }
  const r = xy / Math.sqrt(xx * yy);
  // Fisher's z interval on the products counted as independent (an approximation: blocks are).
  const z = Math.atanh(r);
  const se = 1 / Math.sqrt(Math.max(1, n - 3));
  return { r, lo: Math.tanh(z - 1.96 * se), hi: Math.tanh(z + 1.96 * se), n };
};
// A scenario's later visit in a block ÷ its earlier one (block medians), by when each visit began.
const began = new Map();
for (const w of result.windows) {
  const k = `${w.scenario}\0${w.block}`;
  began.set(k, Math.min(began.get(k) ?? Number.POSITIVE_INFINITY, w.elapsedSec));
}
const laterOverEarlier = (t) => {
  const d = [];
  for (const s of base) {
    const [one, two] = [groupsOf(s, t), groupsOf(`${s}${AGAIN}`, t)];
    one.forEach((g, b) => {
      const h = two[b];
      if (!g?.length || !h?.length) return;
      const firstIsOne = began.get(`${s}\0${b + 1}`) < began.get(`${s}${AGAIN}\0${b + 1}`);
      d.push(firstIsOne ? median(h) - median(g) : median(g) - median(h));
    });
  }
  if (d.length < 2) return null;
  const m = d.reduce((a, x) => a + x, 0) / d.length;
  const half = (tQuantile(0.975, d.length - 1) * Math.sqrt(d.reduce((a, x) => a + (x - m) ** 2, 0) / (d.length - 1))) / Math.sqrt(d.length);
  return { point: Math.exp(m), lo: Math.exp(m - half), hi: Math.exp(m + half), n: d.length };
};
const fmtLater = (l) => (l ? `${l.point.toFixed(3)} [${l.lo.toFixed(3)}, ${l.hi.toFixed(3)}] (${l.n})` : '—');
const fmtR = (c) => `${c.r.toFixed(2)} [${c.lo.toFixed(2)}, ${c.hi.toFixed(2)}] (${c.n})`;
const lines = [
  `bench:revisit — ${saved ? `${args.from}, run of ${result.startedAt}` : new Date().toISOString()}, seed ${seed}, ${blocks} blocks × ${rounds} rounds, ${scenarios.length} visits per block, steal ${(100 * result.overall.meanSteal).toFixed(2)}% mean (${(100 * result.overall.maxSteal).toFixed(1)}% worst window), ${Math.round(saved ? result.runner.wallSec : (Date.now() - t0) / 1000)} s`,
  '',
  '| target | revisit: same scenario, another visit | other: two scenarios | SD between blocks, one visit (median over scenarios) | the mean of both visits | later visit ÷ earlier |',
  '|---|---|---|---|---|---|',
];
const all = { revisit: [], other: [] };
for (const t of targets) {
  const revisit = base.map((s) => [deviations(s, t), deviations(`${s}${AGAIN}`, t)]);
  const other = [];
  for (let i = 0; i < base.length; i++) for (let j = i + 1; j < base.length; j++) other.push([deviations(base[i], t), deviations(base[j], t)]);
  all.revisit.push(...revisit);
  all.other.push(...other);
  const one = median(scenarios.map((s) => varianceComponents(groupsOf(s.name, t)).between ?? Number.NaN).filter(Number.isFinite));
  // Both visits' rounds of a block as one group: the figure a design serving each scenario twice would report.
  const both = median(base.map((s) => varianceComponents(groupsOf(s, t).map((g, b) => [...g, ...(groupsOf(`${s}${AGAIN}`, t)[b] ?? [])])).between ?? Number.NaN).filter(Number.isFinite));
  lines.push(`| ${t} | ${fmtR(correlation(revisit))} | ${fmtR(correlation(other))} | ${one.toFixed(3)} | ${both.toFixed(3)} | ${fmtLater(laterOverEarlier(t))} |`);
}
lines.push(`| all | ${fmtR(correlation(all.revisit))} | ${fmtR(correlation(all.other))} | | | |`);
process.stdout.write(`${lines.join('\n')}\n`);
if (args.json && !saved) writeFileSync(args.json, `${JSON.stringify({ seed, blocks, rounds, result }, null, 1)}\n`);
