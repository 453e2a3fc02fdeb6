#!/usr/bin/env node
// Reproducibility of benchsuite's own figures (a benchmark script, not a test): run the same suite
// twice with different seeds, one run after the other, and print for every (scenario, target) pair
// each run's relative figures (throughput and server CPU per request, both ÷ the reference) with
// their 95% intervals, whether the intervals overlap, the difference, and the share of pairs whose
// two figures differ by less than 3% — beside the share the two runs' own intervals lead one to
// expect: each figure's standard error read from its interval (log scale, Student t on its blocks
// − 1 degrees of freedom), the difference taken as normal with both errors, summed over the pairs.
// Agreement well under that expectation means intervals too narrow; near it, that agreement within
// 3% asks for narrower intervals, not for a steadier tool.
//
// Usage: npm run bench:repro -- [--seeds 11,12] [--out DIR] [--from a.json,b.json] [-- <benchsuite run flags>]
//   e.g. npm run bench:repro -- -- --scenario baseline,json-post --target node-http,fastify
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { normalCdf, tQuantile, upgradeResult } from '@benchsuite/sdk';
import { fileURLToPath } from 'node:url';
import { benchArgs } from '../../../scripts/bench-args.mjs';

const { values: args, positionals } = benchArgs(import.meta.url, {
  options: { seeds: { type: 'string', default: '11,12' }, out: { type: 'string' }, from: { type: 'string' }, within: { type: 'string', default: '0.03' } },
  allowPositionals: true,
});
const within = Number(args.within);
const cli = fileURLToPath(new URL('../bin/benchsuite.js', import.meta.url));
const log = (m) => process.stderr.write(`${m}\n`);
const fail = (m) => {
  log(`bench:repro: ${m}`);
  process.exit(2);
};
const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);

let files;
if (args.from) files = args.from.split(',').map((f) => resolve(f));
else {
  const seeds = args.seeds.split(',').map(Number);
  if (seeds.length !== 2 || seeds.some((s) => !Number.isInteger(s))) fail('--seeds: expected two whole numbers, e.g. 11,12');
  const out = resolve(args.out ?? join('benchsuite-results', `repro-${stamp}`));
  mkdirSync(out, { recursive: true });
  files = [];
  for (const seed of seeds) {
    const dir = join(out, `seed-${seed}`);
    log(`bench:repro: run with seed ${seed} → ${dir}`);
    const t0 = Date.now();
    const r = spawnSync(process.execPath, [cli, 'run', '--seed', String(seed), '--out', dir, ...positionals], { stdio: ['ignore', 'ignore', 'inherit'] });
    log(`bench:repro: seed ${seed} finished in ${((Date.now() - t0) / 60000).toFixed(1)} min (exit ${r.status})`);
    if (r.status !== 0 && r.status !== 1) process.exit(r.status ?? 1);
    files.push(join(dir, 'results.json'));
  }
}
if (files.length !== 2) fail(`--from: expected two results.json files separated by a comma, got ${files.length}`);
const readResult = (f) => {
  try {
    return upgradeResult(JSON.parse(readFileSync(f, 'utf8')));
  } catch (err) {
    return fail(`${f}: not a benchsuite results.json (${err.code ?? err.message})`);
  }
};
const [a, b] = files.map(readResult);
const f3 = (x) => (x === null || x === undefined ? '–' : x.toFixed(3));
const pct = (x, d = 1) => (x === null || x === undefined || !Number.isFinite(x) ? '–' : `${(x * 100).toFixed(d)}%`);
// Blocks that measured each (scenario, target) pair: the degrees of freedom of its interval.
const blockCounts = (r) => {
  const m = new Map();
  for (const w of r.windows) {
    const k = `${w.scenario}\0${w.target}`;
    if (!m.has(k)) m.set(k, new Set());
    m.get(k).add(w.block);
  }
  return (scenario, target) => m.get(`${scenario}\0${target}`)?.size ?? 0;
};
// A figure's standard error on the log scale, from its 95% interval.
const logSe = (e, blocks) => Math.log(e.ci95[1] / e.ci95[0]) / (2 * tQuantile(0.975, Math.max(1, blocks - 1)));
const ci = (e) => (e?.ci95 ? `[${f3(e.ci95[0])}, ${f3(e.ci95[1])}]` : '');
const overlap = (x, y) => (x?.ci95 && y?.ci95 ? x.ci95[0] <= y.ci95[1] && y.ci95[0] <= x.ci95[1] : null);

function compareFigure(key) {
  const rows = [];
  const [blocksA, blocksB] = [blockCounts(a), blockCounts(b)];
  for (const sa of a.summaries) {
    const sb = b.summaries.find((s) => s.scenario === sa.scenario && s.target === sa.target);
    const x = sa[key];
    const y = sb?.[key];
    if (!x || !y) continue;
    const diff = y.point / x.point - 1;
    // P(the two figures within ±within of each other) if both runs measure one value with the precision they state.
    const sd = x.ci95 && y.ci95 ? Math.hypot(logSe(x, blocksA(sa.scenario, sa.target)), logSe(y, blocksB(sa.scenario, sa.target))) : Number.NaN;
    const expected = normalCdf(Math.log(1 + within) / sd) - normalCdf(Math.log(1 - within) / sd);
    rows.push({ scenario: sa.scenario, target: sa.target, x, y, diff, overlap: overlap(x, y), expected });
  }
  return rows;
}

const print = (title, rows) => {
  console.log(`\n## ${title}\n`);
  console.log('| scenario | target | run 1 | run 2 | intervals overlap | difference |');
  console.log('|---|---|---|---|---|---|');
  for (const r of rows)
    console.log(
      `| ${r.scenario} | ${r.target} | ${f3(r.x.point)} ${ci(r.x)} | ${f3(r.y.point)} ${ci(r.y)} | ${r.overlap === null ? '–' : r.overlap ? 'yes' : 'no'} | ${r.diff >= 0 ? '+' : ''}${pct(r.diff)} |`,
    );
  const agree = rows.filter((r) => Math.abs(r.diff) < within).length;
  const over = rows.filter((r) => r.overlap).length;
  const known = rows.filter((r) => Number.isFinite(r.expected));
  const expected = known.reduce((acc, r) => acc + r.expected, 0);
  console.log(
    `\n${title}: ${agree} of ${rows.length} pairs within ${pct(within, 0)} (${pct(rows.length ? agree / rows.length : null)}); intervals overlap in ${over} of ${rows.length}; median |difference| ${pct(median(rows.map((r) => Math.abs(r.diff))))}, worst ${pct(Math.max(...rows.map((r) => Math.abs(r.diff))))}`,
  );
  console.log(
    `${title}: the two runs' intervals lead one to expect ${expected.toFixed(1)} of ${known.length} within ${pct(within, 0)} (each figure's error from its interval, Student t on its blocks − 1 df)`,
  );
  return { agree, n: rows.length, expected };
};
function median(xs) {
  const s = [...xs].sort((p, q) => p - q);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : null;
}

console.log(`# bench:repro — ${a.suite}, reference ${a.design.reference}`);
console.log(`\n| run | seed | wall | windows | steal mean / worst | excluded for steal | median / worst half-width | precision met | stops |`);
console.log('|---|---|---|---|---|---|---|---|---|');
for (const [i, r] of [a, b].entries()) {
  const counts = new Map();
  for (const s of r.stops) counts.set(s.reason, (counts.get(s.reason) ?? 0) + 1);
  const stops = [...counts].map(([k, v]) => `${k} ${v}`).join(', ');
  console.log(
    `| ${i + 1} | ${r.seed} | ${(r.runner.wallSec / 60).toFixed(1)} min | ${r.overall.windows} | ${pct(r.overall.meanSteal)} / ${pct(r.overall.maxSteal)} | ${r.overall.excludedSteal} | ±${pct(r.overall.medianHalfWidth)} / ±${pct(r.overall.worstHalfWidth)} | ${r.overall.precisionMet}/${r.overall.pairs} | ${stops} |`,
  );
}
const t = print('Throughput relative to the reference', compareFigure('relativeRps'));
const c = print('Server CPU per request relative to the reference', compareFigure('relativeCpu'));
console.log(
  `\nAgreement within ${pct(within, 0)}: throughput ${t.agree}/${t.n} (expected ${t.expected.toFixed(1)}), CPU per request ${c.agree}/${c.n} (expected ${c.expected.toFixed(1)}). Files: ${files.join(', ')}`,
);
