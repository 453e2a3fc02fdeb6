#!/usr/bin/env node
// Round 1 ÷ a block's later rounds, pooled over runs (issue 38's figure, which one run reads to
// ±3–5%). Each result's design-bias check takes as its unit a block of processes: per block, the
// mean over its pairs of log(round 1's ratio to the reference) − the mean log of the later rounds'
// (`roundOneUnits`). A unit is a set of fresh processes in its own seconds, so the units of several
// runs are independent samples of the same effect: this script pools them, and prints each run's
// figure and the pooled one with a t-interval over all units. Round 1 windows that a run left out as
// unsteady are put back first (the check is what decided to leave them out). No load: it reads
// results.
//
// Usage: npm run bench:round-one -- --from a/results.json,b/results.json[,…]
import { benchArgs } from '../../../scripts/bench-args.mjs';
import { meanFactor, roundOneUnits } from '@benchsuite/sdk';
import { readResult } from '../../cli/bench/_results.mjs';

const { values } = benchArgs(import.meta.url, { options: { from: { type: 'string' } } });
if (!values.from) {
  process.stderr.write('usage: npm run bench:round-one -- --from a/results.json[,b/results.json…]\n');
  process.exit(2);
}

/** The check's own figure (`meanFactor`: exp of the mean log, its 95% t-interval over the blocks), as text. */
const fmt = (xs) => {
  const f = meanFactor(xs);
  if (!f) return 'no block with a round 1 and a later round';
  return `${f.point.toFixed(3)}${f.ci95 ? ` [${f.ci95[0].toFixed(3)}, ${f.ci95[1].toFixed(3)}]` : ''} over ${f.n} blocks`;
};
/** Sample SD of the blocks' effects (log scale). */
const sdOf = (xs) => {
  const m = xs.reduce((a, x) => a + x, 0) / xs.length;
  return Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1));
};

const all = [];
for (const file of values.from.split(',')) {
  const r = readResult('bench:round-one', file);
  const windows = r.windows.map((w) => (w.status === 'ok' && w.excluded === 'unsteady' ? { ...w, excluded: null } : w));
  const scenarios = [...new Set(windows.map((w) => w.scenario))];
  const units = roundOneUnits(windows, scenarios, r.design.reference, r.design.processes);
  all.push(...units);
  const recorded = r.designBias?.roundOne.overall;
  process.stdout.write(`${file}: ${fmt(units)}${recorded ? ` (the run said ${recorded.point.toFixed(3)})` : ''}\n`);
}
process.stdout.write(`pooled: ${fmt(all)}; SD of a block's effect ${(100 * sdOf(all)).toFixed(1)}%\n`);
