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
// With --by-scenario it also says whose trend it is, per scenario over every run (processes per
// scenario: a unit is a scenario's block): the ratios' round 1 ÷ later rounds, and in raw req/s the
// reference's own round 1 ÷ its later rounds beside every other target's (the mean over a block's
// targets), each with a t-interval over the blocks. Raw req/s carry the host's drift between rounds,
// which the ratios cancel; a ratio's lift that comes with the reference's raw round 1 low and the
// others' not is the reference's trend.
//
// Usage: npm run bench:round-one -- --from a/results.json,b/results.json[,…] [--by-scenario]
import { benchArgs } from '../../../scripts/bench-args.mjs';
import { meanFactor, roundOneUnits } from '@benchsuite/sdk';
import { readResult, windowsAsRun } from '../../cli/bench/_results.mjs';

const { values } = benchArgs(import.meta.url, { options: { from: { type: 'string' }, 'by-scenario': { type: 'boolean' } } });
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

/**
 * Per (scenario, block): log(round 1's req/s) − the mean log of the later rounds', for the reference
 * and as the mean over the block's other targets (the A/A twin among them). Raw, not ratios.
 */
function rawRoundOne(windows, reference) {
  const by = new Map();
  for (const w of windows) {
    if (w.status !== 'ok' || w.excluded !== null || !(w.rps > 0)) continue;
    const k = `${w.scenario}\u0000${w.block}`;
    if (!by.has(k)) by.set(k, new Map());
    const t = by.get(k);
    if (!t.has(w.target)) t.set(w.target, []);
    t.get(w.target).push(w);
  }
  const out = [];
  for (const [k, targets] of by) {
    const effect = (ws) => {
      const first = ws.filter((w) => w.round === 1);
      const later = ws.filter((w) => w.round > 1);
      if (!first.length || !later.length) return null;
      const lg = (xs) => xs.reduce((a, w) => a + Math.log(w.rps), 0) / xs.length;
      return lg(first) - lg(later);
    };
    const ref = targets.has(reference) ? effect(targets.get(reference)) : null;
    const others = [...targets]
      .filter(([t]) => t !== reference)
      .map(([, ws]) => effect(ws))
      .filter((x) => x !== null);
    if (ref === null || !others.length) continue;
    out.push({ scenario: k.split('\u0000')[0], reference: ref, others: others.reduce((a, x) => a + x, 0) / others.length });
  }
  return out;
}

const all = [];
/** Per scenario: the ratios' units, and the raw round 1 of the reference and of the others. */
const byScenario = new Map();
const slot = (s) => {
  if (!byScenario.has(s)) byScenario.set(s, { units: [], reference: [], others: [] });
  return byScenario.get(s);
};
for (const file of values.from.split(',')) {
  const r = readResult('bench:round-one', file);
  const windows = windowsAsRun(r.windows);
  const scenarios = [...new Set(windows.map((w) => w.scenario))];
  const units = roundOneUnits(windows, scenarios, r.design.reference, r.design.processes);
  all.push(...units);
  if (values['by-scenario'] && r.design.processes !== 'shared') {
    for (const s of scenarios) slot(s).units.push(...roundOneUnits(windows, [s], r.design.reference, r.design.processes));
    for (const x of rawRoundOne(windows, r.design.reference)) {
      slot(x.scenario).reference.push(x.reference);
      slot(x.scenario).others.push(x.others);
    }
  }
  const recorded = r.designBias?.roundOne.overall;
  process.stdout.write(`${file}: ${fmt(units)}${recorded ? ` (the run said ${recorded.point.toFixed(3)})` : ''}\n`);
  if (values['by-scenario'] && r.design.processes === 'shared') process.stdout.write('  (shared processes: a block serves every scenario, so this run is left out of the per-scenario lines)\n');
}
process.stdout.write(`pooled: ${fmt(all)}; SD of a block's effect ${(100 * sdOf(all)).toFixed(1)}%\n`);
if (values['by-scenario'] && byScenario.size) {
  process.stdout.write("\nper scenario, pooled (processes per scenario): the ratios' round 1 ÷ later; raw req/s round 1 ÷ later of the reference, of the other targets\n");
  const width = Math.max(...[...byScenario.keys()].map((s) => s.length));
  for (const [s, x] of byScenario) process.stdout.write(`  ${s.padEnd(width)}  ratios ${fmt(x.units)}; reference ${fmt(x.reference)}; others ${fmt(x.others)}\n`);
}
