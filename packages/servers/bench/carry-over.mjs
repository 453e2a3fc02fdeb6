#!/usr/bin/env node
// Does warm-up carry over from one scenario to the next in the same server process? (A benchmark
// script, not a test.) The run loop starts fresh processes for every block of every scenario and
// warms each for up to 4 s; one set of processes for several scenarios would save most of that,
// if a process warmed on one scenario is already steady on the next.
//
// For each contract A server, in each repetition, in a random order:
//   fresh:   a new process, then the second scenario for N 1-s wrk windows;
//   carried: a new process, the first scenario for N 1-s windows, then the second for N.
// Printed: the second scenario's req/s per window, ÷ the same process's last window (how soon it
// is steady) and ÷ the fresh process's last window (the level), medians over repetitions. Server
// on cpu 0, wrk on cpu 1 when taskset exists.
//
// Usage: npm run bench:carry-over -- [--reps 3] [--windows 4] [--first baseline] [--second auth] [--targets node-http,express]
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { benchArgs } from '../../../scripts/bench-args.mjs';
import { fileURLToPath } from 'node:url';
import { median, startProcess } from '@benchsuite/sdk';

const { values: args } = benchArgs(import.meta.url, {
  options: {
    reps: { type: 'string', default: '3' },
    windows: { type: 'string', default: '4' },
    first: { type: 'string', default: 'baseline' },
    second: { type: 'string', default: 'auth' },
    targets: { type: 'string' },
    connections: { type: 'string', default: '50' },
  },
});
const fail = (m) => {
  process.stderr.write(`bench:carry-over: ${m}\n`);
  process.exit(2);
};
const reps = Number(args.reps);
const windows = Number(args.windows);
if (!Number.isInteger(reps) || reps < 1 || reps > 20) fail('--reps: a whole number from 1 to 20');
if (!Number.isInteger(windows) || windows < 1 || windows > 20) fail('--windows: a whole number from 1 to 20');
if (spawnSync('wrk', ['--version']).error) fail('wrk is not installed (benchsuite setup wrk)');

const servePath = fileURLToPath(new URL('../dist/serve.js', import.meta.url));
const { nodeTargetNames } = await import(new URL('../dist/adapters/manifests.js', import.meta.url).href);
const contract = JSON.parse(readFileSync(new URL('../contract/contract-a.json', import.meta.url), 'utf8'));
const scenario = (name) => {
  const s = contract.scenarios.find((x) => x.name === name);
  if (!s) fail(`no contract A scenario named ${name}`);
  if ((s.request.method ?? 'GET') !== 'GET' || s.request.body) fail(`${name}: only GET scenarios without a body (plain wrk)`);
  return s;
};
const first = scenario(args.first);
const second = scenario(args.second);
const targets = args.targets ? args.targets.split(',') : nodeTargetNames;
for (const t of targets) if (!nodeTargetNames.includes(t)) fail(`unknown target ${t} (one of ${nodeTargetNames.join(', ')})`);
const pinned = !spawnSync('taskset', ['-c', '0', 'true']).error;
const pin = (cpu) => (pinned ? ['taskset', '-c', String(cpu)] : []);
const log = (m) => process.stderr.write(`${m}\n`);

/** One 1-s wrk window on `url` + the scenario's path and headers: its req/s. */
function wrkWindow(url, s) {
  const headers = Object.entries(s.request.headers ?? {}).flatMap(([k, v]) => ['-H', `${k}: ${v}`]);
  const argv = [...pin(1), 'wrk', '-t1', `-c${args.connections}`, '-d1s', ...headers, url + s.request.path];
  const r = spawnSync(argv[0], argv.slice(1), { encoding: 'utf8', timeout: 10_000 });
  const m = /Requests\/sec:\s+([\d.]+)/.exec(r.stdout ?? '');
  if (!m) fail(`wrk gave no figure: ${r.stderr || r.stdout}`);
  return Number(m[1]);
}

async function trial(target, carried) {
  const srv = await startProcess({ command: [process.execPath, servePath, target], pin: pin(0), unsetEnv: ['NODE_EXTRA_CA_CERTS', 'NODE_OPTIONS'] });
  try {
    if (carried) for (let i = 0; i < windows; i++) wrkWindow(srv.url, first);
    return Array.from({ length: windows }, () => wrkWindow(srv.url, second));
  } finally {
    await srv.stop();
  }
}

const results = new Map(targets.map((t) => [t, { fresh: [], carried: [] }]));
const t0 = Date.now();
for (let rep = 1; rep <= reps; rep++) {
  for (const t of targets) {
    const order = Math.random() < 0.5 ? [false, true] : [true, false];
    for (const carried of order) {
      log(`bench:carry-over: rep ${rep}/${reps} ${t} ${carried ? `carried (${first.name} → ${second.name})` : `fresh (${second.name})`} (${Math.round((Date.now() - t0) / 1000)} s)`);
      results.get(t)[carried ? 'carried' : 'fresh'].push(await trial(t, carried));
    }
  }
}

/** One table: each trial's windows ÷ `base(trial, k)`, median over repetitions. */
function table(title, base) {
  console.log(`\n${title}\n`);
  console.log(`| target | condition | ${Array.from({ length: windows }, (_, i) => `window ${i + 1}`).join(' | ')} |`);
  console.log(`|---|---|${'---|'.repeat(windows)}`);
  for (const [t, r] of results) {
    for (const kind of ['fresh', 'carried']) {
      const cells = Array.from({ length: windows }, (_, i) => median(r[kind].map((run, k) => run[i] / base(r, kind, k))).toFixed(3));
      console.log(`| ${t} | ${kind} | ${cells.join(' | ')} |`);
    }
  }
}
const what = `${second.name} after a fresh start, and after ${windows} s of ${first.name} in the same process: req/s per 1-s window`;
// How soon each process is steady: against its own last window (process-to-process differences out).
table(`${what} ÷ the same process's window ${windows} (median of ${reps})`, (r, kind, k) => r[kind][k][windows - 1]);
// The level too: against the fresh process of the same repetition (two processes differ).
table(`${what} ÷ the fresh process's window ${windows} in the same repetition (median of ${reps})`, (r, _kind, k) => r.fresh[k][windows - 1]);
