#!/usr/bin/env node
// What a fresh server process costs before it is measured, read from finished runs (a benchmark
// script, not a test; it starts nothing). For each results.json:
// - the warm-up curve: each warm-up window's req/s ÷ the median of the same block's measured
//   windows for that target, per window of warm-up (`design.warmup.windowSec` long, 1 s in results
//   without it: how soon a fresh process reaches the figure it is measured at, and how long the
//   warm-ups lasted);
// - round 1's bias: round 1's req/s ÷ the median of the later rounds of its block, with round 2
//   ÷ rounds 3+ as a control (a first window that runs slow after an idle wait shows here).
// Stepped windows (the concurrency ramp) are left out: their req/s mixes connection counts.
// With shared processes (`--processes shared`) both are split: processes fresh from their start,
// and carried ones (warmed for a later scenario of their block by rotation rounds).
//
// Usage: npm run bench:warmup -- <results.json> [<results.json> ...]
import { median, quantileSorted } from '@benchsuite/sdk';
import { readResult, resultFiles } from './_results.mjs';

const files = resultFiles('bench:warmup');

const quantile = (xs, p) =>
  quantileSorted(
    [...xs].sort((a, b) => a - b),
    p,
  );
const pct = (k, n) => `${k}/${n} (${n ? Math.round((100 * k) / n) : 0}%)`;
const describe = (xs) =>
  `n=${xs.length}, median ${median(xs).toFixed(3)}, p10 ${quantile(xs, 0.1).toFixed(3)}, p90 ${quantile(xs, 0.9).toFixed(3)}, under 0.9: ${xs.filter((x) => x < 0.9).length}, over 1.1: ${xs.filter((x) => x > 1.1).length}`;

for (const file of files) {
  const r = readResult('bench:warmup', file);
  // Measured windows per (scenario, block, target), single-step only.
  const groups = new Map();
  for (const w of r.windows ?? []) {
    if (w.status !== 'ok' || w.excluded || (w.steps?.length ?? 0) > 1) continue;
    const k = `${w.scenario}|${w.block}|${w.target}`;
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k).push(w);
  }

  // Which (scenario, block, target) ran on a carried process (shared processes only).
  const carried = new Set();
  const curves = { fresh: [], carried: [] };
  for (const b of r.blocks ?? []) {
    for (const t of b.targets ?? []) {
      if (t.carried) carried.add(`${b.scenario}|${b.block}|${t.target}`);
      const ws = groups.get(`${b.scenario}|${b.block}|${t.target}`);
      if (!t.warmupRps?.length || !ws?.length) continue;
      const m = median(ws.map((w) => w.rps));
      curves[t.carried ? 'carried' : 'fresh'].push(t.warmupRps.map((x) => x / m));
    }
  }
  const shared = carried.size > 0;
  console.log(`${file} (driver ${r.environment?.driver?.name ?? '?'}${shared ? ', shared processes' : ''})`);
  if (curves.fresh.length + curves.carried.length === 0) console.log('  no warm-ups with measured windows to compare');
  for (const [kind, list] of Object.entries(curves)) {
    if (!list.length) continue;
    const mean = list.reduce((a, c) => a + c.length, 0) / list.length;
    const w = r.design?.warmup ?? {};
    const what = kind === 'fresh' ? `warm-ups${shared ? ' of fresh processes' : ''}` : 'rotation warm-ups of carried processes';
    console.log(`  ${what}: ${list.length}, mean length ${mean.toFixed(2)} warm-up windows (warm-up ${w.minSec ?? '?'}–${w.maxSec ?? '?'} s)`);
    const longest = Math.max(...list.map((c) => c.length));
    for (let i = 0; i < longest; i++) {
      const at = list.filter((c) => c.length > i).map((c) => c[i]);
      const near = (tol) => at.filter((x) => Math.abs(x - 1) <= tol).length;
      console.log(`    window ${i + 1} ÷ block median: median ${median(at).toFixed(3)}; within 5%: ${pct(near(0.05), at.length)}, within 10%: ${pct(near(0.1), at.length)}`);
    }
  }

  const bias = (round, keep = () => true) => {
    const out = [];
    for (const [k, ws] of groups) {
      if (!keep(k)) continue;
      const w = ws.find((x) => x.round === round);
      const later = ws.filter((x) => x.round > round).map((x) => x.rps);
      if (w && later.length >= 1) out.push(w.rps / median(later));
    }
    return out;
  };
  const sets = shared
    ? [
        ['fresh processes', (k) => !carried.has(k)],
        ['carried processes', (k) => carried.has(k)],
      ]
    : [['', () => true]];
  for (const [label, keep] of sets) {
    const r1 = bias(1, keep);
    const r2 = bias(2, keep);
    const on = label ? ` (${label})` : '';
    if (r1.length) console.log(`  round 1 ÷ median of rounds 2+${on}: ${describe(r1)}`);
    if (r2.length) console.log(`  round 2 ÷ median of rounds 3+ (control)${on}: ${describe(r2)}`);
  }
}
