#!/usr/bin/env node
// What makes two fresh processes of one build differ, and what each runtime knob does to the
// figures (issue 41; a benchmark script, not a test). One run of the suite (the run loop itself:
// blocks of fresh processes, time-sliced rounds, wrk) holds, for every knob, TWO processes of each
// framework started with it (twins `<fw>.<knob>.a` and `.b`), beside plain twins of the same
// frameworks, all loaded in the same seconds of the same blocks, so the hour's noise is shared.
// The tool's own Node flags (young generation, memory reducer) and A/A control are off here: every
// flag is the knob's.
//
// Printed per framework and knob, per scenario:
//   A/A      twin b ÷ twin a: the ratio (should be 1) with its 95% interval, and the SD between
//            blocks of its log-ratio ÷ √2 — one process's own level SD — with its chi-square
//            interval and degrees of freedom (blocks − 1);
//   level    the knob's processes ÷ the plain ones of the same framework (both twins pooled per
//            round: the geometric mean of a and b), with its interval;
//   ratio    the knob's framework ÷ the reference as the run would report it (the reference
//            `node-http.<knob>` when it is in the run, else the plain node-http).
//
// Knobs: plain (the runtime's defaults), y<MB> (V8's young generation fixed at MB:
// --min/max-semi-space-size), st (--single-threaded: no concurrent GC or compiler threads),
// nocr (--no-concurrent-recompilation), nomr (--no-memory-reducer: V8 does not shrink the heap
// when the process allocates little, as it does while other targets' slots run), grow30
// (--heap-growing-percent=30: the old generation's limit grows by a fixed factor), pgc
// (--predictable-gc-schedule: V8's heap growing, idle-time and memory-reducing GC made fixed; it
// also sets 4-MB semi-spaces, over any y<MB> given with it, as v8.getHeapSpaceStatistics() shows).
// A long warm-up is not a knob: it applies to every process of a run (--warmup-sec,
// --warmup-served), so it is a run of its own. Knobs
// combine with '+': y32+nomr. The first knob is the one every other's level is measured against
// (plain when given).
// `--suite python`: the contract C Python servers (fastapi-1w, litestar, http-server) with
// environment knobs instead: hash0 (PYTHONHASHSEED=0: every process hashes str alike; by default
// each draws its own seed), gcfreeze (gc.freeze() once the app is imported), gcoff (gc.disable()),
// gc<N>k (generation 0's threshold at N thousand: gc.set_threshold(N·1000, 10, 10); 0.7k is
// Python's default). Run by external/python-web/run.py (PYTHON_GC). The reference is one plain
// node-http-c process.
//
// Usage: npm run bench:aa -- [--frameworks node-http,fastify,koa] [--knobs plain,y16,y32]
//        [--scenario baseline,json-post] [--blocks 6] [--rounds 4] [--warmup-sec 3] [--seed N] [--json FILE]
//        [--warmup-served N] (warm up by N requests served, within 1 s and --warmup-sec, as a run does)
//        [--processes shared|per-scenario] (one set of processes per block, or fresh ones per scenario)
//        [--reference KNOB] (one node-http process with that knob as the reference, not twins per knob)
//        [--suite node|python] (python: --frameworks fastapi-1w,litestar,http-server, --scenario from contract C)
import { writeFileSync } from 'node:fs';
import { benchArgs } from '../../../scripts/bench-args.mjs';
import { estimate, memoryReducerFlags, processSdOf, runSuite, varianceComponents, WindowIndex, youngGenerationFlags } from '@benchsuite/sdk';
import { contractAScenariosByName, nodeHttpC, nodeTargets, pythonScenarios, pythonTargets } from '../dist/index.js';
import { ratioGroups, RATIO_METHOD } from '../../sdk/dist/analysis/summarize.js';

const { values: args } = benchArgs(import.meta.url, {
  options: {
    frameworks: { type: 'string', default: 'node-http,fastify,koa' },
    knobs: { type: 'string', default: 'plain,y16,y32' },
    scenario: { type: 'string', default: 'baseline' },
    blocks: { type: 'string', default: '6' },
    rounds: { type: 'string', default: '4' },
    'warmup-sec': { type: 'string', default: '3' },
    'warmup-served': { type: 'string', default: '0' },
    processes: { type: 'string', default: 'shared' },
    seed: { type: 'string' },
    json: { type: 'string' },
    reference: { type: 'string' },
    suite: { type: 'string', default: 'node' },
  },
});
const fail = (m) => {
  process.stderr.write(`bench:aa: ${m}\n`);
  process.exit(2);
};
if (args.suite !== 'node' && args.suite !== 'python') fail(`--suite: ${args.suite} is not node or python`);
const python = args.suite === 'python';
// A knob is runtime flags (Node) or environment variables (Python).
const KNOBS = python
  ? { plain: {}, hash0: { PYTHONHASHSEED: '0' }, gcfreeze: { PYTHON_GC: 'freeze' }, gcoff: { PYTHON_GC: 'off' } }
  : {
      plain: [],
      st: ['--single-threaded'],
      nocr: ['--no-concurrent-recompilation'],
      nomr: memoryReducerFlags('off'),
      grow30: ['--heap-growing-percent=30'],
      pgc: ['--predictable-gc-schedule'],
    };
const oneKnob = (k) => {
  if (k in KNOBS) return KNOBS[k];
  if (python) {
    const g = /^gc(\d+)k$/.exec(k);
    if (g) return { PYTHON_GC: `${Number(g[1]) * 1000},10,10` };
    fail(`--knobs: ${k} is not plain, hash0, gcfreeze, gcoff or gc<N>k`);
  }
  const y = /^y(\d+)$/.exec(k);
  if (y) return youngGenerationFlags(Number(y[1]));
  fail(`--knobs: ${k} is not plain, st, nocr, nomr, grow30, pgc or y<MB>`);
};
const knobFlags = (k) => (python ? Object.assign({}, ...k.split('+').map(oneKnob)) : k.split('+').flatMap(oneKnob));
const pool = python ? Object.fromEntries(pythonTargets.filter((t) => t !== nodeHttpC).map((t) => [t.name, t])) : nodeTargets;
if (python && args.reference !== undefined) fail("--reference: the Python suite's reference is one plain node-http-c process");
if (python && args.frameworks === 'node-http,fastify,koa') args.frameworks = 'fastapi-1w,litestar';
if (python && args.scenario === 'baseline') args.scenario = pythonScenarios[0].name;
const frameworks = args.frameworks.split(',').filter(Boolean);
for (const f of frameworks) if (!(f in pool)) fail(`--frameworks: ${f} is not one of ${Object.keys(pool).join(', ')}`);
const knobs = args.knobs.split(',').filter(Boolean);
const baseKnob = knobs.includes('plain') ? 'plain' : knobs[0];
if (args.reference !== undefined) knobFlags(args.reference);
const scenariosByName = python ? Object.fromEntries(pythonScenarios.map((s) => [s.name, s])) : contractAScenariosByName;
const scenarios = args.scenario.split(',').map((s) => scenariosByName[s] ?? fail(`--scenario: ${s} is not one of ${Object.keys(scenariosByName).join(', ')}`));
const blocks = Number(args.blocks);
const rounds = Number(args.rounds);
const warmupSec = Number(args['warmup-sec']);
const warmupServed = Number(args['warmup-served']);
if (!Number.isInteger(warmupServed) || warmupServed < 0) fail(`--warmup-served: ${args['warmup-served']} is not a count of requests`);
if (args.processes !== 'shared' && args.processes !== 'per-scenario') fail(`--processes: ${args.processes} is not shared or per-scenario`);
const seed = args.seed ? Number(args.seed) : Math.floor(Math.random() * 2 ** 31);

// A target name takes no "+": combined knobs are named with "-".
const name = (fw, knob, twin) => `${fw}.${knob.replaceAll('+', '-')}.${twin}`;
const withKnob = (fw, knob, twin) => {
  const t = pool[fw];
  if (python) return { ...t, name: name(fw, knob, twin), env: { ...t.env, ...knobFlags(knob) } };
  return { ...t, name: name(fw, knob, twin), command: [t.command[0], ...knobFlags(knob), ...t.command.slice(1)] };
};
const targets = frameworks.flatMap((fw) => knobs.flatMap((knob) => ['a', 'b'].map((twin) => withKnob(fw, knob, twin))));
if (args.reference !== undefined) targets.unshift(withKnob('node-http', args.reference, 'ref'));
if (python) targets.unshift({ ...nodeHttpC, name: name('node-http-c', 'plain', 'ref') });
const singleReference = args.reference !== undefined || python;
const reference = python
  ? name('node-http-c', 'plain', 'ref')
  : args.reference !== undefined
    ? name('node-http', args.reference, 'ref')
    : name(frameworks.includes('node-http') ? 'node-http' : frameworks[0], baseKnob, 'a');
process.stderr.write(`bench:aa: ${targets.length} processes per block (${frameworks.join(', ')} × ${knobs.join(', ')} × 2), ${blocks} blocks × ${rounds} rounds, seed ${seed}\n`);
const t0 = Date.now();
const result = await runSuite({
  suite: 'aa-knobs',
  scenarios,
  targets,
  seed,
  driver: 'wrk',
  costs: false,
  design: {
    reference,
    youngGenerationMb: 'default',
    memoryReducer: 'default',
    control: 'none',
    rounds: { min: rounds, max: rounds },
    blocks: { min: blocks, max: blocks },
    // Every fresh process warmed for the same seconds (a long warm-up is a knob of its own), or by
    // the requests it served (`--warmup-served`, within 1 s and --warmup-sec, as a run warms).
    warmup: warmupServed ? { minSec: 1, maxSec: warmupSec, tolerance: 0.05, served: warmupServed } : { minSec: warmupSec, maxSec: warmupSec, tolerance: 0.05, served: 0 },
    processes: args.processes,
    precision: 0.001,
    budgetSec: 6 * 3600,
  },
  onEvent: (e) => {
    if (e.type === 'block-start' || e.type === 'block') process.stderr.write(`  ${e.scenario ?? ''} block ${e.block} (${Math.round((Date.now() - t0) / 1000)} s)\n`);
  },
});
const est = { reference, precision: 0.02, practicalBand: 0.01, bootstrapResamples: 2000, confidence: 0.95, seed };
const index = new WindowIndex(result.windows);
const steal = result.overall.meanSteal;
const fmt = (e) => (e ? `${e.point.toFixed(3)} [${e.ci95?.[0].toFixed(3) ?? '?'}, ${e.ci95?.[1].toFixed(3) ?? '?'}]` : '—');
const pct = (x) => `${(100 * x).toFixed(1)}%`;
// Per round, the geometric mean of a group's two twins ÷ the same of another group.
const pooledRatio = (scenario, num, den) => {
  const g = (a, b) => ratioGroups(result.windows, scenario, a, b, index);
  const parts = [g(num[0], den[0]), g(num[1], den[0]), g(num[0], den[1]), g(num[1], den[1])];
  return parts[0].map((block, bi) => block.map((_, ri) => Math.exp(parts.reduce((acc, p) => acc + Math.log(p[bi]?.[ri] ?? Number.NaN), 0) / 4)).filter(Number.isFinite));
};
const rows = [];
for (const s of scenarios) {
  for (const fw of frameworks) {
    for (const knob of knobs) {
      const a = name(fw, knob, 'a');
      const b = name(fw, knob, 'b');
      const aa = ratioGroups(result.windows, s.name, b, a, index).filter((g) => g.length);
      const vc = varianceComponents(aa.map((g) => g.map(Math.log)));
      const sd = processSdOf([{ between: vc.between, blocks: aa.length }]);
      const level = knob === baseKnob ? null : estimate(pooledRatio(s.name, [a, b], [name(fw, baseKnob, 'a'), name(fw, baseKnob, 'b')]), est, [s.name, fw, knob, 'level'], RATIO_METHOD);
      const refKnob = singleReference ? [reference, reference] : frameworks.includes('node-http') ? [name('node-http', knob, 'a'), name('node-http', knob, 'b')] : null;
      const vsRef = fw === 'node-http' || !refKnob ? null : estimate(pooledRatio(s.name, [a, b], refKnob), est, [s.name, fw, knob, 'ref'], RATIO_METHOD);
      const refGroups = fw === 'node-http' || !refKnob ? null : pooledRatio(s.name, [a, b], refKnob).filter((g) => g.length);
      const refBetween = refGroups ? varianceComponents(refGroups.map((g) => g.map(Math.log))).between : null;
      rows.push({
        scenario: s.name,
        framework: fw,
        knob,
        aa: estimate(aa, est, [s.name, fw, knob, 'aa'], RATIO_METHOD),
        processSd: sd,
        aaBetween: vc.between,
        blocks: aa.length,
        within: vc.within,
        level,
        vsReference: vsRef,
        refBetween,
      });
    }
  }
}
const lines = [
  `bench:aa — ${new Date().toISOString()}, seed ${seed}, ${blocks} blocks × ${rounds} rounds, ${args.processes} processes, warm-up ${warmupServed ? `${warmupServed} requests served within 1–${warmupSec} s` : `${warmupSec} s`}, steal ${pct(steal)} mean (${pct(result.overall.maxSteal)} worst window), ${Math.round((Date.now() - t0) / 1000)} s`,
  `| scenario | framework | knob | A/A (b ÷ a) | process SD [95%] (df) | within-block SD | level ÷ ${baseKnob} | ÷ node-http |`,
  '|---|---|---|---|---|---|---|---|',
  ...rows.map(
    (r) =>
      `| ${r.scenario} | ${r.framework} | ${r.knob} | ${fmt(r.aa)} | ${r.processSd ? `${pct(r.processSd.point)} [${pct(r.processSd.ci95[0])}, ${pct(r.processSd.ci95[1])}] (${r.processSd.df})` : '—'} | ${r.within === null ? '—' : r.within.toFixed(3)} | ${fmt(r.level)} | ${fmt(r.vsReference)} |`,
  ),
];
// Over the scenarios: one process's level SD from every scenario's A/A (shared processes: the degrees
// of freedom stay blocks − 1; per scenario: each scenario's add up), and the median SD between blocks of the pair the run
// reports (both twins pooled ÷ the reference), the figure that sets a run's intervals.
const med = (xs) => {
  const s = [...xs].sort((x, y) => x - y);
  return s.length ? (s[(s.length - 1) >> 1] + s[s.length >> 1]) / 2 : Number.NaN;
};
lines.push('', '| framework | knob | process SD over scenarios [95%] (df) | median SD between blocks of ÷ node-http |', '|---|---|---|---|');
for (const fw of frameworks) {
  for (const knob of knobs) {
    const mine = rows.filter((r) => r.framework === fw && r.knob === knob);
    const sd = processSdOf(
      mine.map((r) => ({ between: r.aaBetween, blocks: r.blocks })),
      0.95,
      args.processes,
    );
    const rb = mine.map((r) => r.refBetween).filter((x) => x !== null && x !== undefined);
    lines.push(`| ${fw} | ${knob} | ${sd ? `${pct(sd.point)} [${pct(sd.ci95[0])}, ${pct(sd.ci95[1])}] (${sd.df})` : '—'} | ${rb.length ? pct(med(rb)) : '—'} |`);
  }
}
process.stdout.write(`${lines.join('\n')}\n`);
if (args.json) writeFileSync(args.json, `${JSON.stringify({ seed, blocks, rounds, warmupSec, steal, rows, result }, null, 1)}\n`);
