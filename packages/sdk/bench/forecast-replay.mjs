#!/usr/bin/env node
// The forecast's record (issue 40; a script whose figures docs/measurements.md reports, not a test):
// for each result given, the forecast the run's `expects after block 2` line would say with the code
// as it is now, replayed from the run's own first two blocks (the same functions the run calls:
// `pairNoise`, `measuredNoise` with the design's prior `priorBetween`, `forecastAtPace`), beside the
// median half-width the run reached over its ratios to the reference (the report's Forecast line) and what the run itself said after block 2 (its
// `design.budgetPlan.measuredForecast`, made by the code of its day), whether the reached fell in the
// range the forecast is said with (`likelyRange`), and over all the runs the mean and SD of
// log(forecast ÷ reached), replayed and as the runs said it, and the same for the forecast said before
// the run from the priors alone (`DEFAULTS.forecast.priorRecord` is fitted on it). `DEFAULTS.forecast.record` is fitted on
// the latter since 2026-12-02: with processes per scenario a run prices the scenarios to come at the
// planner's cost of their blocks (`plannedSec`), which results keep since then
// (`design.budgetPlan.blockSec`); the replay of an older result prices them at the first scenario's
// pace, and says how many it replayed so. Then, per run, the typical pair's components over all its blocks and
// each scenario's SD between blocks (what two blocks could not see). Last, what limits it: each
// block's SD within blocks (the mean over its pairs of their rounds' variance, square-rooted) ÷ its
// run's, its range, the SD of its log, and its mean by block position. No servers, no load.
//
// Usage: npm run bench:forecast-replay -- <results.json> [<results.json> …]
import { readFileSync } from 'node:fs';
import { median } from '../dist/analysis/bootstrap.js';
import { DEFAULTS } from '../dist/defaults.js';
import { forecastAtPace, likelyRange, measuredNoise, pairNoise, priorBetween, recordWithScenariosBegun, typicalNoise, withUnseenScenarios } from '../dist/analysis/forecast.js';
import { ratioGroups, WindowIndex } from '../dist/analysis/summarize.js';
import { windowsAsRun } from '../../cli/bench/_results.mjs';

const files = process.argv.slice(2);
if (!files.length) {
  process.stderr.write('bench:forecast-replay: name one or more results.json files\n');
  process.exit(2);
}
const AFTER = 2;
/** Mean and sample SD (NaN under 2 values). */
const meanSd = (xs) => {
  const mean = xs.reduce((a, x) => a + x, 0) / xs.length;
  return { mean, sd: xs.length > 1 ? Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (xs.length - 1)) : Number.NaN };
};
const pct = (x) => `±${(100 * x).toFixed(1)}%`;
const lines = [
  '| run (started) | scenarios served per process | prior between | between after 2 blocks → pooled | within | blocks at pace / ran | forecast (range) | reached | ÷ | in range | the run said ÷ |',
  '|---|---|---|---|---|---|---|---|---|---|---|',
];
const logs = [];
// The forecast said before the run, from the method's priors alone (the header's): log(said ÷ reached) per run.
const priorLogs = [];
let priorInRange = 0;
const wholeRuns = [];
const saidLogs = [];
let inRange = 0;
// Runs with processes per scenario whose result does not keep the planner's price of each scenario's block (before 2026-12-02 07:00).
let pacedWithout = 0;
// With processes per scenario, the line each later scenario's block 2 says (k of n begun): the record scaled by the scenarios still priced at the prior, and unscaled.
const laterLines = [];
const later = { n: 0, scaled: 0, unscaled: 0, logsScaled: [], logsUnscaled: [] };
// Per block position: each block's within-block SD ÷ its run's.
const blockFactors = [];
const blockWithin = (r, pairs, ref) => {
  const index = new WindowIndex(r.windows);
  const byBlock = new Map();
  for (const p of pairs) {
    ratioGroups(r.windows, p.scenario, p.target, ref, index).forEach((rounds, i) => {
      if (rounds.length < 2) return;
      const logRounds = rounds.map(Math.log);
      const mean = logRounds.reduce((a, x) => a + x, 0) / logRounds.length;
      byBlock.set(i, [...(byBlock.get(i) ?? []), logRounds.reduce((a, x) => a + (x - mean) ** 2, 0) / (logRounds.length - 1)]);
    });
  }
  const all = [...byBlock.values()].flat();
  const runVar = all.reduce((a, x) => a + x, 0) / all.length;
  for (const [i, vs] of byBlock) blockFactors.push({ position: i + 1, factor: Math.sqrt(vs.reduce((a, x) => a + x, 0) / vs.length / runVar) });
};
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
  // The ratios the report gives, the A/A twin's left out.
  const ratioPairs = pairs.filter((p) => !p.target.endsWith('.twin'));
  blockWithin(r, ratioPairs, ref);
  const scenarios = new Set(r.blocks.map((b) => b.scenario)).size;
  const served = design.processes === 'shared' ? scenarios : 1;
  const prior = priorBetween(served) / Math.sqrt(design.replicas ?? 1);
  // What the forecast could not see from its two blocks: the typical pair's components over all of
  // the run's blocks, and each scenario's SD between blocks.
  const whole = pairNoise(r.windows, ratioPairs, ref);
  const over = typicalNoise(whole);
  if (over) {
    const each = [...new Set(whole.map((p) => p.scenario))].map((s) => `${s} ${typicalNoise(whole.filter((p) => p.scenario === s))?.between.toFixed(3) ?? '—'}`);
    wholeRuns.push(`${r.startedAt ?? f}: between ${over.between.toFixed(3)}, within ${over.within.toFixed(3)}; between by scenario: ${each.join(', ')}`);
  }
  // With processes per scenario the run said its forecast after the first scenario's block 2 (the
  // one it records): replay that, from that scenario's windows alone.
  const first = design.processes === 'per-scenario' ? [...r.blocks].sort((a, b) => Date.parse(a.startedAt) - Date.parse(b.startedAt))[0]?.scenario : undefined;
  // The windows as the run saw them while it ran (`windowsAsRun`): without them the later lines read
  // up to 1.3 points off the live ones, from the scenario of the first unsteady pair on.
  const live = { ...r, windows: windowsAsRun(r.windows) };
  const seen = first === undefined ? live : { windows: live.windows.filter((w) => w.scenario === first), blocks: r.blocks.filter((b) => b.scenario === first) };
  const measured = pairNoise(seen.windows, first === undefined ? pairs : pairs.filter((p) => p.scenario === first), ref, AFTER);
  const own = measuredNoise(measured, prior);
  // The scenarios it had not begun at the prior (the design's, as the header's forecast priced them).
  const priorComponents = design.budgetPlan?.forecast?.components;
  const noise = own && first !== undefined && priorComponents ? withUnseenScenarios(own, priorComponents, 1, scenarios) : own;
  // The planner's price of each scenario's block, as the run priced the scenarios to come (results since 2026-12-02 07:00 keep it; before, the first scenario's pace).
  const blockSec = design.budgetPlan?.blockSec;
  const plannedSec = blockSec ? new Map(Object.entries(blockSec)) : undefined;
  if (!plannedSec && first !== undefined) pacedWithout += 1;
  const paced = noise && forecastAtPace(noise, seen, AFTER, { ...design, scenarios, plannedSec });
  // What the report's Forecast line sets beside it: the median half-width over the ratios to the reference.
  const ratios = r.summaries.filter((s) => s.target !== ref && s.relativeRps?.halfWidth != null).map((s) => s.relativeRps.halfWidth);
  const reached = ratios.length ? median(ratios) : null;
  const ran = Math.max(...r.windows.map((w) => w.block));
  const said = design.budgetPlan?.measuredForecast;
  const before = design.budgetPlan?.forecast;
  if (before?.source === 'prior' && reached) {
    priorLogs.push(Math.log(before.halfWidth / reached));
    const range = likelyRange(before.halfWidth, DEFAULTS.forecast.priorRecord);
    if (reached >= range.low && reached <= range.high) priorInRange++;
  }
  if (first !== undefined && priorComponents && reached) {
    const order = [...new Set([...r.blocks].sort((a, b) => Date.parse(a.startedAt) - Date.parse(b.startedAt)).map((b) => b.scenario))];
    const said = [];
    order.forEach((s, i) => {
      const k = i + 1;
      const earlier = new Set(order.slice(0, i));
      const upTo = (x) => earlier.has(x.scenario) || (x.scenario === s && x.block <= AFTER);
      const state = { windows: live.windows.filter(upTo), blocks: r.blocks.filter(upTo) };
      const m = pairNoise(
        state.windows,
        ratioPairs.filter((p) => earlier.has(p.scenario) || p.scenario === s),
        ref,
        AFTER,
      );
      const o = measuredNoise(m, prior);
      if (!o || !state.blocks.some((b) => b.scenario === s && b.block === AFTER)) return;
      const n = withUnseenScenarios(o, priorComponents, k, scenarios);
      const f = forecastAtPace(n, state, AFTER, { ...design, scenarios, plannedSec });
      if (!f) return;
      const rec = recordWithScenariosBegun(DEFAULTS.forecast.record, k, scenarios);
      const range = likelyRange(f.halfWidth, rec);
      const plain = likelyRange(f.halfWidth);
      const centre = f.halfWidth * Math.exp(-rec.logBias);
      const inside = reached >= range.low && reached <= range.high;
      const plainInside = reached >= plain.low && reached <= plain.high;
      said.push(`${k}: ${pct(centre)} (${pct(range.low)}–${pct(range.high).slice(1)}) ${inside ? 'in' : 'out'}${k > 1 ? ` (unscaled ${plainInside ? 'in' : 'out'})` : ''}`);
      if (k > 1) {
        later.n++;
        if (inside) later.scaled++;
        if (plainInside) later.unscaled++;
        later.logsScaled.push(Math.log(centre / reached));
        later.logsUnscaled.push(Math.log((f.halfWidth * Math.exp(-DEFAULTS.forecast.record.logBias)) / reached));
      }
    });
    laterLines.push(`- ${r.startedAt ?? f}, reached ${pct(reached)}: ${said.join('; ')}`);
  }
  if (!noise || !paced || !reached) {
    lines.push(`| ${f} | — | — | fewer than ${AFTER} blocks or no interval | | | | | | | |`);
    continue;
  }
  // The run's own SD between blocks after 2 blocks, before the prior is pooled in.
  const raw = typicalNoise(measured).between;
  const likely = likelyRange(paced.halfWidth);
  const inside = reached >= likely.low && reached <= likely.high;
  logs.push(Math.log(paced.halfWidth / reached));
  if (said) saidLogs.push(Math.log(said.halfWidth / reached));
  if (inside) inRange++;
  lines.push(
    `| ${r.startedAt ?? f} | ${served} | ${prior.toFixed(3)} | ${raw.toFixed(3)} → ${noise.between.toFixed(3)} | ${noise.within.toFixed(3)} | ${paced.blocks} / ${ran} | ${pct(paced.halfWidth)} (${pct(likely.low)}–${pct(likely.high).slice(1)}) | ${pct(reached)} | ${(paced.halfWidth / reached).toFixed(2)} | ${inside ? 'yes' : 'no'} | ${said ? (said.halfWidth / reached).toFixed(2) : '—'} |`,
  );
}
if (logs.length) {
  const { mean, sd } = meanSd(logs);
  const within25 = logs.filter((x) => Math.abs(Math.exp(x) - 1) <= 0.25).length;
  lines.push(
    '',
    `${logs.length} runs: forecast ÷ reached within ±25% in ${within25}; reached inside the forecast's ${Math.round(100 * likelyRange(1).coverage)}% range in ${inRange}; log(forecast ÷ reached) mean ${mean.toFixed(3)}, SD ${sd.toFixed(3)}.`,
    ...(pacedWithout
      ? [`${pacedWithout} of ${files.length} results keep no planned block prices (design.budgetPlan.blockSec, since 2026-12-02): their scenarios to come are replayed at the first scenario's pace.`]
      : []),
  );
  if (saidLogs.length > 1) {
    const { mean: m, sd: d } = meanSd(saidLogs);
    lines.push(
      `As the ${saidLogs.length} runs said it: log(forecast ÷ reached) mean ${m.toFixed(3)}, SD ${d.toFixed(3)} (the record: ${DEFAULTS.forecast.record.logBias}, ${DEFAULTS.forecast.record.logSd}).`,
    );
  }
}
if (priorLogs.length > 1) {
  const { mean: m, sd: d } = meanSd(priorLogs);
  const { logBias, logSd, coverage } = DEFAULTS.forecast.priorRecord;
  lines.push(
    `Before the run (the header's forecast from the priors, as each run said it), ${priorLogs.length} runs: log(said ÷ reached) mean ${m.toFixed(3)}, SD ${d.toFixed(3)} (its record: ${logBias}, ${logSd}); reached inside that record's ${Math.round(100 * coverage)}% range in ${priorInRange}.`,
  );
}
if (blockFactors.length > 1) {
  const { sd: sdLog } = meanSd(blockFactors.map((b) => Math.log(b.factor)));
  const positions = [...new Set(blockFactors.map((b) => b.position))].sort((a, b) => a - b);
  const byPosition = positions.map((p) => {
    const fs = blockFactors.filter((b) => b.position === p).map((b) => b.factor);
    return `${p}: ${meanSd(fs).mean.toFixed(2)} (${fs.length})`;
  });
  lines.push(
    `A block's SD within blocks ÷ its run's, over ${blockFactors.length} blocks: ${Math.min(...blockFactors.map((b) => b.factor)).toFixed(2)}–${Math.max(...blockFactors.map((b) => b.factor)).toFixed(2)}, SD of its log ${sdLog.toFixed(2)}; mean by block position ${byPosition.join(', ')}.`,
  );
}
if (laterLines.length) {
  const ms = (xs) => {
    const { mean, sd } = meanSd(xs);
    return `mean ${mean.toFixed(3)}, SD ${sd.toFixed(3)}`;
  };
  lines.push(
    '',
    "After each scenario's block 2 (k of n scenarios begun: the range centre said, its range, whether the run reached inside), the record scaled by the scenarios still priced at the prior:",
    ...laterLines,
    ...(later.n
      ? [
          `Lines with k > 1: ${later.n}; inside the scaled record's range ${later.scaled}, inside the unscaled one's ${later.unscaled}; log(centre ÷ reached) scaled ${ms(later.logsScaled)}, unscaled ${ms(later.logsUnscaled)}.`,
        ]
      : []),
  );
}
if (wholeRuns.length) lines.push('', 'Over all blocks (the typical pair, A/A twin left out):', ...wholeRuns.map((x) => `- ${x}`));
process.stdout.write(`${lines.join('\n')}\n`);
