import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findCargoTool } from '../cache.js';
import { DEFAULTS } from '../defaults.js';
import type { Driver, DriverRunOptions, DriverRunResult } from '../driver.js';
import { createHistogram } from '../histogram.js';
import { isLoaderError } from '../loader-errors.js';
import { guardProcessGroup, guardTempDir } from '../process.js';

/** Where oha is (see `findCargoTool`): null when it is not installed. */
export function findOha(env: NodeJS.ProcessEnv = process.env): string | null {
  return findCargoTool('oha', env);
}

/** Connections: the ones asked for, or a second of arrivals when the server stalls (as for vegeta and k6). */
function connectionsOf(o: Pick<DriverRunOptions, 'connections' | 'rate' | 'openLoop'>): number {
  if (!o.openLoop || !o.rate) return o.connections;
  return Math.max(o.connections, Math.min(DEFAULTS.openLoop.maxInFlight, Math.ceil(o.rate * DEFAULTS.openLoop.inFlightSec)));
}

/**
 * Open loop writes oha's CSV (one row per answered request with its send time: latency from the
 * intended send needs it); closed loop its JSON summary, the only output that counts failed sends
 * (`errorDistribution`).
 */
const formatOf = (o: Pick<DriverRunOptions, 'rate' | 'openLoop'>): 'csv' | 'json' => (o.openLoop && o.rate ? 'csv' : 'json');

function ohaArgs(o: DriverRunOptions, seconds: number, out: string, bodyFile: string | undefined): string[] {
  const r = o.requests[0]!;
  return [
    '--no-tui',
    `--output-format=${formatOf(o)}`,
    `--output=${out}`,
    `-z`,
    `${Math.max(1, Math.round(seconds * 1000))}ms`,
    // Requests in flight at the deadline are waited for, not counted as errors.
    '-w',
    '-c',
    String(connectionsOf(o)),
    ...(o.rate ? ['-q', String(o.rate)] : []),
    '-t',
    `${Math.ceil(o.timeoutSec)}s`,
    '-m',
    r.method,
    ...Object.entries(r.headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`]),
    ...(bodyFile ? ['-D', bodyFile] : []),
    o.baseUrl + r.path,
  ];
}

/** How long after its schedule's end oha's measured part is taken to end: its start-up and the last answers. */
const MEASURE_TAIL_MS = 50;

/**
 * Run oha. The measured part is sampled from its spawn to `measureSec` (+ `MEASURE_TAIL_MS`) later,
 * or its exit if sooner: after its last answer oha writes its CSV one line per write, which took
 * 2.5 s of system time for 140,000 rows here, and must not count as load.
 */
function run(bin: string, args: string[], o: DriverRunOptions, hooks: { start?: (pid: number) => void; end?: (pid: number) => void; measureSec?: number } = {}): Promise<void> {
  const argv = [...o.pin, bin, ...args];
  // One tokio worker thread: the loader is one core's worth, measured as such (`threads: 'one'`).
  const env = { ...process.env, TOKIO_WORKER_THREADS: '1', NO_COLOR: '1' };
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'ignore', 'pipe'], detached: true, env });
    guardProcessGroup(child);
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (c: string) => (err = (err + c).slice(-2000)));
    const abort = () => child.kill('SIGKILL');
    o.signal?.addEventListener('abort', abort, { once: true });
    let ended = false;
    let timer: NodeJS.Timeout | undefined;
    const end = () => {
      if (ended) return;
      ended = true;
      clearTimeout(timer);
      hooks.end?.(child.pid!);
    };
    child.once('spawn', () => {
      hooks.start?.(child.pid!);
      if (hooks.measureSec !== undefined) timer = setTimeout(end, hooks.measureSec * 1000 + MEASURE_TAIL_MS);
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      end();
      o.signal?.removeEventListener('abort', abort);
      if (o.signal?.aborted) return reject(new Error('interrupted'));
      if (code !== 0) return reject(new Error(`oha failed (${signal ?? `exit ${code}`}): ${err.trim().slice(-500)}`));
      resolve();
    });
  });
}

/**
 * Figures from oha's CSV (`request-start,DNS,DNS+dialup,Response-delay,request-duration,bytes,status`,
 * one row per answered request, sorted by its send, seconds from the start of oha's schedule).
 * Run without `--latency-correction`, so a row's duration runs from its actual send and its end is
 * exact. Open loop: oha's ticker releases send k at k ÷ rate (it cannot leave earlier), so the k-th
 * send in time is due then; its latency from the intended send is its end minus that, and it was
 * late when it left more than `lateSendMs` after it. oha lists answered requests only: scheduled
 * sends that never left and sends that got no answer are both counted as dropped.
 */
export function parseOhaCsv(csv: string, o: { expectStatus: readonly number[]; rate?: number | undefined; openLoop?: boolean | undefined; durationSec: number }): DriverRunResult {
  const histogram = createHistogram();
  const corrected = createHistogram();
  const statusCounts: Record<string, number> = {};
  const expected = new Set(o.expectStatus);
  const open = Boolean(o.openLoop && o.rate);
  let requests = 0;
  let non2xx = 0;
  let unexpected = 0;
  let late = 0;
  for (const line of csv.split('\n')) {
    const f = line.split(',');
    if (f.length < 7 || f[0] === 'request-start') continue;
    const start = Number(f[0]);
    const duration = Number(f[4]);
    const code = Number(f[6]);
    if (!Number.isFinite(start) || !Number.isFinite(duration)) continue;
    histogram.recordValue(Math.max(1, Math.round(duration * 1e6)));
    statusCounts[String(code)] = (statusCounts[String(code)] ?? 0) + 1;
    if (code < 200 || code >= 300) non2xx++;
    if (!expected.has(code)) unexpected++;
    if (open) {
      const due = requests / o.rate!;
      corrected.recordValue(Math.max(1, Math.round((start + duration - due) * 1e6)));
      if (start - due > DEFAULTS.openLoop.lateSendMs / 1000) late++;
    }
    requests++;
  }
  const scheduled = open ? Math.floor(o.durationSec * o.rate!) : 0;
  return {
    requests,
    durationSec: o.durationSec,
    histogram,
    statusCounts,
    errors: 0,
    timeouts: 0,
    non2xx,
    unexpected,
    ...(open ? { openLoop: { corrected, late, dropped: Math.max(0, scheduled - requests) } } : {}),
  };
}

/** oha's JSON summary, the fields read (oha 1.x `--output-format json`; durations in seconds). */
interface OhaJson {
  summary?: { fastest?: number; slowest?: number };
  latencyPercentiles?: Record<string, number>;
  statusCodeDistribution?: Record<string, number>;
  errorDistribution?: Record<string, number>;
}

/** oha's message for a request its `-t` timeout ended, and for one its `-z` deadline cut (not counted: `-w` waits for those). */
const OHA_TIMEOUT = 'timeout';
const OHA_DEADLINE = 'aborted due to deadline';

/**
 * Figures from oha's JSON summary (closed loop). Responses and their statuses from
 * `statusCodeDistribution`; failed sends from `errorDistribution` (message → count): `timeout` is a
 * timeout, the loader's own failures (`isLoaderError`) are `loaderErrors`, every other message an
 * error. The summary keeps no per-request times, so the µs histogram is rebuilt from its quantiles
 * (p10 … p99.99, the fastest and the slowest): exact at those quantiles, stepped between them.
 */
export function parseOhaJson(text: string, o: { expectStatus: readonly number[]; durationSec: number }): DriverRunResult {
  const j = JSON.parse(text) as OhaJson;
  const statusCounts: Record<string, number> = {};
  const expected = new Set(o.expectStatus);
  let requests = 0;
  let non2xx = 0;
  let unexpected = 0;
  for (const [code, n] of Object.entries(j.statusCodeDistribution ?? {})) {
    statusCounts[code] = n;
    requests += n;
    if (!code.startsWith('2')) non2xx += n;
    if (!expected.has(Number(code))) unexpected += n;
  }
  let errors = 0;
  let timeouts = 0;
  let loaderErrors = 0;
  for (const [message, n] of Object.entries(j.errorDistribution ?? {})) {
    if (message === OHA_DEADLINE) continue;
    if (message === OHA_TIMEOUT) timeouts += n;
    else if (isLoaderError(message)) loaderErrors += n;
    else errors += n;
  }
  const histogram = createHistogram();
  const us = (sec: number) => Math.max(1, Math.round(sec * 1e6));
  const quantiles = Object.entries(j.latencyPercentiles ?? {})
    .map(([k, v]) => [Number(k.replace(/^p/, '')), v] as const)
    .filter(([p, v]) => Number.isFinite(p) && Number.isFinite(v))
    .sort((a, b) => a[0] - b[0]);
  if (requests > 0) {
    let ranked = 0;
    const add = (rank: number, sec: number) => {
      if (rank > ranked) histogram.recordValueWithCount(us(sec), rank - ranked);
      ranked = Math.max(ranked, rank);
    };
    if (j.summary?.fastest !== undefined) add(1, j.summary.fastest);
    // The slowest keeps the last rank: oha's p99.99 rounds to every request of a short window.
    for (const [p, v] of quantiles) add(Math.min(requests - 1, Math.round((requests * p) / 100)), v);
    add(requests, j.summary?.slowest ?? quantiles.at(-1)?.[1] ?? 0);
  }
  return { requests, durationSec: o.durationSec, histogram, statusCounts, errors, ...(loaderErrors ? { loaderErrors } : {}), timeouts, non2xx, unexpected };
}

let ohaVersion: Promise<string> | undefined;

/**
 * oha (Rust, tokio) from crates.io: open loop at a constant rate (`-q`; one send per tick of its
 * ticker, whatever the server does), or closed loop (`-c` connections, each waiting for its
 * answer). One tokio worker thread, so it is one core's loader. Every answered request comes back
 * with its send time, so latency from the intended send is computed from the schedule (oha's own
 * `--latency-correction` starts the clock at its ticker's wake-up, which a busy loader delays, so it
 * is not used). Measured here with `npm run bench:open-loop` (README): the highest open-loop ceiling
 * of the engines tried.
 */
export const ohaDriver: Driver = {
  name: 'oha',
  // Closed loop it is below autocannon's kept loader and wrk, so `auto` keeps those for closed loop.
  ceilingRps: 60_000,
  // Open loop it kept up with 40,000 req/s offered to node:http (38,219 delivered, the server's core
  // 98% busy, oha's 0.80 of its own): npm run bench:open-loop, 2026-11-27 01:38 UTC.
  openLoopCeilingRps: 40_000,
  capabilities: { capRate: true, openLoop: true, microsecondLatency: true, threads: 'one', oneRequest: true },
  note: "oha's ticker wakes on tokio's 1-ms timer, so open-loop sends leave in bursts of up to a millisecond's worth; latency is timed from each send's place in the schedule (k ÷ rate); oha lists answered requests only, so a send that never left and one that got no answer both count as dropped; closed loop reads its JSON summary, which counts failed sends (errors, timeouts, the loader's own) but keeps latency only at its quantiles (p10 … p99.99).",
  async available() {
    return findOha() ? true : 'oha not found (benchsuite setup oha builds it with cargo from crates.io, about 6.5 min)';
  },
  version() {
    ohaVersion ??= new Promise((resolve) => {
      const bin = findOha();
      if (!bin) return resolve('unknown');
      execFile(bin, ['--version'], (_e, stdout) => resolve(/oha\s+(\S+)/.exec(String(stdout))?.[1] ?? 'unknown'));
    });
    return ohaVersion;
  },
  flags(o) {
    return [
      ...(o.rate ? [`q=${o.rate}`] : ['closed loop']),
      `c=${connectionsOf({ ...o, openLoop: o.openLoop })}`,
      `z=${o.durationSec}s`,
      `warmup=${o.warmupSec}s`,
      `t=${Math.ceil(o.timeoutSec)}s`,
      'w (wait for requests in flight at the deadline)',
      'TOKIO_WORKER_THREADS=1',
    ];
  },
  async run(o) {
    const bin = findOha();
    if (!bin) throw new Error('oha not found (benchsuite setup oha builds it with cargo from crates.io, about 6.5 min)');
    const distinct = new Set(o.requests.map((r) => JSON.stringify([r.method, r.path, r.headers, r.body])));
    if (distinct.size > 1) throw new Error(`oha sends one request per run and this scenario has ${distinct.size}: use vegeta, k6 or wrk`);
    const dir = guardTempDir(mkdtempSync(join(tmpdir(), 'benchsuite-oha-')));
    try {
      const body = o.requests[0]!.body;
      const bodyFile = body !== undefined ? join(dir, 'body') : undefined;
      if (bodyFile) writeFileSync(bodyFile, body!);
      if (o.warmupSec > 0) await run(bin, ohaArgs(o, o.warmupSec, join(dir, `warmup.${formatOf(o)}`), bodyFile), o);
      const out = join(dir, `results.${formatOf(o)}`);
      await run(bin, ohaArgs(o, o.durationSec, out, bodyFile), o, { start: o.onMeasureStart, end: o.onMeasureEnd, measureSec: o.durationSec });
      const text = readFileSync(out, 'utf8');
      return formatOf(o) === 'csv' ? parseOhaCsv(text, o) : parseOhaJson(text, o);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
