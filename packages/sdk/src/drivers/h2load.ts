import { execFile, spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHistogram } from '../histogram.js';
import { guardProcessGroup, guardTempDir } from '../process.js';
import type { Driver, DriverRunOptions, DriverRunResult } from '../driver.js';
import type { RequestSpec } from '../scenario.js';

/** Where h2load is (Debian's `nghttp2-client`), or null. `BENCHSUITE_H2LOAD` names another binary. */
export function findH2load(env: NodeJS.ProcessEnv = process.env): string | null {
  if (env.BENCHSUITE_H2LOAD !== undefined) {
    try {
      accessSync(env.BENCHSUITE_H2LOAD, constants.X_OK);
      return env.BENCHSUITE_H2LOAD;
    } catch {
      return null;
    }
  }
  const r = spawnSync('sh', ['-c', 'command -v h2load'], { encoding: 'utf8', env });
  return r.status === 0 && r.stdout.trim() ? r.stdout.trim() : null;
}

/**
 * Why h2load cannot send these requests, or undefined when it can: one h2load process sends one
 * method, one set of headers and one body (`-d`) on every request; only the paths may differ
 * (sent in turn on each connection, as the other drivers send a scenario's requests).
 */
export function h2loadCannotSend(requests: readonly Pick<RequestSpec, 'method' | 'headers' | 'body'>[]): string | undefined {
  const first = requests[0];
  if (!first) return 'no request to send';
  const same = (r: Pick<RequestSpec, 'method' | 'headers' | 'body'>) =>
    r.method === first.method && r.body === first.body && JSON.stringify(Object.entries(r.headers).sort()) === JSON.stringify(Object.entries(first.headers).sort());
  if (!requests.every(same)) return 'its requests differ in method, headers or body (h2load sends one method, header set and body per run; only paths may differ)';
  return undefined;
}

/** h2load's command line for one run (URLs last). `mode`: a timed window with its settle, a fixed count, or a settle alone. */
function h2loadArgs(o: DriverRunOptions, files: { log?: string; body?: string }, mode: { kind: 'timed'; settleSec: number; sec: number } | { kind: 'count'; n: number }): string[] {
  const r = o.requests[0]!;
  const threads = Math.max(1, Math.min(o.connections, o.pin.length ? o.pin.at(-1)!.split(',').length : 1));
  const ms = (s: number) => `${Math.max(1, Math.round(s * 1000))}ms`;
  return [
    '--h1',
    '-t',
    String(threads),
    '-c',
    String(o.connections),
    '-m',
    '1',
    // No per-request timeout exists: a connection with nothing to read for this long is closed and
    // its request counted as timed out.
    '-N',
    ms(o.timeoutSec),
    ...(mode.kind === 'timed' ? ['-D', ms(mode.sec), ...(mode.settleSec > 0 ? ['--warm-up-time', ms(mode.settleSec)] : [])] : ['-n', String(mode.n)]),
    ...(files.log ? [`--log-file=${files.log}`] : []),
    ...(files.body ? ['-d', files.body] : []),
    // h2load sends GET, or POST with -d; another method replaces its :method header.
    ...(r.method !== (files.body ? 'POST' : 'GET') ? ['-H', `:method: ${r.method}`] : []),
    ...Object.entries(r.headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`]),
    ...o.requests.map((x) => o.baseUrl + x.path),
  ];
}

/** What h2load printed: its measured seconds and request counters. */
interface H2loadSummary {
  /** Seconds of the measured part: a timed run's main duration (its settle excluded), or a fixed count's whole run. */
  durationSec: number;
  done: number;
  errored: number;
  timeout: number;
}

const UNIT_SEC: Record<string, number> = { us: 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };

/**
 * `finished in 2.00s, 21520.00 req/s, …` and `requests: N total, N started, N done, N succeeded,
 * N failed, N errored, N timeout`. "finished in" counts a timed run's warm-up too, but its req/s
 * is done ÷ the main duration, so the measured seconds are done ÷ req/s (`mainSec` when nothing
 * was done). "failed" counts responses of status 4xx/5xx as well; "errored" only requests without
 * a response, timed-out ones included.
 */
function parseH2loadSummary(stdout: string, mainSec?: number): H2loadSummary {
  const fin = /finished in ([\d.]+)(us|ms|s|m|h), ([\d.]+) req\/s/.exec(stdout);
  const req = /requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored, (\d+) timeout/.exec(stdout);
  if (!fin || !req) throw new Error(`h2load printed no summary: ${stdout.trim().slice(-400)}`);
  const done = Number(req[3]);
  const rps = Number(fin[3]);
  const finished = Number(fin[1]) * UNIT_SEC[fin[2]!]!;
  return { durationSec: done > 0 && rps > 0 ? done / rps : (mainSec ?? finished), done, errored: Number(req[6]), timeout: Number(req[7]) };
}

/**
 * A window's figures from h2load's per-request log (`--log-file`: start µs since the epoch, status,
 * µs to the end of the response; status -1 for a stream that failed) and its summary. Latency is
 * recorded per response at µs resolution; the summary gives the measured seconds and the errors
 * and timeouts, which include requests that never got a stream.
 */
function parseH2loadLog(log: string, summary: H2loadSummary, expectStatus: readonly number[]): DriverRunResult {
  const histogram = createHistogram();
  const statusCounts: Record<string, number> = {};
  const expected = new Set(expectStatus);
  let requests = 0;
  let non2xx = 0;
  let unexpected = 0;
  for (const line of log.split('\n')) {
    if (!line) continue;
    const [, code = '', us = ''] = line.split('\t');
    const status = Number(code);
    if (!(status > 0)) continue;
    requests++;
    histogram.recordValue(Math.max(1, Math.round(Number(us))));
    statusCounts[code] = (statusCounts[code] ?? 0) + 1;
    if (status < 200 || status >= 300) non2xx++;
    if (!expected.has(status)) unexpected++;
  }
  return {
    requests,
    durationSec: summary.durationSec,
    histogram,
    statusCounts,
    errors: Math.max(0, summary.errored - summary.timeout),
    timeouts: summary.timeout,
    non2xx,
    unexpected,
  };
}

const MAIN_STARTED = 'Main benchmark duration is started';
const MAIN_OVER = 'Main benchmark duration is over';

/**
 * One h2load process. A timed window with a settle runs in one process (`--warm-up-time`), its
 * measured edges read from h2load's own lines; otherwise the window runs from spawn to exit.
 */
function runH2load(bin: string, o: DriverRunOptions, args: string[], hooks: { start?: (pid: number) => void; end?: (pid: number) => void; edgesFromOutput?: boolean } = {}): Promise<string> {
  const argv = [...o.pin, bin, ...args];
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    guardProcessGroup(child);
    let out = '';
    let err = '';
    let started = false;
    let ended = false;
    const start = () => {
      if (started) return;
      started = true;
      hooks.start?.(child.pid!);
    };
    const end = () => {
      if (ended || !started) return;
      ended = true;
      hooks.end?.(child.pid!);
    };
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      out += c;
      if (hooks.edgesFromOutput) {
        if (out.includes(MAIN_STARTED)) start();
        if (out.includes(MAIN_OVER)) end();
      }
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => (err = (err + c).slice(-2000)));
    const abort = () => child.kill('SIGKILL');
    o.signal?.addEventListener('abort', abort, { once: true });
    child.once('spawn', () => {
      if (!hooks.edgesFromOutput) start();
    });
    child.once('error', reject);
    // At 'close', not 'exit': its output is read to the end only once its pipes have closed.
    child.once('close', (code, signal) => {
      start();
      end();
      o.signal?.removeEventListener('abort', abort);
      if (o.signal?.aborted) return reject(new Error('interrupted'));
      if (code !== 0 && !out.includes('finished in')) return reject(new Error(`h2load failed (${signal ?? `exit ${code}`}): ${(err || out).trim().slice(-500)}`));
      resolve(out);
    });
  });
}

let h2loadVersion: Promise<string> | undefined;

/**
 * h2load (nghttp2's C load generator, Debian's `nghttp2-client`) over HTTP/1.1 (`--h1`), one
 * request in flight per connection: exact request counts (`-n`), timed windows (`-D`, with its
 * settle in the same process via `--warm-up-time`), and every response's time in µs from its
 * per-request log. Its time per request is the lowest of the drivers here, which is what a load
 * at one or a few connections needs: there the loader's own time sits in every round trip.
 */
export const h2loadDriver: Driver = {
  name: 'h2load',
  ceilingRps: 160_000,
  capabilities: { capRate: false, fixedRequests: true, microsecondLatency: true, threads: 'per-loader-core', uniformRequests: true, lowOverhead: true },
  note: 'h2load sends one method, header set and body per run (a scenario whose requests differ in those needs another driver); it cannot cap the rate; a timeout is a connection with nothing to read for the scenario timeout (-N), which closes it.',
  async available() {
    return findH2load() ? true : 'h2load not found on PATH (benchsuite setup h2load installs Debian’s nghttp2-client)';
  },
  version() {
    h2loadVersion ??= new Promise((resolve) => {
      const bin = findH2load();
      if (!bin) return resolve('unknown');
      execFile(bin, ['--version'], (_e, stdout) => resolve(/nghttp2\/(\S+)/.exec(String(stdout))?.[1] ?? 'unknown'));
    });
    return h2loadVersion;
  },
  flags(o) {
    return [
      '--h1',
      '-t',
      '<loader cores, at most the connections>',
      '-c',
      String(o.connections),
      '-m',
      '1',
      '-N',
      `${o.timeoutSec}s`,
      ...(o.requestCount ? [`warmup=${o.warmupSec}s (-D)`, '-n', String(o.requestCount)] : ['-D', `${o.durationSec}s`, '--warm-up-time', `${o.warmupSec}s`]),
      '--log-file',
    ];
  },
  async run(o) {
    if (o.rate) throw new Error('h2load cannot cap the request rate; use the autocannon driver for scenarios with load.rate');
    const cannot = h2loadCannotSend(o.requests);
    if (cannot) throw new Error(`h2load cannot send this scenario: ${cannot}`);
    const bin = findH2load();
    if (!bin) throw new Error('h2load not found on PATH (benchsuite setup h2load installs it)');
    const dir = guardTempDir(mkdtempSync(join(tmpdir(), 'benchsuite-h2load-')));
    try {
      const log = join(dir, 'requests.tsv');
      const body = o.requests[0]!.body !== undefined ? join(dir, 'body') : undefined;
      if (body) writeFileSync(body, o.requests[0]!.body!);
      const measure = { start: o.onMeasureStart, end: o.onMeasureEnd };
      let out: string;
      if (o.requestCount) {
        if (o.warmupSec > 0) await runH2load(bin, o, h2loadArgs(o, { body }, { kind: 'timed', settleSec: 0, sec: o.warmupSec }));
        out = await runH2load(bin, o, h2loadArgs(o, { log, body }, { kind: 'count', n: o.requestCount }), measure);
      } else {
        out = await runH2load(bin, o, h2loadArgs(o, { log, body }, { kind: 'timed', settleSec: o.warmupSec, sec: o.durationSec }), { ...measure, edgesFromOutput: o.warmupSec > 0 });
      }
      return parseH2loadLog(readFileSync(log, 'utf8'), parseH2loadSummary(out, o.requestCount ? undefined : o.durationSec), o.expectStatus);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
