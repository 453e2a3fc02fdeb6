#!/usr/bin/env node
// What dividing by both of the reference's processes buys (`POOLED_REFERENCE`): each result given is
// estimated again from its own windows, once with the reference's process alone (the A/A twin's
// windows dropped) and once as the run estimates it now (a round's ratio to the geometric mean of
// the reference and its twin), with the run's own estimator settings (seed, resamples, confidence)
// and its windows as the run left them in or out. No load: it reads results.
// Prints per result the median half-width of the throughput ratios both ways, and the variance of
// the pairs' block means (log scale, summed over pairs, so a few pairs' interval widths do not
// decide it) both ways, each as pooled ÷ alone; with --pairs every pair's point and half-width.
//
// Usage: npm run bench:reference-pool -- --from a/results.json,b/results.json [--pairs]
import { benchArgs } from '../../../scripts/bench-args.mjs';
import { estimate, meansVariance, median, twinOf, WindowIndex } from '@benchsuite/sdk';
import { readResult } from '../../cli/bench/_results.mjs';

const { values } = benchArgs(import.meta.url, { options: { from: { type: 'string' }, pairs: { type: 'boolean', default: false } } });
if (!values.from) {
  process.stderr.write('usage: npm run bench:reference-pool -- --from a/results.json[,b/results.json…] [--pairs]\n');
  process.exit(2);
}

const pct = (x) => `±${(100 * x).toFixed(1)}%`;

for (const file of values.from.split(',')) {
  const r = readResult('bench:reference-pool', file);
  const ref = r.design.reference;
  const twin = twinOf(ref);
  if (!r.windows.some((w) => w.target === twin)) {
    process.stdout.write(`${file}: no A/A twin (${twin}) in this run, nothing to pool\n`);
    continue;
  }
  const o = {
    reference: ref,
    precision: r.design.precision,
    practicalBand: r.design.practicalBand,
    bootstrapResamples: r.design.bootstrapResamples,
    confidence: r.design.confidence ?? 0.95,
    seed: r.seed,
  };
  const pooledIndex = new WindowIndex(r.windows);
  const aloneIndex = new WindowIndex(r.windows.filter((w) => w.target !== twin));
  const rounds = new Map();
  for (const w of r.windows) rounds.set(`${w.scenario}\0${w.block}`, Math.max(rounds.get(`${w.scenario}\0${w.block}`) ?? 0, w.round));
  const ratio = (t, x) => (x.rps > 0 ? t.rps / x.rps : null);
  const rows = [];
  /** Sample variance of the block means of log-ratios; 0 with fewer than two blocks. */
  const logMeansVariance = (groups) => meansVariance(groups.map((g) => g.map(Math.log))) ?? 0;
  let varAlone = 0;
  let varPooled = 0;
  for (const s of r.summaries) {
    if (s.target === ref || !s.relativeRps) continue;
    const groups = (index) => index.paired(s.scenario, s.target, ref, (b) => rounds.get(`${s.scenario}\0${b}`) ?? 0, ratio);
    const of = (g) => estimate(g, o, [s.scenario, s.target, 'ratio'], 'ratio');
    const [a, p] = [groups(aloneIndex), groups(pooledIndex)];
    varAlone += logMeansVariance(a);
    varPooled += logMeansVariance(p);
    rows.push({ scenario: s.scenario, target: s.target, alone: of(a), pooled: of(p) });
  }
  const alone = median(rows.map((x) => x.alone.halfWidth ?? Number.NaN));
  const pooled = median(rows.map((x) => x.pooled.halfWidth ?? Number.NaN));
  process.stdout.write(
    `${file}: ${rows.length} ratios; median half-width ${pct(alone)} to the reference alone, ${pct(pooled)} to both processes (${(pooled / alone).toFixed(2)}×); block means' variance ${(varPooled / varAlone).toFixed(2)}× (SD of a pair's block means ${Math.sqrt(varAlone / rows.length).toFixed(3)} → ${Math.sqrt(varPooled / rows.length).toFixed(3)})\n`,
  );
  if (values.pairs)
    for (const x of rows)
      process.stdout.write(
        `  ${x.scenario.padEnd(18)} ${x.target.padEnd(12)} alone ${x.alone.point.toFixed(3)} ${pct(x.alone.halfWidth)}   both ${x.pooled.point.toFixed(3)} ${pct(x.pooled.halfWidth)}\n`,
      );
}
