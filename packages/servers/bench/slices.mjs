#!/usr/bin/env node
// How much of the host's noise does each way of measuring a round cancel, and does it shift the
// ratios? (A benchmark script, not a test.) In blocks of fresh contract A processes (one per
// target, on the server cores, wrk on the loader cores), warmed up together, rounds of each method
// alternate in a seeded order:
//   sliced:  every target in the same seconds, in alternating slots (the run loop's method);
//   seq:     one window per target after another, in a random order (the method before it);
//   long:    the same with windows --long-sec long: the reference a method's bias is judged against;
//   duet:    every target loaded at once for one window, sharing the server core (the scheduler
//            interleaves them every few ms; not a method of the run loop: measured for comparison).
// Printed per target and method: the ratio to the reference (throughput, and CPU per request) as
// the geometric mean over rounds with its 95% interval (blocks as units), the SD of a round's
// log-ratio within blocks and between blocks, and the ratio ÷ the long windows' ratio (the bias);
// for sliced rounds, where in a slot the switch costs (each eighth of the slots, wrk's count).
// `--methods sliced --reps 12` measures the last alone.
//
// Usage: npm run bench:slices -- [--targets node-http,fastify,...] [--scenario baseline] [--blocks 4]
//        [--reps 6] [--methods sliced,seq,long] [--window-sec 0.8] [--long-sec 4] [--seed N] [--json FILE]
//        [--node-flags=--single-threaded-gc] (V8 flags every target starts with, after the design's default ones)
//        [--slice-sec 0.05] (the least slot of a sliced round, DEFAULTS.slice.minSec, for this run;
//        a method `sliced@0.4` takes its own, so two slot lengths are compared in the same blocks)
import { writeFileSync } from 'node:fs';
import { benchArgs } from '../../../scripts/bench-args.mjs';
import { DEFAULTS, decidePinning, drivers, subSeed, tQuantile, validateSuite, varianceComponents, nodeRuntimeFlags, withNodeFlags } from '@benchsuite/sdk';
import { contractAScenariosByName, nodeTargets } from '../dist/index.js';
// The run loop's own pieces (not public API): the same code measures here as in a run.
import { measureSlicedRound } from '../../sdk/dist/run/methods/sliced.js';
import { measureWindow } from '../../sdk/dist/run/window.js';
import { windowSpec } from '../../sdk/dist/run/block.js';
import { runtimeOf } from '../../sdk/dist/run/server-process.js';
import { seededShuffle } from '../../sdk/dist/random.js';
import { pinSelf } from '../../sdk/dist/environment.js';
import { prepareRequests } from '../../sdk/dist/scenario.js';

const { values: args } = benchArgs(import.meta.url, {
  options: {
    targets: { type: 'string', default: 'node-http,express,fastify,hono,hono-lean,koa' },
    scenario: { type: 'string', default: 'baseline' },
    blocks: { type: 'string', default: '4' },
    reps: { type: 'string', default: '6' },
    methods: { type: 'string', default: 'sliced,seq,long' },
    'window-sec': { type: 'string', default: '0.8' },
    'long-sec': { type: 'string', default: '4' },
    warmup: { type: 'string', default: '3' },
    seed: { type: 'string' },
    json: { type: 'string' },
    'node-flags': { type: 'string', default: '' },
    'slice-sec': { type: 'string' },
  },
});
const fail = (m) => {
  process.stderr.write(`bench:slices: ${m}\n`);
  process.exit(2);
};
const num = (name, lo, hi) => {
  const v = Number(args[name]);
  if (!Number.isFinite(v) || v < lo || v > hi) fail(`--${name}: a number from ${lo} to ${hi}`);
  return v;
};
const blocks = num('blocks', 1, 50);
const reps = num('reps', 1, 100);
const windowSec = num('window-sec', 0.1, 10);
const longSec = num('long-sec', 0.5, 30);
const warmupRounds = num('warmup', 0, 20);
const seed = args.seed ? Number(args.seed) : Math.floor(Math.random() * 2 ** 31);
// The run loop reads its slot rule from DEFAULTS: this run's least slot replaces the default's.
if (args['slice-sec'] !== undefined) DEFAULTS.slice.minSec = num('slice-sec', 0.01, 2);
const methods = args.methods.split(',');
// `sliced@0.4`: a sliced round whose least slot is 0.4 s (two slot lengths compared in one run).
const slotOf = (m) => (m === 'sliced' ? DEFAULTS.slice.minSec : m.startsWith('sliced@') ? Number(m.slice(7)) : undefined);
const isSliced = (m) => slotOf(m) !== undefined;
for (const m of methods) {
  if (!['seq', 'long', 'duet'].includes(m) && !(slotOf(m) >= 0.01 && slotOf(m) <= 2)) fail(`--methods: ${m} is not one of sliced, sliced@<least slot, s>, seq, long, duet`);
}
const names = args.targets.split(',');
for (const n of names) if (!nodeTargets[n]) fail(`--targets: no contract A target ${n} (one of ${Object.keys(nodeTargets).join(', ')})`);
if (!contractAScenariosByName[args.scenario]) fail(`--scenario: no contract A scenario ${args.scenario}`);
// Validated as a run validates them (defaults filled in).
const suite = validateSuite({ scenarios: [contractAScenariosByName[args.scenario]], targets: names.map((n) => nodeTargets[n]) });
const scenario = suite.scenarios[0];
const targetByName = new Map(suite.targets.map((t) => [t.name, t]));
const reference = names[0];
const driver = drivers.wrk;
if ((await driver.available()) !== true) fail('wrk is not installed (benchsuite setup wrk)');
delete process.env.NODE_EXTRA_CA_CERTS;

const pinning = decidePinning(true);
const unpin = pinSelf(pinning);
const ac = new AbortController();
process.once('SIGINT', () => ac.abort());
const ctx = { driver, pinning, signal: ac.signal, clientBoundBusy: 0.95 };
const log = (m) => process.stderr.write(`${m}\n`);
const rows = [];
const t0 = Date.now();

// The run loop reads its slot rule from DEFAULTS: a round with another least slot sets it for its own length.
async function slicedWith(minSec, measure) {
  const before = DEFAULTS.slice.minSec;
  DEFAULTS.slice.minSec = minSec;
  try {
    return await measure();
  } finally {
    DEFAULTS.slice.minSec = before;
  }
}

async function sequential(items, sec, rseed) {
  const out = new Map();
  for (const it of seededShuffle(items, rseed)) {
    const f = await measureWindow(ctx, it.target, { ...it.spec, windowSec: sec });
    out.set(it.name, f);
  }
  return items.map((it) => out.get(it.name));
}

for (let b = 1; b <= blocks && !ac.signal.aborted; b++) {
  const started = [];
  try {
    // Started as a run starts them: with the design's default Node flags (young generation, memory reducer).
    const flags = [...nodeRuntimeFlags(DEFAULTS), ...args['node-flags'].split(/\s+/).filter(Boolean)];
    for (const n of names) {
      const t = targetByName.get(n);
      started.push({ name: n, target: await runtimeOf(t).start({ pinning, signal: ac.signal, command: withNodeFlags(t.command, flags) }) });
    }
    const items = [];
    for (const s of started) items.push({ name: s.name, target: s.target, spec: windowSpec(scenario, await prepareRequests(scenario, s.target.baseUrl), { windowSec }, DEFAULTS.stepSettleSec) });
    // Warm-up: sequential 1-s windows in rotation; their req/s sets the slot plan.
    const rps = new Map();
    for (let r = 0; r < warmupRounds; r++) for (const [i, f] of (await sequential(items, 1, subSeed(seed, b, 'warm', r))).entries()) rps.set(items[i].name, f.rps);
    const sliceItems = items.map((it) => ({ ...it, rps: rps.get(it.name) }));
    for (let rep = 1; rep <= reps && !ac.signal.aborted; rep++) {
      for (const m of seededShuffle(methods, subSeed(seed, b, rep, 'methods'))) {
        const rseed = subSeed(seed, b, rep, m);
        const figs = isSliced(m)
          ? await slicedWith(slotOf(m), () => measureSlicedRound(ctx, sliceItems, rseed))
          : m === 'duet'
            ? await Promise.all(items.map((it) => measureWindow(ctx, it.target, it.spec)))
            : await sequential(items, m === 'long' ? longSec : windowSec, rseed);
        const x = {};
        for (const [i, f] of figs.entries()) {
          if (!f || f.error) continue;
          x[items[i].name] = {
            rps: f.rps,
            cpu: f.cpuPerRequestUs,
            steal: f.resources.cpuSteal,
            share: f.resources.serverCoreShare,
            loader: f.resources.loaderThreadBusy,
            loaderUsPerRequest: f.requests > 0 ? (f.resources.loaderCpuSeconds / f.requests) * 1e6 : null,
            other: f.resources.otherCpuShare,
            slice: f.steps[0].slice,
          };
        }
        rows.push({ block: b, rep, method: m, x });
      }
    }
  } finally {
    await Promise.all(started.map((s) => s.target.stop()));
  }
  log(`block ${b}/${blocks} done (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
}
unpin();
if (args.json) writeFileSync(args.json, JSON.stringify({ seed, args, rows }, null, 1));

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
/** The mean of per-block values (logs) and its 95% t-interval over the blocks (NaN ends with fewer than two). */
function overBlocks(xs) {
  const m = mean(xs);
  const h = xs.length > 1 ? tQuantile(0.975, xs.length - 1) * Math.sqrt(xs.reduce((a, v) => a + (v - m) ** 2, 0) / (xs.length - 1) / xs.length) : NaN;
  return { m, lo: m - h, hi: m + h };
}
function figure(method, target, f) {
  const groups = [];
  for (let b = 1; b <= blocks; b++) {
    const g = rows
      .filter((r) => r.block === b && r.method === method && r.x[target] && r.x[reference])
      .map((r) => f(r.x[target], r.x[reference]))
      .filter((v) => Number.isFinite(v));
    if (g.length) groups.push(g);
  }
  const { m, lo, hi } = overBlocks(groups.map(mean));
  const vc = varianceComponents(groups);
  return { log: m, lo, hi, between: vc.between, within: vc.within };
}
const fmt = (v, d = 3) => (v === null || v === undefined || !Number.isFinite(v) ? '–' : v.toFixed(d));
console.log(
  `bench:slices  scenario ${args.scenario}, reference ${reference}, ${blocks} blocks × ${reps} reps, window ${windowSec} s (long ${longSec} s), least slot ${DEFAULTS.slice.minSec} s, seed ${seed}`,
);
const steal = rows.flatMap((r) => Object.values(r.x).map((v) => v.steal ?? 0));
console.log(`steal: mean ${(mean(steal) * 100).toFixed(2)}%, max ${(Math.max(...steal) * 100).toFixed(1)}%`);
for (const [label, f] of [
  ['throughput ratio', (t, r) => Math.log(t.rps / r.rps)],
  ['CPU per request ratio', (t, r) => (t.cpu && r.cpu ? Math.log(t.cpu / r.cpu) : NaN)],
]) {
  console.log(`\n${label}: ratio [95% interval] (SD of a round's log-ratio between blocks / within)   ÷ long`);
  for (const t of names.slice(1)) {
    const long = methods.includes('long') ? figure('long', t, f) : undefined;
    const cells = methods.map((m) => {
      const e = figure(m, t, f);
      const bias = long && m !== 'long' ? `  ÷long ${fmt(Math.exp(e.log - long.log))}` : '';
      return `${m} ${fmt(Math.exp(e.log))} [${fmt(Math.exp(e.lo))}, ${fmt(Math.exp(e.hi))}] (${fmt(e.between)}/${fmt(e.within)})${bias}`;
    });
    console.log(`  ${t.padEnd(10)} ${cells.join('   ')}`);
  }
}
// The bias of each method against the long windows, with its interval: per block the mean over reps
// of (log ratio by the method − log ratio in the long windows of the same rep), t over blocks. For
// sliced rounds also their settled form: each slot's rate from its second half only (the first half
// carries the switch from the previous slot's server).
const settled = (v) => (v.slice?.halves && v.slice.halves[0] + v.slice.halves[1] > 0 ? (v.rps * 2 * v.slice.halves[1]) / (v.slice.halves[0] + v.slice.halves[1]) : NaN);
function biasOf(method, target, rate = (v) => v.rps) {
  const perBlock = [];
  for (let b = 1; b <= blocks; b++) {
    const d = [];
    for (let rep = 1; rep <= reps; rep++) {
      const m = rows.find((r) => r.block === b && r.rep === rep && r.method === method);
      const l = rows.find((r) => r.block === b && r.rep === rep && r.method === 'long');
      if (!m?.x[target] || !m.x[reference] || !l?.x[target] || !l.x[reference]) continue;
      const v = Math.log(rate(m.x[target]) / rate(m.x[reference])) - Math.log(l.x[target].rps / l.x[reference].rps);
      if (Number.isFinite(v)) d.push(v);
    }
    if (d.length) perBlock.push(mean(d));
  }
  const { m, lo, hi } = overBlocks(perBlock);
  return `${fmt(Math.exp(m))} [${fmt(Math.exp(lo))}, ${fmt(Math.exp(hi))}]`;
}
if (methods.includes('long')) {
  console.log(`\nbias against the ${longSec}-s windows (method ÷ long, paired by rep; 95% t-interval over ${blocks} blocks of ${reps} reps):`);
  for (const t of names.slice(1)) {
    const cells = methods.filter((m) => m !== 'long').map((m) => `${m} ${biasOf(m, t)}${isSliced(m) ? `   ${m}-settled ${biasOf(m, t, settled)}` : ''}`);
    console.log(`  ${t.padEnd(10)} ${cells.join('   ')}`);
  }
  const halves = (m, t) => {
    const xs = rows.filter((r) => r.method === m && r.x[t]?.slice?.halves).map((r) => Math.log(r.x[t].slice.halves[0] / r.x[t].slice.halves[1]));
    return xs.length ? fmt(Math.exp(mean(xs))) : '–';
  };
  for (const m of methods.filter(isSliced)) console.log(`  ${m}: slots' first half ÷ second half: ${names.map((t) => `${t} ${halves(m, t)}`).join(', ')}`);
}
// Where in a slot the switch costs: each eighth of a sliced round's slots ÷ the mean of its eighths
// 2–8 (geometric mean over rounds), and the slot's rate ÷ its rate from the second eighth on, per
// target and on the pair's ratio to the reference (per block the mean over rounds, t over blocks).
const tailRate = (e) => e.slice(1).reduce((a, v) => a + v, 0) / 7;
const slotOnSettled = (e) => Math.log(e.reduce((a, v) => a + v, 0) / 8 / tailRate(e));
for (const m of methods.filter(isSliced)) {
  const withEighths = (t) => rows.filter((r) => r.method === m && r.x[t]?.slice?.eighths?.every((v) => v > 0));
  if (!names.some((t) => withEighths(t).length)) continue;
  console.log(`\n${m}: each eighth of a slot ÷ its eighths 2–8, and the slot's rate ÷ its rate from the second eighth on (95% t over blocks; pair: the same ÷ ${reference}'s)`);
  const perBlock = (t) => {
    const out = [];
    for (let b = 1; b <= blocks; b++) {
      const xs = withEighths(t).filter((r) => r.block === b);
      out.push(xs.length ? mean(xs.map((r) => slotOnSettled(r.x[t].slice.eighths))) : NaN);
    }
    return out;
  };
  const ci = (xs) => {
    const { m, lo, hi } = overBlocks(xs.filter(Number.isFinite));
    return `${fmt(Math.exp(m), 4)} [${fmt(Math.exp(lo), 4)}, ${fmt(Math.exp(hi), 4)}]`;
  };
  const ref = perBlock(reference);
  for (const t of names) {
    const rs = withEighths(t);
    if (!rs.length) continue;
    const profile = Array.from({ length: 8 }, (_, k) => Math.exp(mean(rs.map((r) => Math.log(r.x[t].slice.eighths[k] / tailRate(r.x[t].slice.eighths))))));
    const own = perBlock(t);
    console.log(`  ${t.padEnd(10)} ${profile.map((v) => fmt(v)).join(' ')}   slot ÷ settled ${ci(own)}${t === reference ? '' : `   pair ${ci(own.map((v, i) => v - ref[i]))}`}`);
  }
}
const medianOf = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const m of methods) {
  const w = names.slice(1).map((t) => figure(m, t, (a, r) => Math.log(a.rps / r.rps)).within);
  const share = rows.filter((r) => r.method === m).flatMap((r) => Object.values(r.x).map((v) => v.share));
  console.log(`${m}: median within-block SD of the throughput log-ratio ${fmt(medianOf(w))}; server core share over active time, median ${fmt(medianOf(share), 2)}`);
}
