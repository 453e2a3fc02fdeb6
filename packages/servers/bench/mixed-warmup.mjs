#!/usr/bin/env node
// Does a warm-up on every scenario's requests at once make a shared block's rotation rounds
// unnecessary? (A benchmark script, not a test.) In a shared block the fresh processes are warmed
// on the block's first scenario, and every later scenario starts with one unrecorded rotation round
// (a 0.5-s window per target), because its route is still cold. This script runs blocks as the
// suite does (all six contract A servers up at once, rotation rounds, seeded orders) in three
// conditions, one per block, in turn:
//   current:  warm-up on the first scenario; one rotation round of 0.5-s windows before each later one;
//   mixed:    warm-up on all the scenarios' requests at once (round-robin on each connection); no rotation rounds;
//   none:     warm-up on the first scenario; no rotation rounds (what the rotation round is for).
// Printed per condition and part of the block (first scenario, later ones): round 1's req/s ÷ the
// median of the later rounds, and the same for every target's ratio to node-http, with the control
// (round 2 ÷ rounds 3…), medians over targets and blocks. Server on cpu 0, wrk on cpu 1.
//
// Usage: npm run bench:mixed-warmup -- [--blocks 6] [--rounds 4] [--parts 4] [--seed 1]
import { readFileSync } from 'node:fs';
import { benchArgs } from '../../../scripts/bench-args.mjs';
import { fileURLToPath } from 'node:url';
import { drivers, median, startProcess } from '@benchsuite/sdk';

const { values: args } = benchArgs(import.meta.url, {
  options: {
    blocks: { type: 'string', default: '6' },
    rounds: { type: 'string', default: '4' },
    parts: { type: 'string', default: '4' },
    seed: { type: 'string', default: '1' },
    conditions: { type: 'string', default: 'current,mixed,none' },
  },
});
const fail = (m) => {
  process.stderr.write(`bench:mixed-warmup: ${m}\n`);
  process.exit(2);
};
const whole = (name, lo, hi) => {
  const n = Number(args[name]);
  if (!Number.isInteger(n) || n < lo || n > hi) fail(`--${name}: a whole number from ${lo} to ${hi}`);
  return n;
};
const blocks = whole('blocks', 1, 30);
const rounds = whole('rounds', 3, 10);
const parts = whole('parts', 2, 8);
let seed = whole('seed', 0, 2 ** 31);
const conditions = args.conditions.split(',');
for (const c of conditions) if (!['current', 'mixed', 'none'].includes(c)) fail(`--conditions: ${c} is not current, mixed or none`);

const servePath = fileURLToPath(new URL('../dist/serve.js', import.meta.url));
const { nodeTargetNames } = await import(new URL('../dist/adapters/manifests.js', import.meta.url).href);
const contract = JSON.parse(readFileSync(new URL('../contract/contract-a.json', import.meta.url), 'utf8'));
// The fixed-connection scenarios (the ramp sends full-pipeline's request).
const scenarios = contract.scenarios.filter((s) => !s.load?.connections);
const spec = (s) => ({ method: s.request.method ?? 'GET', path: s.request.path, headers: s.request.headers ?? {}, body: s.request.body });
const statuses = (s) => [s.expect?.status ?? 200].flat();
const allRequests = scenarios.map(spec);
const allStatuses = [...new Set(scenarios.flatMap(statuses))];
const log = (m) => process.stderr.write(`${m}\n`);
const rand = () => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return seed / 2 ** 31;
};
const shuffle = (xs) => {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
};

async function window(srv, requests, expectStatus, sec) {
  const r = await drivers.wrk.run({ baseUrl: srv.url, requests, connections: 50, warmupSec: 0, durationSec: sec, timeoutSec: 5, expectStatus, pin: ['taskset', '-c', '1'] });
  return r.requests / r.durationSec;
}

/** One block: all targets up, warmed in 3 rotation rounds of 1 s, then `parts` scenarios of `rounds` rounds. */
async function block(condition) {
  const order = shuffle(scenarios).slice(0, parts);
  const servers = {};
  for (const t of nodeTargetNames) servers[t] = await startProcess({ command: [process.execPath, servePath, t], pin: ['taskset', '-c', '0'], unsetEnv: ['NODE_EXTRA_CA_CERTS', 'NODE_OPTIONS'] });
  try {
    const [wReq, wStatus] = condition === 'mixed' ? [allRequests, allStatuses] : [[spec(order[0])], statuses(order[0])];
    for (let r = 0; r < 3; r++) for (const t of shuffle(nodeTargetNames)) await window(servers[t], wReq, wStatus, 1);
    const out = [];
    for (const [p, s] of order.entries()) {
      if (p > 0 && condition === 'current') for (const t of shuffle(nodeTargetNames)) await window(servers[t], [spec(s)], statuses(s), 0.5);
      const rps = Object.fromEntries(nodeTargetNames.map((t) => [t, []]));
      for (let r = 0; r < rounds; r++) for (const t of shuffle(nodeTargetNames)) rps[t].push(await window(servers[t], [spec(s)], statuses(s), 0.8));
      out.push({ part: p, scenario: s.name, rps });
    }
    return out;
  } finally {
    for (const srv of Object.values(servers)) await srv.stop();
  }
}

const rows = [];
const t0 = Date.now();
for (let b = 0; b < blocks; b++) {
  const condition = conditions[b % conditions.length];
  log(`bench:mixed-warmup: block ${b + 1}/${blocks} (${condition}) (${Math.round((Date.now() - t0) / 1000)} s)`);
  for (const part of await block(condition)) rows.push({ condition, ...part });
}

const ref = 'node-http';
/** Round k's figure ÷ the median of rounds k+1…; per target, req/s and ratio to the reference. */
const lift = (xs, k) => xs[k] / median(xs.slice(k + 1));
console.log(`\nround 1 ÷ later rounds (control: round 2 ÷ rounds 3…), medians over targets and blocks; ${blocks} blocks of ${parts} scenarios × ${rounds} rounds\n`);
console.log('| condition | part | req/s round 1 | control | ratio to node-http round 1 | control | n |');
console.log('|---|---|---|---|---|---|---|');
for (const c of conditions) {
  for (const first of [true, false]) {
    const sel = rows.filter((r) => r.condition === c && (r.part === 0) === first);
    const rps1 = [],
      rps2 = [],
      rat1 = [],
      rat2 = [];
    for (const r of sel) {
      for (const t of nodeTargetNames) {
        rps1.push(lift(r.rps[t], 0));
        rps2.push(lift(r.rps[t], 1));
        if (t === ref) continue;
        const ratio = r.rps[t].map((x, i) => x / r.rps[ref][i]);
        rat1.push(lift(ratio, 0));
        rat2.push(lift(ratio, 1));
      }
    }
    const f = (x) => (x.length ? median(x).toFixed(3) : '–');
    console.log(`| ${c} | ${first ? 'first scenario' : 'later scenarios'} | ${f(rps1)} | ${f(rps2)} | ${f(rat1)} | ${f(rat2)} | ${sel.length} |`);
  }
}
