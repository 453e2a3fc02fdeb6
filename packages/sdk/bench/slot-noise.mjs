#!/usr/bin/env node
// What a sliced round's noise is made of, from each slot's own rate (`steps[].slice.perSlot`, recorded
// since 2026-12-03). No load: it reads results. Per result, over its time-sliced windows that the
// estimates kept (none left out for steal):
//   - one slot's SD: each window's slots around that window's mean (log req/s), pooled; a window's
//     rate is the mean of its slots, so with k slots of one target its own noise is about this ÷ √k;
//   - neighbours: in each round's step, every slot's deviation from its target's own mean in that
//     round, in time order; the correlation between a slot's deviation and the next slot's, when
//     the next is another target's. Near 1: the host's seconds, shared by whoever is loaded then,
//     which a ratio to a nearby slot of the reference would cancel; near 0: each slot's own;
//   - the SD of a round's log-ratio to the reference within its (scenario, target, block), pooled,
//     as the run reads it (each window's rate ÷ the geometric mean of the reference's processes') and
//     with a local reference instead: each of the target's slots ÷ the reference's processes' slots
//     interpolated (log scale) at its time, averaged over its slots.
//
// Usage: npm run bench:slot-noise -- --from a/results.json[,b/results.json…]
import { twinOf } from '@benchsuite/sdk';
import { benchArgs } from '../../../scripts/bench-args.mjs';
import { readResult } from '../../cli/bench/_results.mjs';

const { values } = benchArgs(import.meta.url, { options: { from: { type: 'string' } } });
if (!values.from) {
  process.stderr.write('usage: npm run bench:slot-noise -- --from a/results.json[,b/results.json…]\n');
  process.exit(2);
}

const mean = (xs) => xs.reduce((a, x) => a + x, 0) / xs.length;
/** Pooled SD of groups around their own means, with its degrees of freedom. */
const pooledSd = (groups) => {
  let ss = 0;
  let df = 0;
  for (const g of groups) {
    if (g.length < 2) continue;
    const m = mean(g);
    ss += g.reduce((a, x) => a + (x - m) ** 2, 0);
    df += g.length - 1;
  }
  return df > 0 ? { sd: Math.sqrt(ss / df), df } : undefined;
};
const corr = (pairs) => {
  if (pairs.length < 3) return undefined;
  const mx = mean(pairs.map(([x]) => x));
  const my = mean(pairs.map(([, y]) => y));
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (const [x, y] of pairs) {
    sxy += (x - mx) * (y - my);
    sxx += (x - mx) ** 2;
    syy += (y - my) ** 2;
  }
  return sxx > 0 && syy > 0 ? sxy / Math.sqrt(sxx * syy) : undefined;
};
/** Linear interpolation on [time, value] points sorted by time; the nearest end outside them. */
const interpolate = (points, t) => {
  if (t <= points[0][0]) return points[0][1];
  if (t >= points.at(-1)[0]) return points.at(-1)[1];
  for (let i = 1; i < points.length; i++) {
    const [a, x] = points[i - 1];
    const [b, y] = points[i];
    if (t <= b) return b > a ? x + ((y - x) * (t - a)) / (b - a) : (x + y) / 2;
  }
  return points.at(-1)[1];
};
const pct = (x) => (x === undefined ? '–' : `${(x.sd * 100).toFixed(1)}% (${x.df} df)`);

for (const file of values.from.split(',')) {
  const result = readResult('bench:slot-noise', file);
  const reference = result.design.reference;
  const twin = twinOf(reference);
  const referenceSide = [reference, twin];
  // Slots of one step of one round: (scenario, block, round, step) → target → { rps, slots: [[mid, log rps]] }.
  const rounds = new Map();
  let steps = 0;
  for (const w of result.windows) {
    if (w.status !== 'ok' || w.excluded !== null) continue;
    for (const [si, s] of (w.steps ?? []).entries()) {
      const sl = s.slice;
      if (!sl?.perSlot?.length || !(s.rps > 0)) continue;
      const slots = sl.perSlot.filter(([, r]) => r > 0).map(([at, r]) => [at + sl.sliceSec / 2, Math.log(r)]);
      if (!slots.length) continue;
      const k = `${w.scenario}\u0000${w.block}\u0000${w.round}\u0000${si}`;
      if (!rounds.has(k)) rounds.set(k, new Map());
      rounds.get(k).set(w.target, { rps: s.rps, slots });
      steps++;
    }
  }
  if (!steps) {
    process.stdout.write(`${file}: no time-sliced window with its slots' own rates (results before 2026-12-03 lack them)\n`);
    continue;
  }
  const ownSlots = [];
  const neighbours = [];
  const ratios = new Map();
  for (const [k, targets] of rounds) {
    const timeline = [];
    for (const [target, t] of targets) {
      ownSlots.push(t.slots.map(([, x]) => x));
      const m = mean(t.slots.map(([, x]) => x));
      for (const [at, x] of t.slots) timeline.push([at, x - m, target]);
    }
    timeline.sort((a, b) => a[0] - b[0]);
    for (let i = 1; i < timeline.length; i++) if (timeline[i][2] !== timeline[i - 1][2]) neighbours.push([timeline[i - 1][1], timeline[i][1]]);
    const refs = referenceSide.filter((r) => targets.has(r));
    if (!refs.length) continue;
    const [scenario, block] = k.split('\u0000');
    for (const [target, t] of targets) {
      if (target === reference) continue;
      // The twin's ratio is to the reference's process alone, as the run's A/A control reads it.
      const side = target === twin ? [reference] : refs;
      if (!side.every((r) => targets.has(r))) continue;
      const asRun = Math.log(t.rps) - mean(side.map((r) => Math.log(targets.get(r).rps)));
      const points = side.flatMap((r) => targets.get(r).slots).sort((a, b) => a[0] - b[0]);
      const local = mean(t.slots.map(([at, x]) => x - interpolate(points, at)));
      const g = `${scenario}\u0000${target}\u0000${block}`;
      if (!ratios.has(g)) ratios.set(g, { asRun: [], local: [] });
      ratios.get(g).asRun.push(asRun);
      ratios.get(g).local.push(local);
    }
  }
  const r = corr(neighbours);
  const slotsPerStep = mean(ownSlots.map((s) => s.length));
  process.stdout.write(
    `${file}: ${steps} time-sliced steps of the windows kept (a window has one per connection step), ${slotsPerStep.toFixed(1)} slots each on average\n` +
      `  one slot's SD around its window's mean: ${pct(pooledSd(ownSlots))}\n` +
      `  neighbouring slots of different targets, correlation of their deviations: ${r === undefined ? '–' : r.toFixed(3)} over ${neighbours.length} pairs\n` +
      `  a round's log-ratio to ${reference} within blocks: as the run reads it ${pct(pooledSd([...ratios.values()].map((g) => g.asRun)))}, ` +
      `with a local reference (its slots interpolated at each slot's time) ${pct(pooledSd([...ratios.values()].map((g) => g.local)))}\n`,
  );
}
