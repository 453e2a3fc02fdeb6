#!/usr/bin/env node
// Does a stepped load need its settle before every step, or only before the first? (A benchmark
// script, not a test.) The concurrency ramp measures 5 steps per window (10→500 connections), each
// after a separate settle run of the loader; those settles were a tenth of the default suite's wall
// time and none of it measured. The first step follows an idle spell (the other targets' windows),
// so it keeps its settle; a later step follows the previous step's load on the same process.
//
// Every contract A server is started once (as a block does). In each round, for each target in a
// random order, one ramp window per settle mode in a random order, through the run loop's own
// window code (wrk, pinned as a run pins):
//   each:  the full settle (`DEFAULTS.stepSettleSec`) before every step (the ramp's first design);
//   short: the full settle, then 0.1 s before each later step;
//   first: the full settle before the first step only;
//   lead:  0.1 s before every step, the first included (the ramp's design now).
// With `--order targets` (the default) a target's windows of all modes come one after another, so
// only the first of them follows an idle spell; with `--order modes` each round measures every
// target once per mode, so every window follows the other targets' windows, as in a run (that is
// the order to judge the first step's settle by).
// Printed per step: each mode's req/s and CPU per request ÷ mode "each" in the same round and
// process (medians over rounds, then over targets), the same for the ratio to node-http, and the
// share of each mode's wall time that was measured.
//
// Usage: npm run bench:step-settle -- [--rounds 6] [--targets node-http,express] [--modes each,short,first,lead] [--order targets|modes] [--scenario concurrency-ramp] [--json raw.json]
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { benchArgs } from '../../../scripts/bench-args.mjs';
import { decidePinning, DEFAULTS, median, parseScenario, startProcess, subSeed } from '@benchsuite/sdk';
import { contractAScenariosByName, nodeTargetNames, serveScript } from '@benchsuite/servers';

const sdkDist = import.meta.resolve('@benchsuite/sdk');
const { measureWindow } = await import(new URL('./run/window.js', sdkDist).href);
const { wrkDriver } = await import(new URL('./drivers/wrk.js', sdkDist).href);
const { pinPrefix } = await import(new URL('./environment.js', sdkDist).href);
const { seededShuffle } = await import(new URL('./random.js', sdkDist).href);
const { prepareRequests } = await import(new URL('./scenario.js', sdkDist).href);

const { values: args } = benchArgs(import.meta.url, {
  options: {
    rounds: { type: 'string', default: '6' },
    targets: { type: 'string' },
    scenario: { type: 'string', default: 'concurrency-ramp' },
    seed: { type: 'string', default: '7' },
    json: { type: 'string' },
    modes: { type: 'string', default: 'each,short,first' },
    order: { type: 'string', default: 'targets' },
  },
});
const fail = (m) => {
  process.stderr.write(`bench:step-settle: ${m}\n`);
  process.exit(2);
};
const rounds = Number(args.rounds);
if (!Number.isInteger(rounds) || rounds < 1 || rounds > 30) fail('--rounds: a whole number from 1 to 30');
if (spawnSync('wrk', ['--version']).error) fail('wrk is not installed (benchsuite setup wrk)');
const targets = args.targets ? args.targets.split(',') : nodeTargetNames;
for (const t of targets) if (!nodeTargetNames.includes(t)) fail(`unknown target ${t} (one of ${nodeTargetNames.join(', ')})`);
const input = contractAScenariosByName[args.scenario];
if (!input) fail(`no contract A scenario named ${args.scenario}`);
const scenario = parseScenario(input);
if (!Array.isArray(scenario.load.connections)) fail(`${args.scenario} is not a stepped load`);
// The full settle: a stepped load's default (0.3 s), which the ramp used before every step at first.
const firstSettle = DEFAULTS.stepSettleSec;
// Each mode's settle before the first step and before each later one.
const allModes = { each: [firstSettle, firstSettle], short: [firstSettle, 0.1], first: [firstSettle, 0], lead: [0.1, 0.1] };
const modes = Object.fromEntries(['each', ...args.modes.split(',').filter((m) => m !== 'each')].map((m) => [m, allModes[m] ?? fail(`--modes: unknown mode ${m} (each, short, first, lead)`)]));
if (!['targets', 'modes'].includes(args.order)) fail('--order: targets or modes');
const compared = Object.keys(modes).filter((m) => m !== 'each');
const log = (m) => process.stderr.write(`${m}\n`);

const pinning = decidePinning('auto');
const signal = new AbortController().signal;
const ctx = { driver: wrkDriver, pinning, signal, clientBoundBusy: DEFAULTS.clientBoundBusy };
const started = [];
try {
  for (const name of targets) {
    const p = await startProcess({ command: [process.execPath, serveScript, name], pin: pinPrefix(pinning, pinning.serverCpus), unsetEnv: DEFAULTS.unsetEnv });
    const target = { baseUrl: p.url, pid: p.pid, startupMs: p.readyMs, servicePids: [], exited: p.exited, exitInfo: () => p.exitInfo(), tail: () => p.tail(), stop: () => p.stop() };
    const requests = await prepareRequests(scenario, p.url);
    const spec = ([first, later]) => ({ scenario, requests, steps: scenario.load.connections, windowSec: scenario.load.duration ?? DEFAULTS.windowSec, settleSec: first, laterSettleSec: later });
    started.push({ name, p, target, spec });
  }
  // Warm-up: two unrecorded windows per target in the old design, one target after another.
  for (const s of started) {
    log(`warming ${s.name}`);
    for (let i = 0; i < 2; i++) await measureWindow(ctx, s.target, s.spec(modes.each));
  }
  const rows = []; // { round, target, mode, wallSec, steps: [{ c, rps, cpuUs, steal }] }
  for (let r = 1; r <= rounds; r++) {
    const turns =
      args.order === 'targets'
        ? seededShuffle(started, subSeed(Number(args.seed), 'targets', r)).flatMap((s) => seededShuffle(Object.keys(modes), subSeed(Number(args.seed), s.name, r)).map((mode) => ({ s, mode })))
        : seededShuffle(Object.keys(modes), subSeed(Number(args.seed), 'modes', r)).flatMap((mode) => seededShuffle(started, subSeed(Number(args.seed), mode, r)).map((s) => ({ s, mode })));
    for (const { s, mode } of turns) {
      const t0 = performance.now();
      const f = await measureWindow(ctx, s.target, s.spec(modes[mode]));
      const wallSec = (performance.now() - t0) / 1000;
      const steps = f.steps.map((x) => ({
        c: x.connections,
        rps: x.rps,
        cpuUs: x.requests > 0 ? (x.resources.serverCpuSeconds / x.requests) * 1e6 : Number.NaN,
        steal: x.resources.cpuSteal ?? 0,
        durationSec: x.durationSec,
      }));
      rows.push({ round: r, target: s.name, mode, wallSec, steps });
      log(`round ${r}/${rounds} ${s.name} ${mode}: ${steps.map((x) => Math.round(x.rps)).join(' / ')} req/s, ${wallSec.toFixed(2)} s`);
    }
  }
  const find = (r, t, m) => rows.find((x) => x.round === r && x.target === t && x.mode === m);
  const stepCount = scenario.load.connections.length;
  const fmt = (x) => (Number.isFinite(x) ? x.toFixed(3) : '—');
  const out = [];
  out.push(`# ${args.scenario}: settle before each step vs only the first (${rounds} rounds, ${targets.length} targets, wrk)`);
  out.push('');
  out.push(
    `Steal: ${(100 * median(rows.flatMap((x) => x.steps.map((s) => s.steal)))).toFixed(1)} % median per step, worst ${(100 * Math.max(...rows.flatMap((x) => x.steps.map((s) => s.steal)))).toFixed(1)} %.`,
  );
  out.push('');
  out.push('| mode | settle first / later | wall per window | measured share |');
  out.push('|---|---|---|---|');
  for (const [m, [first, later]] of Object.entries(modes)) {
    const mine = rows.filter((x) => x.mode === m);
    const wall = median(mine.map((x) => x.wallSec));
    const measured = median(mine.map((x) => x.steps.reduce((a, s) => a + s.durationSec, 0) / x.wallSec));
    out.push(`| ${m} | ${first} s / ${later} s | ${wall.toFixed(2)} s | ${(100 * measured).toFixed(0)} % |`);
  }
  const ref = targets.includes(DEFAULTS.reference) ? DEFAULTS.reference : undefined;
  for (const fig of ['rps', 'cpuUs']) {
    out.push('');
    out.push(`## ${fig === 'rps' ? 'req/s' : 'CPU per request'} ÷ mode "each", same round and process (median over rounds; per target, then the median over targets)`);
    out.push('');
    out.push(`| mode | step | ${targets.join(' | ')} | median |`);
    out.push(`|---|---|${targets.map(() => '---|').join('')}---|`);
    for (const m of compared) {
      for (let i = 0; i < stepCount; i++) {
        const per = targets.map((t) => median(Array.from({ length: rounds }, (_, k) => find(k + 1, t, m).steps[i][fig] / find(k + 1, t, 'each').steps[i][fig]).filter(Number.isFinite)));
        out.push(`| ${m} | c=${scenario.load.connections[i]} | ${per.map(fmt).join(' | ')} | ${fmt(median(per))} |`);
      }
    }
    if (!ref) continue;
    out.push('');
    out.push(`Ratio to ${ref} (${fig === 'rps' ? 'req/s' : 'CPU per request'}), mode ÷ "each": median over rounds of the round's ratio`);
    out.push('');
    const others = targets.filter((t) => t !== ref);
    out.push(`| mode | step | ${others.join(' | ')} | median |`);
    out.push(`|---|---|${others.map(() => '---|').join('')}---|`);
    for (const m of compared) {
      for (let i = 0; i < stepCount; i++) {
        const per = others.map((t) =>
          median(
            Array.from({ length: rounds }, (_, k) => {
              const ratio = (mode) => find(k + 1, t, mode).steps[i][fig] / find(k + 1, ref, mode).steps[i][fig];
              return ratio(m) / ratio('each');
            }).filter(Number.isFinite),
          ),
        );
        out.push(`| ${m} | c=${scenario.load.connections[i]} | ${per.map(fmt).join(' | ')} | ${fmt(median(per))} |`);
      }
    }
  }
  // Pooled over steps and rounds: the mean log of (mode ÷ "each") with its standard error, per target.
  const pooled = (values) => {
    const v = values.filter(Number.isFinite).map(Math.log);
    const m = v.reduce((a, x) => a + x, 0) / v.length;
    const sd = Math.sqrt(v.reduce((a, x) => a + (x - m) ** 2, 0) / (v.length - 1));
    return { mean: Math.exp(m), se: sd / Math.sqrt(v.length), n: v.length };
  };
  const cell = (p) => `${p.mean.toFixed(3)} ± ${(100 * p.se).toFixed(1)} %`;
  for (const fig of ['rps', 'cpuUs']) {
    const name = fig === 'rps' ? 'req/s' : 'CPU per request';
    out.push('');
    out.push(`## Pooled over steps and rounds, ${name}: geometric mean of mode ÷ "each" ± its standard error`);
    out.push('');
    out.push(`| mode | figure | ${targets.join(' | ')} | all |`);
    out.push(`|---|---|${targets.map(() => '---|').join('')}---|`);
    for (const m of compared) {
      const own = (t) => Array.from({ length: rounds }, (_, k) => find(k + 1, t, m).steps.map((x, i) => x[fig] / find(k + 1, t, 'each').steps[i][fig])).flat();
      out.push(`| ${m} | own level | ${targets.map((t) => cell(pooled(own(t)))).join(' | ')} | ${cell(pooled(targets.flatMap(own)))} |`);
      if (!ref) continue;
      const rel = (t) =>
        t === ref
          ? []
          : Array.from({ length: rounds }, (_, k) =>
              find(k + 1, t, m).steps.map((_x, i) => {
                const ratio = (mode) => find(k + 1, t, mode).steps[i][fig] / find(k + 1, ref, mode).steps[i][fig];
                return ratio(m) / ratio('each');
              }),
            ).flat();
      out.push(`| ${m} | ratio to ${ref} | ${targets.map((t) => (t === ref ? '—' : cell(pooled(rel(t))))).join(' | ')} | ${cell(pooled(targets.flatMap(rel)))} |`);
    }
  }
  if (args.json) writeFileSync(args.json, JSON.stringify({ modes, rounds, targets, rows }, null, 1));
  process.stdout.write(`${out.join('\n')}\n`);
} finally {
  for (const s of started) await s.p.stop();
}
