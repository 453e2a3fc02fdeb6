#!/usr/bin/env node
// How much work does a fresh Node server need before it runs at its steady cost? (A benchmark
// script, not a test.) The question behind the fresh warm-up's `served` (DEFAULTS.warmup), asked in
// a unit the host's speed does not move: user-space instructions per request under valgrind's
// callgrind, which counts a server's work repeatably whatever the steal or the hour. Each (target,
// scenario) runs on its own fresh process, started as a run starts it (the design's default Node
// flags: young generation, memory reducer) plus `--single-threaded --hash-seed=1 --random-seed=1` so the count
// repeats (the optimising compiler then runs on the main thread, and its work is counted in the
// batch that triggered it). Requests go out in batches over keep-alive connections; after each,
// callgrind dumps (and zeroes) its counters, so a dump's total is that batch's work.
//
// Printed per (target, scenario), for all the work and for the work outside V8's collections (the
// collections come in lumps, a scavenge every few thousand requests, so the JIT's settling is read
// best without them): the steady cost (instructions per request over the last
// `--tail` share of the requests, collections included), then the cost of the `--window` requests
// that follow a warm-up of N requests, as a factor of the steady cost, for each N of `--at`: what
// round 1 would pay, in user-space work, after a warm-up of N. And the least N after which every
// later window stays within 1%, 2% and 5% of the steady cost. Then the floor: each window's least
// batch outside collections ÷ the tail's, which leaves the lumps out and settles when the JIT has.
//
// Usage: npm run bench:warmup-instructions -- [--targets node-http,fastify,hono,koa]
//        [--scenarios baseline,json-post,auth] [--requests 40000] [--batch 1000] [--connections 8]
//        [--window 5000] [--at 2000,5000,7000,10000,20000] [--tail 0.4] [--json out.json]
//        [--from out.json]  (the analysis again, of a saved run's batches: no load)
//        [--node-flags '--predictable-gc-schedule']  (more V8 flags, after the others)
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { benchArgs } from '../../../scripts/bench-args.mjs';
import { DEFAULTS, dumpCost, nodeRuntimeFlags, startProcess } from '@benchsuite/sdk';

const run = promisify(execFile);
const { values: args } = benchArgs(import.meta.url, {
  options: {
    targets: { type: 'string', default: 'node-http,fastify,hono,koa' },
    scenarios: { type: 'string', default: 'baseline,json-post,auth' },
    requests: { type: 'string', default: '40000' },
    batch: { type: 'string', default: '1000' },
    connections: { type: 'string', default: '8' },
    window: { type: 'string', default: '5000' },
    at: { type: 'string', default: '2000,5000,7000,10000,20000' },
    tail: { type: 'string', default: '0.4' },
    json: { type: 'string' },
    from: { type: 'string' },
    'node-flags': { type: 'string', default: '' },
  },
});
const fail = (m) => {
  process.stderr.write(`bench:warmup-instructions: ${m}\n`);
  process.exit(2);
};
const whole = (name, lo, hi) => {
  const n = Number(args[name]);
  if (!Number.isInteger(n) || n < lo || n > hi) fail(`--${name}: a whole number from ${lo} to ${hi}`);
  return n;
};
const total = whole('requests', 2000, 1_000_000);
const batch = whole('batch', 100, 100_000);
const connections = whole('connections', 1, 256);
const windowReq = whole('window', batch, total);
if (windowReq % batch) fail('--window: a multiple of --batch');
const tail = Number(args.tail);
if (!(tail > 0 && tail < 1)) fail('--tail: a share between 0 and 1');
const at = args.at.split(',').map(Number);
if (at.some((n) => !Number.isInteger(n) || n < 0 || n % batch || n + windowReq > total)) fail('--at: warm-ups in whole batches, each leaving a --window before --requests');
for (const tool of args.from ? [] : ['valgrind', 'callgrind_control']) await run('sh', ['-c', `command -v ${tool}`]).catch(() => fail(`${tool} not found on PATH (Debian: apt-get install valgrind)`));

const servePath = fileURLToPath(new URL('../dist/serve.js', import.meta.url));
const { nodeTargetNames } = await import(new URL('../dist/adapters/manifests.js', import.meta.url).href);
const contract = JSON.parse(readFileSync(new URL('../contract/contract-a.json', import.meta.url), 'utf8'));
const targets = args.targets.split(',');
for (const t of targets) if (!nodeTargetNames.includes(t)) fail(`--targets: ${t} is not one of ${nodeTargetNames.join(', ')}`);
const scenarios = args.scenarios.split(',').map((name) => contract.scenarios.find((s) => s.name === name) ?? fail(`--scenarios: ${name} is not a contract A scenario`));
const log = (m) => process.stderr.write(`${m}\n`);
const nodeFlags = ['--single-threaded', '--hash-seed=1', '--random-seed=1', ...nodeRuntimeFlags(DEFAULTS), ...args['node-flags'].split(' ').filter(Boolean)];

/** Send `n` requests over `agent`, `connections` at a time; resolves when all are answered with an expected status. */
async function send(agent, url, spec, statuses, n) {
  let next = 0;
  const one = () =>
    new Promise((resolve, reject) => {
      const req = httpRequest(new URL(spec.path, url), { method: spec.method ?? 'GET', headers: spec.headers ?? {}, agent }, (res) => {
        res.resume();
        res.on('end', () => (statuses.includes(res.statusCode) ? resolve() : reject(new Error(`${spec.path} answered ${res.statusCode}`))));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(spec.body);
    });
  const loop = async () => {
    while (next < n) {
      next++;
      await one();
    }
  };
  await Promise.all(Array.from({ length: Math.min(connections, n) }, loop));
}

const dumpCostOf = (dir, pid, k) => dumpCost(readFileSync(join(dir, `cg.${pid}.${k}`), 'utf8'));

/** One fresh process: instructions per request of each batch, in order. */
async function series(target, scenario) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-warmup-cg-'));
  const srv = await startProcess({
    command: ['valgrind', '--tool=callgrind', `--callgrind-out-file=${join(dir, 'cg.%p')}`, process.execPath, ...nodeFlags, servePath, target],
    pin: ['taskset', '-c', '0'],
    unsetEnv: ['NODE_EXTRA_CA_CERTS', 'NODE_OPTIONS'],
    readyTimeoutMs: 120_000,
  });
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const statuses = [scenario.expect?.status ?? 200].flat();
  try {
    // The start-up's work goes to dump 1; each batch's to the next.
    await run('callgrind_control', ['-d', String(srv.pid)]);
    const perRequest = [];
    const gcPerRequest = [];
    const t0 = performance.now();
    for (let served = 0; served < total; served += batch) {
      await send(agent, srv.url, scenario.request, statuses, batch);
      await run('callgrind_control', ['-d', String(srv.pid)]);
      const files = readdirSync(dir).filter((f) => f.startsWith(`cg.${srv.pid}.`));
      const cost = dumpCostOf(dir, srv.pid, files.length);
      perRequest.push(cost.total / batch);
      gcPerRequest.push(cost.collections / batch);
      if (perRequest.length % 10 === 0) log(`  ${target} ${scenario.name}: ${served + batch} requests, ${Math.round(perRequest.at(-1))} instr/req, ${((performance.now() - t0) / 1000).toFixed(0)} s`);
    }
    return { perRequest, gcPerRequest };
  } finally {
    agent.destroy();
    await srv.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const mean = (xs) => xs.reduce((a, x) => a + x, 0) / xs.length;
const least = (xs) => Math.min(...xs);
const perWindow = windowReq / batch;
/**
 * The steady level (`of` over the tail's batches), each `--at` warm-up's next window (`of` over its
 * batches) ÷ it, and the least warm-up after which every later window (of --window, in steps of a
 * batch) stays within 1%, 2% and 5%. With `least`, the floor: a batch without a collection's lump
 * (a scavenge inside Heap::CollectGarbage, or incremental marking steps outside it, both every few
 * thousand requests) is the request path's own cost, so the floor settles when the optimising
 * compiler is done.
 */
function analyse(xs, of = mean) {
  const steady = of(xs.slice(Math.floor(xs.length * (1 - tail))));
  const windowAfter = (n) => of(xs.slice(n / batch, n / batch + perWindow)) / steady;
  const settledAt = (tol) => {
    let last = -1;
    for (let i = 0; i + perWindow <= xs.length; i++) if (Math.abs(of(xs.slice(i, i + perWindow)) / steady - 1) > tol) last = i;
    return (last + 1) * batch;
  };
  return { steady, after: Object.fromEntries(at.map((n) => [n, windowAfter(n)])), settledAt: { 0.01: settledAt(0.01), 0.02: settledAt(0.02), 0.05: settledAt(0.05) } };
}

const measured = args.from ? JSON.parse(readFileSync(args.from, 'utf8')).results : [];
if (!args.from)
  log(`bench:warmup-instructions: ${targets.length} targets × ${scenarios.length} scenarios, ${total} requests each in batches of ${batch}, ${connections} connections, node ${nodeFlags.join(' ')}`);
const out = [];
const pairs = args.from ? measured.map((r) => [r.target, { name: r.scenario }, r]) : scenarios.flatMap((scenario) => targets.map((target) => [target, scenario, undefined]));
for (const [target, scenario, done] of pairs) {
  const { perRequest, gcPerRequest } = done ?? (await series(target, scenario));
  const a = analyse(perRequest);
  const outside = perRequest.map((x, i) => x - gcPerRequest[i]);
  const outsideGc = analyse(outside);
  const floor = analyse(outside, least);
  out.push({ target, scenario: scenario.name, perRequest, gcPerRequest, ...a, outsideGc, floor });
  for (const [what, x] of [
    ['all', a],
    ['outside collections', outsideGc],
    ['floor', floor],
  ])
    log(
      `${target} ${scenario.name}, ${what}: steady ${Math.round(x.steady)} instr/req; after ${at.map((n) => `${n}: ${x.after[n].toFixed(3)}`).join(', ')}; within 1/2/5% from ${x.settledAt[0.01]}/${x.settledAt[0.02]}/${x.settledAt[0.05]}`,
    );
}
if (args.json && !args.from) writeFileSync(args.json, JSON.stringify({ nodeFlags, batch, connections, window: windowReq, tail, at, results: out }, null, 2));
const cell = (x) => (x >= 0.9995 && x < 1.0005 ? '1.000' : x.toFixed(3));
process.stdout.write(`\nThe next ${windowReq} requests' user-space instructions after a warm-up of N, ÷ the steady cost (last ${Math.round(tail * 100)}% of ${total}):\n\n`);
process.stdout.write(`| target | scenario | counted | steady instr/req | ${at.map((n) => `N = ${n}`).join(' | ')} | within 1% / 2% / 5% from |\n|${'---|'.repeat(5 + at.length)}\n`);
for (const r of out)
  for (const [what, x] of [
    ['all', r],
    ['outside collections', r.outsideGc],
    ['floor outside collections', r.floor],
  ])
    process.stdout.write(
      `| ${r.target} | ${r.scenario} | ${what} | ${Math.round(x.steady)} | ${at.map((n) => cell(x.after[n])).join(' | ')} | ${x.settledAt[0.01]} / ${x.settledAt[0.02]} / ${x.settledAt[0.05]} |\n`,
    );
