#!/usr/bin/env node
// Benchmark of the open-loop engines (not a test): which one outruns the server. Against contract
// A's node:http server (`GET /ping`, the baseline scenario) pinned to the server core, each engine
// runs pinned to the loader core and is offered each rate in turn; per (engine, rate), in rounds
// with the engines in a fresh random order each round:
//   achieved req/s, the engine's CPU (cores) and its core's busy share, the server core's busy share,
//   p50 and p99 of the latency from each request's intended send, late sends (left > 2 ms after
//   their due time), unsent (scheduled sends that never got an answer: dropped, failed, or never
//   made), and the engine's own p99 where it has one.
// An engine keeps up with a rate when it delivers ≥ 95% of it using under 90% of its core (its own
// CPU: late sends mix its timer's bursts with the server's queue, and are shown apart); at the first
// rate it does not, the table says whether the engine or the server (its core ≥ 95% busy) was the
// limit. The server's own closed-loop ceiling (wrk -t1 -c50,
// when wrk is installed) is measured before and after, so the table says whether an engine outruns it.
//   oha           the oha driver: -q RATE, one tokio worker thread; latency from the schedule (k ÷ rate)
//   oha-own       oha -q RATE --latency-correction, CSV: its own latency starts at its ticker's
//                 wake-up; from the same rows, the latency from the schedule (send + first byte − k ÷ rate)
//   autocannon    overallRate, its default correction on (-C turns it off); latency from the intended
//                 send computed here from each response's send time (bench/_autocannon-rate.mjs)
//   vegeta        the vegeta driver (latency from the intended send from its sequence numbers)
//   k6            the k6 driver (constant-arrival-rate; up to 1,000 pre-allocated VUs)
// In flight at once: as the drivers do in a capacity probe, a second of arrivals (at most 1,000).
// Usage: npm run bench:open-loop -- [--rates 10000,20000,30000,40000] [--duration 5] [--rounds 2] [--engines oha,oha-own,autocannon,vegeta,k6]
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { benchArgs } from '../../../scripts/bench-args.mjs';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuTimes, createHistogram, decidePinning, drivers, latencyOf, median, startProcess } from '../dist/index.js';
import { findOha } from '../dist/drivers/oha.js';
import { TreeSampler } from '../dist/window-resources.js';

const { values: args } = benchArgs(import.meta.url, {
  options: {
    rates: { type: 'string', default: '10000,20000,30000,40000' },
    duration: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '1' },
    rounds: { type: 'string', default: '2' },
    engines: { type: 'string', default: 'oha,oha-own,autocannon,vegeta,k6' },
    seed: { type: 'string', default: '1' },
  },
});
const rates = args.rates.split(',').map(Number);
const duration = Number(args.duration);
const warmup = Number(args.warmup);
const rounds = Number(args.rounds);
const pinning = decidePinning('auto');
if (!pinning.enabled) throw new Error(`cannot pin server and loader apart: ${pinning.reason}`);
const SERVER = pinning.serverCpus;
const LOADER = pinning.loaderCpus;
const pin = (cpus) => ['taskset', '-c', cpus.join(',')];
const log = (m) => process.stderr.write(`${m}\n`);
const inFlight = (rate) => Math.max(50, Math.min(1000, Math.ceil(rate)));
const unsetEnv = ['NODE_EXTRA_CA_CERTS', 'NODE_OPTIONS'];
const env = { ...process.env };
for (const k of unsetEnv) delete env[k];

const serve = fileURLToPath(new URL('../../servers/dist/serve.js', import.meta.url));
const srv = await startProcess({ command: [process.execPath, serve, 'node-http'], pin: pin(SERVER), unsetEnv });
const request = [{ method: 'GET', path: '/ping', headers: {} }];
const hasWrk = spawnSync('sh', ['-c', 'command -v wrk']).status === 0;

/** The server's closed-loop req/s with wrk (-t1 -c50), its ceiling on its core. */
function wrkCeiling(seconds) {
  if (!hasWrk) return null;
  const r = spawnSync('taskset', ['-c', LOADER.join(','), 'wrk', '-t1', '-c50', `-d${seconds}s`, `${srv.url}/ping`], { encoding: 'utf8' });
  return Number(/Requests\/sec:\s+([\d.]+)/.exec(r.stdout)?.[1]);
}

/** One window of a driver at `rate`, with the engine's CPU sampled around its measured part. */
async function viaDriver(name, rate) {
  const sampler = new TreeSampler(srv.pid, LOADER, SERVER, 1);
  let res;
  let t0 = 0;
  let wall = 0;
  const out = await drivers[name].run({
    baseUrl: srv.url,
    requests: request,
    connections: 50,
    warmupSec: warmup,
    durationSec: duration,
    rate,
    openLoop: true,
    timeoutSec: 10,
    expectStatus: [200],
    pin: pin(LOADER),
    onMeasureStart: (pid) => {
      t0 = performance.now();
      sampler.windowStart(pid);
    },
    onMeasureEnd: () => {
      wall = (performance.now() - t0) / 1000;
      res = sampler.windowEnd();
    },
  });
  sampler.stop();
  const corrected = latencyOf(out.openLoop.corrected);
  const sends = out.requests + out.errors + out.timeouts + out.openLoop.dropped;
  return {
    achieved: out.requests / out.durationSec,
    // Over the sampled span (a k6 process is sampled from its spawn, its VUs' start-up included).
    cpu: res.loaderCpuSeconds / wall,
    busy: res.loaderBusiestCore,
    server: res.serverCoreShare,
    p50: corrected.p50,
    p99: corrected.p99,
    late: sends ? out.openLoop.late / sends : 0,
    unsent: Math.max(0, Math.floor(rate * duration) - out.requests),
    own: null,
  };
}

/**
 * A command sampled around its measured part: between its `measure-start` and `measure-end` stdout
 * lines (`marked`), or from its spawn to `measureSec` (+ 50 ms) later or its exit, whichever is first
 * (oha writes its CSV after its last answer, one line per write: not load).
 */
function sampled(argv, o = {}) {
  return new Promise((resolve, reject) => {
    const sampler = new TreeSampler(srv.pid, LOADER, SERVER, 1);
    const child = spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'], env: { ...env, ...o.env } });
    let out = '';
    let err = '';
    let res;
    let started = false;
    let t0 = performance.now();
    let wallSec = 0;
    const start = () => {
      started = true;
      t0 = performance.now();
      sampler.windowStart(child.pid);
    };
    const end = () => {
      if (res || !started) return;
      wallSec = (performance.now() - t0) / 1000;
      res = sampler.windowEnd();
    };
    if (!o.marked)
      child.once('spawn', () => {
        start();
        if (o.measureSec) setTimeout(end, o.measureSec * 1000 + 50);
      });
    child.stdout.setEncoding('utf8').on('data', (c) => {
      out += c;
      if (o.marked && out.includes('measure-start\n') && !started) start();
      if (o.marked && out.includes('measure-end\n')) end();
    });
    child.stderr.setEncoding('utf8').on('data', (c) => (err += c));
    child.once('error', reject);
    child.once('exit', (code) => {
      end();
      sampler.stop();
      if (code !== 0) return reject(new Error(`${argv.join(' ')} exited ${code}: ${err.slice(-400)}`));
      resolve({ out, res, wallSec });
    });
  });
}

/**
 * oha with its own --latency-correction, CSV: each row's duration runs from the ticker's wake-up
 * (what oha reports), and from the same rows the latency from the schedule (its send plus the time
 * to its first byte, minus k ÷ rate): the two clocks on the same requests.
 */
async function ohaOwn(rate) {
  const bin = findOha();
  const dir = mkdtempSync(join(tmpdir(), 'bench-oha-'));
  const csv = join(dir, 'out.csv');
  const base = ['--no-tui', '--output-format=csv', `--output=${csv}`, '-w', '-t', '10s', '-c', String(inFlight(rate)), '-q', String(rate), '--latency-correction', `${srv.url}/ping`];
  const ohaEnv = { TOKIO_WORKER_THREADS: '1', NO_COLOR: '1' };
  try {
    if (warmup > 0) await sampled([...pin(LOADER), bin, '-z', `${warmup * 1000}ms`, ...base], { env: ohaEnv });
    const { res, wallSec } = await sampled([...pin(LOADER), bin, '-z', `${duration * 1000}ms`, ...base], { env: ohaEnv, measureSec: duration });
    const own = createHistogram();
    const fromSchedule = createHistogram();
    let k = 0;
    let late = 0;
    for (const line of readFileSync(csv, 'utf8').split('\n')) {
      const f = line.split(',');
      if (f.length < 7 || f[0] === 'request-start') continue;
      const [start, firstByte, took] = [Number(f[0]), Number(f[3]), Number(f[4])];
      own.recordValue(Math.max(1, Math.round(took * 1e6)));
      const due = k / rate;
      fromSchedule.recordValue(Math.max(1, Math.round((start + firstByte - due) * 1e6)));
      if (start - due > 0.002) late++;
      k++;
    }
    const l = latencyOf(fromSchedule);
    return {
      achieved: k / duration,
      cpu: res.loaderCpuSeconds / wallSec,
      busy: res.loaderBusiestCore,
      server: res.serverCoreShare,
      p50: l.p50,
      p99: l.p99,
      late: k ? late / k : 0,
      unsent: Math.max(0, Math.floor(rate * duration) - k),
      own: latencyOf(own).p99,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function autocannonRate(rate) {
  const helper = fileURLToPath(new URL('./_autocannon-rate.mjs', import.meta.url));
  const job = { url: `${srv.url}/ping`, rate, connections: inFlight(rate), durationSec: duration, warmupSec: Math.max(warmup, 0.5) };
  const { out, res } = await sampled([...pin(LOADER), process.execPath, helper, JSON.stringify(job)], { marked: true });
  const j = JSON.parse(out.trim().split('\n').at(-1));
  const wall = j.wallSec;
  return {
    achieved: j.requests / duration,
    cpu: res.loaderCpuSeconds / wall,
    busy: res.loaderBusiestCore,
    server: res.serverCoreShare,
    p50: j.p50,
    p99: j.p99,
    late: j.requests ? j.late / j.requests : 0,
    early: j.requests ? j.early / j.requests : 0,
    unsent: Math.max(0, Math.floor(rate * duration) - j.requests),
    own: j.ownP99,
  };
}

const engines = {
  oha: { label: 'oha (driver; latency from the schedule)', run: (r) => viaDriver('oha', r), ok: Boolean(findOha()) },
  'oha-own': { label: 'oha --latency-correction (own p99 from the ticker’s wake-up)', run: ohaOwn, ok: Boolean(findOha()) },
  autocannon: { label: 'autocannon overallRate (its correction on)', run: autocannonRate, ok: true },
  vegeta: { label: 'vegeta (driver)', run: (r) => viaDriver('vegeta', r), ok: (await drivers.vegeta.available()) === true },
  k6: { label: 'k6 constant-arrival-rate (driver)', run: (r) => viaDriver('k6', r), ok: (await drivers.k6.available()) === true },
};
const chosen = args.engines.split(',').filter((e) => {
  if (!engines[e]) throw new Error(`unknown engine "${e}"; expected: ${Object.keys(engines).join(', ')}`);
  return true;
});

// A seeded order per round (mulberry32), so a rerun with the same seed measures in the same order.
let seed = Number(args.seed) >>> 0;
const random = () => {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = Math.imul(seed ^ (seed >>> 15), seed | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const shuffle = (xs) => {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
};

const started = new Date();
log(`node:http (contract A, GET /ping) ${srv.url} on cpu ${SERVER}, engines on cpu ${LOADER}; ${duration}-s windows after ${warmup} s of warm-up, rates ${rates.join(', ')}, ${rounds} round(s)`);
wrkCeiling(3); // JIT warm-up of the server
const ceilingBefore = wrkCeiling(5);
const steal0 = cpuTimes([...SERVER, ...LOADER]);
const cells = new Map();
for (let round = 1; round <= rounds; round++) {
  for (const e of shuffle(chosen)) {
    if (!engines[e].ok) continue;
    for (const rate of rates) {
      const r = await engines[e].run(rate);
      const key = `${e} ${rate}`;
      cells.set(key, [...(cells.get(key) ?? []), r]);
      log(
        `round ${round} ${e} @ ${rate}: ${Math.round(r.achieved)} req/s, cpu ${r.cpu.toFixed(2)}, busy ${(r.busy * 100).toFixed(0)}%, server ${(r.server * 100).toFixed(0)}%, p99 ${(r.p99 / 1000).toFixed(2)} ms`,
      );
    }
  }
}
const steal1 = cpuTimes([...SERVER, ...LOADER]);
const ceilingAfter = wrkCeiling(5);

const med = (xs) => (xs.some((x) => x == null) ? null : median(xs));
const fmt = (x, f) => (x == null || Number.isNaN(x) ? '–' : f(x));
const ms = (us) => (us >= 100_000 ? `${Math.round(us / 1000)} ms` : `${(us / 1000).toFixed(2)} ms`);
const pct = (x) => `${(x * 100).toFixed(x < 0.01 && x > 0 ? 2 : 0)}%`;
const int = (x) => Math.round(x).toLocaleString('en-US');
console.log(`\n## Open-loop engines against node:http (${started.toISOString()}, ${rounds} round(s) of ${duration}-s windows, medians over rounds)\n`);
console.log(
  `server ceiling, closed loop (wrk -t1 -c50, before/after): ${fmt(ceilingBefore, int)} / ${fmt(ceilingAfter, int)} req/s; CPU steal over the run ${pct((steal1.steal - steal0.steal) / Math.max(1, steal1.total - steal0.total))}\n`,
);
console.log(
  '| engine | offered req/s | achieved req/s | engine CPU (cores) | engine core busy (others on it) | server core busy | p50 from intended send | p99 from intended send | late sends | unsent | engine’s own p99 |',
);
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
const ceilings = [];
for (const e of chosen) {
  if (!engines[e].ok) {
    console.log(`| ${engines[e].label} | not available | | | | | | | | | |`);
    continue;
  }
  let ceiling = 0;
  let limit = '';
  for (const rate of rates) {
    const rs = cells.get(`${e} ${rate}`) ?? [];
    const m = (f) => med(rs.map(f));
    const achieved = m((r) => r.achieved);
    const busy = m((r) => r.busy);
    const late = m((r) => r.late);
    const early = m((r) => r.early ?? null);
    // What else used the engine's core in its window (the runner, other processes): busy − the engine's CPU.
    const others = m((r) => Math.max(0, r.busy - r.cpu));
    const row = [
      engines[e].label,
      int(rate),
      int(achieved),
      fmt(
        m((r) => r.cpu),
        (x) => x.toFixed(2),
      ),
      `${fmt(busy, pct)} (${fmt(others, pct)})`,
      fmt(
        m((r) => r.server),
        pct,
      ),
      ms(m((r) => r.p50)),
      ms(m((r) => r.p99)),
      `${fmt(late, pct)}${early != null ? ` (early ${pct(early)})` : ''}`,
      int(m((r) => r.unsent)),
      fmt(
        m((r) => r.own),
        ms,
      ),
    ];
    console.log(`| ${row.join(' | ')} |`);
    const cpu = m((r) => r.cpu);
    const keptUp = achieved >= rate * 0.95 && cpu < 0.9;
    if (keptUp && !limit) ceiling = rate;
    else if (!limit) limit = m((r) => r.server) >= 0.95 ? 'the server (its core full)' : cpu >= 0.9 ? 'the engine (its core full)' : 'neither core full';
  }
  ceilings.push(`${e}: ${ceiling ? `${int(ceiling)} req/s` : `under ${int(rates[0])}`}${limit ? ` (next rate limited by ${limit})` : ''}`);
}
console.log(`\nkept up (achieved ≥ 95% of the offered rate, engine under 90% of its core) up to: ${ceilings.join('; ')}`);
await srv.stop();
