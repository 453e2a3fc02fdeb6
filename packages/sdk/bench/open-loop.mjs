#!/usr/bin/env node
// Benchmark of the open-loop candidates (not a test): in one run, on the same pinned cores, against
// one node:http server, each engine is offered rising constant rates; per rate, what it achieved,
// its own CPU (of one core), the loader core's busy share, and its p99. An engine's ceiling is the
// highest offered rate it still delivered within 5% while its core stayed under 90% busy.
//   k6          constant-arrival-rate (the k6 driver; open loop, latency also from intended send)
//   autocannon  overallRate (capped, but closed loop: each connection still waits for its answer)
//   vegeta      the vegeta driver (open loop; latency from the intended send computed from its sequence numbers)
//   oha         `oha -q RATE --latency-correction` when on PATH or ~/.cargo/bin
// Usage: node packages/sdk/bench/open-loop.mjs [--duration 3] [--rates 2000,5000,10000,20000,40000]
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { decidePinning, drivers, latencyOf, startProcess } from '../dist/index.js';
import { TreeSampler } from '../dist/window-resources.js';

const { values: args } = parseArgs({ options: { duration: { type: 'string', default: '3' }, rates: { type: 'string', default: '2000,5000,10000,20000,40000' } } });
const duration = Number(args.duration);
const rates = args.rates.split(',').map(Number);
const pinning = decidePinning('auto');
if (!pinning.enabled) throw new Error(`cannot pin server and loader apart: ${pinning.reason}`);
const pin = (cpus) => ['taskset', '-c', cpus.join(',')];
const log = (m) => process.stderr.write(`${m}\n`);
const pct = (x) => (x == null || Number.isNaN(x) ? '–' : `${(x * 100).toFixed(0)}%`);
const server = fileURLToPath(new URL('../test/fixtures/tiny-server.mjs', import.meta.url));
const which = (name, extra) => [spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).stdout.trim(), extra].find((p) => p && existsSync(p));

const srv = await startProcess({ command: [process.execPath, server], pin: pin(pinning.serverCpus), unsetEnv: ['NODE_EXTRA_CA_CERTS'] });
const request = [{ method: 'GET', path: '/ping', headers: {} }];
log(`node:http ${srv.url} on cpu ${pinning.serverCpus}, loaders on cpu ${pinning.loaderCpus}; ${duration}-s windows at ${rates.join(', ')} req/s`);

/** One window of a driver at `rate`, with the loader's CPU sampled around the measured part. */
async function viaDriver(name, rate, openLoop) {
  const sampler = new TreeSampler(srv.pid, pinning.loaderCpus, pinning.serverCpus, 1);
  let res;
  const out = await drivers[name].run({
    baseUrl: srv.url,
    requests: request,
    connections: 50,
    warmupSec: 0,
    durationSec: duration,
    rate,
    openLoop,
    timeoutSec: 10,
    expectStatus: [200],
    pin: pin(pinning.loaderCpus),
    onMeasureStart: (pid) => sampler.windowStart(pid),
    onMeasureEnd: () => (res = sampler.windowEnd()),
  });
  sampler.stop();
  return {
    achieved: out.requests / out.durationSec,
    loaderCpu: res.loaderCpuSeconds / out.durationSec,
    busy: res.loaderBusiestCore,
    p99: latencyOf(out.openLoop?.corrected ?? out.histogram).p99,
    dropped: out.openLoop?.dropped ?? 0,
  };
}

/** A command-line engine, timed with /usr/bin/time-free accounting: CPU from its rusage. */
function viaCommand(argv, parse) {
  const t0 = performance.now();
  const r = spawnSync(argv[0], argv.slice(1), { encoding: 'utf8', maxBuffer: 1 << 28 });
  const wall = (performance.now() - t0) / 1000;
  const parsed = parse(r.stdout, r.stderr);
  return { ...parsed, loaderCpu: null, busy: null, wall };
}

const engines = [
  ['k6 (constant-arrival-rate)', (rate) => viaDriver('k6', rate, true), (await drivers.k6.available()) === true],
  ['autocannon (overallRate, closed loop)', (rate) => viaDriver('autocannon', rate, false), true],
];
engines.splice(1, 0, ['vegeta (open loop)', (rate) => viaDriver('vegeta', rate, true), (await drivers.vegeta.available()) === true]);
const oha = which('oha', join(homedir(), '.cargo', 'bin', 'oha'));
if (oha) {
  engines.push([
    'oha -q --latency-correction',
    (rate) =>
      viaCommand(['taskset', '-c', pinning.loaderCpus.join(','), oha, '--no-tui', '--json', '-z', `${duration}s`, '-q', String(rate), '--latency-correction', '-c', '50', `${srv.url}/ping`], (out) => {
        const j = JSON.parse(out);
        return { achieved: j.summary.requestsPerSec, p99: j.latencyPercentiles.p99 * 1e6, dropped: 0 };
      }),
    true,
  ]);
}

console.log(`\n## Open-loop candidates against node:http (${duration}-s windows, server cpu ${pinning.serverCpus}, loader cpu ${pinning.loaderCpus})\n`);
console.log('| engine | offered req/s | achieved req/s | loader CPU (of one core) | loader core busy | p99 | dropped |');
console.log('|---|---:|---:|---:|---:|---:|---:|');
const ceilings = [];
for (const [name, run, ok] of engines) {
  if (!ok) {
    console.log(`| ${name} | not available | | | | | |`);
    continue;
  }
  let ceiling = 0;
  for (const rate of rates) {
    const r = await run(rate);
    console.log(`| ${name} | ${rate} | ${Math.round(r.achieved)} | ${pct(r.loaderCpu)} | ${pct(r.busy)} | ${(r.p99 / 1000).toFixed(2)} ms | ${r.dropped} |`);
    if (r.achieved >= rate * 0.95 && (r.busy == null || r.busy < 0.9)) ceiling = rate;
    else break;
  }
  ceilings.push(`${name}: ${ceiling ? `≥ ${ceiling}` : `< ${rates[0]}`} req/s`);
}
console.log(`\nceilings (delivered within 5%, loader core under 90%): ${ceilings.join('; ')}`);
await srv.stop();
