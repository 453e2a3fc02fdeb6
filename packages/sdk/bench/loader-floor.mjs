#!/usr/bin/env node
// Benchmark of the measuring instrument at low connection counts (not a test): per driver and
// connection count, on the same pinned cores,
//   1. the loader's round-trip floor: req/s against the trivial responder the runs use
//      (dist/floor/_responder.js, raw socket, one fixed response), on the server's core;
//   2. req/s against node:http (the tiny test server) on the same core, and that core's busy share
//      (the server waits for the loader where it is well under 1);
//   3. the loader's share of node:http's round trip: node:http's req/s ÷ the floor's.
// Drivers and levels run in a seeded random order within each round, rounds interleaved; medians
// over rounds. `DEFAULTS.lowConnections` is read off this table: the highest count at which even
// node:http, the fastest server here, leaves its core idle waiting for the loader.
// Usage: node packages/sdk/bench/loader-floor.mjs [--rounds 3] [--duration 2] [--connections 1,2,4,8,16,32,64] [--drivers h2load,wrk,autocannon]
import { fileURLToPath } from 'node:url';
import { benchArgs } from '../../../scripts/bench-args.mjs';
import { decidePinning, drivers, median, startProcess } from '../dist/index.js';
import { seededShuffle } from '../dist/random.js';
import { TreeSampler } from '../dist/window-resources.js';

const { values: args } = benchArgs(import.meta.url, {
  options: {
    rounds: { type: 'string', default: '3' },
    duration: { type: 'string', default: '2' },
    connections: { type: 'string', default: '1,2,4,8,16,32,64' },
    drivers: { type: 'string', default: 'h2load,wrk,autocannon' },
  },
});
const rounds = Number(args.rounds);
const duration = Number(args.duration);
const levels = args.connections.split(',').map(Number);
const pinning = decidePinning('auto');
if (!pinning.enabled) throw new Error(`cannot pin server and loader apart: ${pinning.reason}`);
const SERVER = pinning.serverCpus;
const LOADER = pinning.loaderCpus;
const pin = (cpus) => ['taskset', '-c', cpus.join(',')];
const log = (m) => process.stderr.write(`${m}\n`);
const names = [];
for (const n of args.drivers.split(',')) {
  const ok = await drivers[n]?.available();
  if (ok === true) names.push(n);
  else log(`${n}: ${ok ?? 'unknown driver'}, left out`);
}
const unset = ['NODE_EXTRA_CA_CERTS', 'NODE_OPTIONS'];
const responder = await startProcess({ command: [process.execPath, fileURLToPath(new URL('../dist/floor/_responder.js', import.meta.url))], pin: pin(SERVER), unsetEnv: unset });
const node = await startProcess({ command: [process.execPath, fileURLToPath(new URL('../test/fixtures/tiny-server.mjs', import.meta.url))], pin: pin(SERVER), unsetEnv: unset });
log(`responder ${responder.url}, node:http ${node.url}, both on cpu ${SERVER}; loader on cpu ${LOADER}; ${rounds} rounds × ${duration} s; drivers ${names.join(', ')}`);
const request = [{ method: 'GET', path: '/ping', headers: {} }];

async function measure(name, srv, connections) {
  const sampler = new TreeSampler(srv.pid, LOADER, SERVER, drivers[name].capabilities.threads === 'one' ? 1 : LOADER.length);
  let res;
  const out = await drivers[name].run({
    baseUrl: srv.url,
    requests: request,
    connections,
    warmupSec: 0.5,
    durationSec: duration,
    timeoutSec: 10,
    expectStatus: [200],
    pin: pin(LOADER),
    onMeasureStart: (pid) => sampler.windowStart(pid),
    onMeasureEnd: () => (res = sampler.windowEnd()),
  });
  sampler.stop();
  return { rps: out.requests / out.durationSec, serverShare: res?.serverCoreShare ?? Number.NaN, loaderBusy: res?.loaderBusiestCore ?? Number.NaN, steal: res?.cpuSteal ?? 0 };
}

// Warm both servers and the loaders up once.
for (const name of names) {
  await measure(name, responder, 8);
  await measure(name, node, 8);
}
const rows = new Map();
for (let r = 1; r <= rounds; r++) {
  // Drivers and levels in a seeded order, different every round and the same on every run.
  for (const [name, c] of seededShuffle(
    names.flatMap((n) => levels.map((c) => [n, c])),
    7 + r,
  )) {
    const floor = await measure(name, responder, c);
    const srv = await measure(name, node, c);
    const key = `${name}\t${c}`;
    if (!rows.has(key)) rows.set(key, []);
    rows.get(key).push({ floor, srv });
  }
  log(`round ${r} done`);
  await drivers.autocannon.close?.();
}
for (const s of [responder, node]) await s.stop();

const f0 = (x) => Math.round(x).toLocaleString('en-US');
const pct = (x) => `${(x * 100).toFixed(0)}%`;
console.log('| driver | connections | floor req/s | node:http req/s | loader share | node:http core busy | loader core busy (node:http) | steal |');
console.log('|---|---|---|---|---|---|---|---|');
for (const name of names) {
  for (const c of levels) {
    const xs = rows.get(`${name}\t${c}`);
    const floor = median(xs.map((x) => x.floor.rps));
    const srv = median(xs.map((x) => x.srv.rps));
    const share = median(xs.map((x) => x.srv.rps / x.floor.rps));
    console.log(
      `| ${name} | ${c} | ${f0(floor)} | ${f0(srv)} | ${pct(share)} | ${pct(median(xs.map((x) => x.srv.serverShare)))} | ${pct(median(xs.map((x) => x.srv.loaderBusy)))} | ${pct(Math.max(...xs.map((x) => Math.max(x.floor.steal, x.srv.steal))))} |`,
    );
  }
}
