#!/usr/bin/env node
// The forecast's record (issue 40; a script whose figures docs/measurements.md reports, not a test):
// for each result given, the forecast the run's `expects after block 2` line would say with the code
// as it is now, replayed from the run's own first two blocks (the same functions the run calls:
// `pairNoise`, `measuredNoise` with the design's prior `priorBetween`, `forecastAtPace`), beside the
// median half-width the run reached over its ratios to the reference (the report's Forecast line) and what the run itself said after block 2 (its
// `design.budgetPlan.measuredForecast`, made by the code of its day). No servers, no load.
//
// Usage: npm run bench:forecast-replay -- <results.json> [<results.json> …]
import { readFileSync } from 'node:fs';
import { median } from '../dist/analysis/bootstrap.js';
import { forecastAtPace, measuredNoise, pairNoise, priorBetween, typicalNoise } from '../dist/analysis/forecast.js';

const files = process.argv.slice(2);
if (!files.length) {
  process.stderr.write('bench:forecast-replay: name one or more results.json files\n');
  process.exit(2);
}
const AFTER = 2;
const pct = (x) => `±${(100 * x).toFixed(1)}%`;
const lines = [
  '| run (started) | scenarios served per process | prior between | between after 2 blocks → pooled | within | blocks at pace / ran | forecast | reached | ÷ | the run said ÷ |',
  '|---|---|---|---|---|---|---|---|---|---|',
];
for (const f of files) {
  let r;
  try {
    r = JSON.parse(readFileSync(f, 'utf8'));
  } catch (e) {
    process.stderr.write(`bench:forecast-replay: ${f}: ${e.message}\n`);
    process.exit(2);
  }
  const { design } = r;
  const ref = design.reference;
  const pairs = r.summaries.filter((s) => s.target !== ref).map((s) => ({ scenario: s.scenario, target: s.target }));
  const served = design.processes === 'shared' ? new Set(r.blocks.map((b) => b.scenario)).size : 1;
  const prior = priorBetween(served) / Math.sqrt(design.replicas ?? 1);
  const measured = pairNoise(r.windows, pairs, ref, AFTER);
  const noise = measuredNoise(measured, prior);
  const paced = noise && forecastAtPace(noise, r, AFTER, design);
  // What the report's Forecast line sets beside it: the median half-width over the ratios to the reference.
  const ratios = r.summaries.filter((s) => s.target !== ref && s.relativeRps?.halfWidth != null).map((s) => s.relativeRps.halfWidth);
  const reached = ratios.length ? median(ratios) : null;
  const ran = Math.max(...r.windows.map((w) => w.block));
  const said = design.budgetPlan?.measuredForecast;
  if (!noise || !paced || !reached) {
    lines.push(`| ${f} | — | — | fewer than ${AFTER} blocks or no interval | | | | | | |`);
    continue;
  }
  // The run's own SD between blocks after 2 blocks, before the prior is pooled in.
  const raw = typicalNoise(measured).between;
  lines.push(
    `| ${r.startedAt ?? f} | ${served} | ${prior.toFixed(3)} | ${raw.toFixed(3)} → ${noise.between.toFixed(3)} | ${noise.within.toFixed(3)} | ${paced.blocks} / ${ran} | ${pct(paced.halfWidth)} | ${pct(reached)} | ${(paced.halfWidth / reached).toFixed(2)} | ${said ? (said.halfWidth / reached).toFixed(2) : '—'} |`,
  );
}
process.stdout.write(`${lines.join('\n')}\n`);
