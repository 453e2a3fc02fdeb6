#!/usr/bin/env node
// Benchmark of the measuring instrument itself (not a test): in one run, on the same pinned
// cores, against one node:http server,
//   1. the RPS raw `wrk`, the wrk driver and the autocannon driver measure (interleaved rounds),
//   2. each driver's loader CPU and the busy share of the loader core,
//   3. autocannon's client-bound flag across offered rates (set exactly when its core saturates),
//   3b. the suite's short windows (0.8 s, no warm-up of their own): autocannon's loader kept for
//      the run against a fresh loader per window, with the wrk driver beside them (interleaved),
//   4. the suite overhead (wall ÷ load windows) and the runner's own peak RSS, from a results.json
//      of a real `benchsuite run` when one is given (--result), else from a small suite run here.
// Usage: node packages/sdk/bench/drivers.mjs [--rounds 5] [--duration 5] [--result path/results.json]
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { benchArgs } from '../../../scripts/bench-args.mjs';
import { drivers, runSuite, startProcess, cpuTimes, median, changeEstimate, isClientBound, decidePinning, upgradeResult } from '../dist/index.js';
import { TreeSampler } from '../dist/window-resources.js';

const { values: args } = benchArgs(import.meta.url, {
  options: { rounds: { type: 'string', default: '5' }, duration: { type: 'string', default: '5' }, connections: { type: 'string', default: '50' }, result: { type: 'string' } },
});
const rounds = Number(args.rounds);
const duration = Number(args.duration);
const connections = Number(args.connections);
const pinning = decidePinning('auto');
if (!pinning.enabled) throw new Error(`cannot pin server and loader apart: ${pinning.reason}`);
const SERVER = pinning.serverCpus;
const LOADER = pinning.loaderCpus;
const pin = (cpus) => ['taskset', '-c', cpus.join(',')];
const log = (m) => process.stderr.write(`${m}\n`);
const pct = (x) => (x === null || x === undefined || Number.isNaN(x) ? '–' : `${(x * 100).toFixed(1)}%`);
const server = fileURLToPath(new URL('../test/fixtures/tiny-server.mjs', import.meta.url));
const hasWrk = (await drivers.wrk.available()) === true;

const srv = await startProcess({ command: [process.execPath, server], pin: pin(SERVER), unsetEnv: ['NODE_EXTRA_CA_CERTS'] });
log(`node:http server ${srv.url} (pid ${srv.pid}) on cpu ${SERVER}, loader on cpu ${LOADER}; ${rounds} rounds × ${duration} s, ${connections} connections`);
const request = [{ method: 'GET', path: '/ping', headers: {} }];

/** Raw wrk, as a user would run it, with the loader's CPU and core busy share measured around it. */
function rawWrk() {
  const before = cpuTimes(LOADER);
  const both0 = cpuTimes([...SERVER, ...LOADER]);
  const r = spawnSync('taskset', ['-c', LOADER.join(','), 'wrk', '-t1', `-c${connections}`, `-d${duration}s`, `${srv.url}/ping`], { encoding: 'utf8' });
  const after = cpuTimes(LOADER);
  const both1 = cpuTimes([...SERVER, ...LOADER]);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(r.stdout)?.[1]);
  return { rps, busy: (after.busy - before.busy) / (after.total - before.total), loaderCpu: null, steal: (both1.steal - both0.steal) / (both1.total - both0.total) };
}

async function viaDriver(name) {
  const sampler = new TreeSampler(srv.pid, LOADER, SERVER, 1);
  let res;
  const out = await drivers[name].run({
    baseUrl: srv.url,
    requests: request,
    connections,
    warmupSec: 1,
    durationSec: duration,
    timeoutSec: 10,
    expectStatus: [200],
    pin: pin(LOADER),
    onMeasureStart: (pid) => sampler.windowStart(pid),
    onMeasureEnd: () => (res = sampler.windowEnd()),
  });
  sampler.stop();
  return { rps: out.requests / out.durationSec, busy: res.loaderCoreBusy, loaderCpu: res.loaderCpuSeconds / out.durationSec, serverCpu: res.serverCpuSeconds / out.durationSec, steal: res.cpuSteal };
}

// Warm the server up once so round 1 is not a JIT warm-up.
if (hasWrk) spawnSync('taskset', ['-c', LOADER.join(','), 'wrk', '-t1', '-c50', '-d2s', `${srv.url}/ping`]);
const rows = { 'raw wrk': [], 'wrk driver': [], 'autocannon driver': [] };
for (let i = 1; i <= rounds; i++) {
  if (hasWrk) {
    rows['raw wrk'].push(rawWrk());
    rows['wrk driver'].push(await viaDriver('wrk'));
  }
  rows['autocannon driver'].push(await viaDriver('autocannon'));
  log(
    `round ${i}: ` +
      Object.entries(rows)
        .map(([k, v]) => `${k} ${Math.round(v.at(-1)?.rps ?? 0)} (steal ${pct(v.at(-1)?.steal)})`)
        .join(', '),
  );
}

console.log(`\n## Drivers against node:http (server cpu ${SERVER}, loader cpu ${LOADER}, ${connections} connections, ${rounds} × ${duration} s, interleaved)\n`);
console.log('| loader | median req/s | CoV | loader CPU (of one core) | loader core busy | server CPU | hypervisor steal |');
console.log('|---|---|---|---|---|---|---|');
for (const [k, v] of Object.entries(rows)) {
  if (!v.length) continue;
  const xs = v.map((x) => x.rps);
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  const cov = xs.length > 1 ? Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1)) / m : null;
  const avg = (f) => (v.every((x) => f(x) !== null && f(x) !== undefined) ? v.reduce((a, x) => a + f(x), 0) / v.length : null);
  console.log(`| ${k} | ${Math.round(median(xs))} | ${pct(cov)} | ${pct(avg((x) => x.loaderCpu))} | ${pct(avg((x) => x.busy))} | ${pct(avg((x) => x.serverCpu))} | ${pct(avg((x) => x.steal))} |`);
}
if (hasWrk) {
  // Paired per round (both measured back to back), as the suite's own estimator does.
  const ratios = rows['wrk driver'].map((x, i) => x.rps / rows['raw wrk'][i].rps);
  const ch = changeEstimate([rows['raw wrk'].map((x) => x.rps)], [rows['wrk driver'].map((x) => x.rps)], { resamples: 2000, confidence: 0.95, seed: 1 });
  console.log(
    `\nwrk driver ÷ raw wrk: median of per-round ratios ${median(ratios).toFixed(3)}; ratio of medians ${ch.ratio.toFixed(3)}, 95% bootstrap interval ${ch.ci95 ? `[${ch.ci95[0].toFixed(3)}, ${ch.ci95[1].toFixed(3)}]` : '–'}`,
  );
}

// Short windows as the suite runs them: a loader kept warm for the run against a fresh one per
// window (as the driver did before it kept one). The fresh one gets its own pinning prefix (same cores) so it
// is never the kept one, and is killed after its window.
const SHORT = 0.8;
const freshPin = ['taskset', '--cpu-list', LOADER.join(',')];
async function shortWindow(name, pinPrefix, fresh) {
  const sampler = new TreeSampler(srv.pid, LOADER, SERVER, 1);
  let res;
  let loaderPid = 0;
  const out = await drivers[name].run({
    baseUrl: srv.url,
    requests: request,
    connections,
    warmupSec: 0,
    durationSec: SHORT,
    timeoutSec: 10,
    expectStatus: [200],
    pin: pinPrefix,
    onMeasureStart: (pid) => {
      loaderPid = pid;
      sampler.windowStart(pid);
    },
    onMeasureEnd: () => (res = sampler.windowEnd()),
  });
  sampler.stop();
  if (fresh) {
    // Wait until it is reaped: a child reaped during the next window would add its CPU to that window's loader.
    process.kill(loaderPid, 'SIGKILL');
    for (let i = 0; i < 200; i++) {
      try {
        process.kill(loaderPid, 0);
      } catch {
        break;
      }
      await new Promise((r) => setTimeout(r, 10));
    }
  }
  return { rps: out.requests / out.durationSec, busy: res.loaderBusiestCore, clientBound: isClientBound(res) };
}
const short = { ...(hasWrk ? { 'wrk driver': [] } : {}), 'autocannon, loader kept for the run': [], 'autocannon, fresh loader per window': [] };
await shortWindow('autocannon', pin(LOADER), false); // the kept loader's first window, as a run's warm-ups would be
for (let i = 1; i <= rounds * 2; i++) {
  if (hasWrk) short['wrk driver'].push(await shortWindow('wrk', pin(LOADER), false));
  short['autocannon, loader kept for the run'].push(await shortWindow('autocannon', pin(LOADER), false));
  short['autocannon, fresh loader per window'].push(await shortWindow('autocannon', freshPin, true));
}
console.log(`\n## Short windows (${SHORT} s, no warm-up, ${rounds * 2} interleaved rounds)\n`);
console.log('| loader | median req/s | ÷ wrk driver (median of per-round ratios) | loader core busy (median) | client-bound windows |');
console.log('|---|---|---|---|---|');
for (const [k, v] of Object.entries(short)) {
  const ratio = hasWrk ? median(v.map((x, i) => x.rps / short['wrk driver'][i].rps)).toFixed(3) : '–';
  console.log(`| ${k} | ${Math.round(median(v.map((x) => x.rps)))} | ${ratio} | ${pct(median(v.map((x) => x.busy)))} | ${v.filter((x) => x.clientBound).length} of ${v.length} |`);
}

// Client-bound sweep: autocannon at offered rates up to unlimited.
console.log('\n## autocannon client-bound flag by offered rate\n');
console.log('| offered rate | measured req/s | loader core busy | hypervisor steal | clientBound |');
console.log('|---|---|---|---|---|');
for (const rate of [5_000, 20_000, 40_000, undefined]) {
  const sampler = new TreeSampler(srv.pid, LOADER, SERVER, 1);
  let res;
  const out = await drivers.autocannon.run({
    baseUrl: srv.url,
    requests: request,
    connections,
    warmupSec: 0.5,
    durationSec: Math.min(duration, 3),
    rate,
    timeoutSec: 10,
    expectStatus: [200],
    pin: pin(LOADER),
    onMeasureStart: (pid) => sampler.windowStart(pid),
    onMeasureEnd: () => (res = sampler.windowEnd()),
  });
  sampler.stop();
  console.log(`| ${rate ?? 'unlimited'} | ${Math.round(out.requests / out.durationSec)} | ${pct(res.loaderBusiestCore)} | ${pct(res.cpuSteal)} | ${isClientBound(res)} |`);
}
await drivers.autocannon.close();
await srv.stop();

// Suite overhead and runner RSS.
console.log('\n## Suite overhead\n');
let result;
if (args.result) {
  result = upgradeResult(JSON.parse(readFileSync(args.result, 'utf8')));
  log(`overhead from ${args.result}`);
} else {
  log('no --result given: measuring a small suite here (3 scenarios × 2 targets, 2 blocks × 5 rounds)');
  const scenarios = ['a', 'b', 'c'].map((n) => ({ name: n, request: { path: '/ping' }, expect: { status: 200 }, load: { connections } }));
  const targets = ['node-http', 'node-http-2'].map((name) => ({ kind: 'process', name, command: [process.execPath, server] }));
  result = await runSuite({ scenarios, targets, design: { reference: 'node-http', rounds: { min: 5, max: 5 }, blocks: { min: 2, max: 2 } } });
}
const r = result.runner;
console.log(
  `suite ${result.suite}: ${result.overall.windows} windows, wall ${r.wallSec.toFixed(0)} s, under load (warm-up + settle + measured) ${r.loadSec.toFixed(0)} s, measured only ${r.measuredSec.toFixed(0)} s`,
);
console.log(`overhead = wall ÷ time under load = ${(r.wallSec / r.loadSec).toFixed(3)}; wall ÷ measured-only windows = ${(r.wallSec / r.measuredSec).toFixed(3)}`);
console.log(`runner peak RSS: ${(r.peakRssBytes / 2 ** 20).toFixed(0)} MiB; this script's own: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`);
try {
  console.log(`machine: ${execFileSync('sh', ['-c', "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2"], { encoding: 'utf8' }).trim()}, ${result.environment.cores} cores`);
} catch {}
