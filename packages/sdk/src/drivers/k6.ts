import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findGoTool } from '../cache.js';
import { DEFAULTS } from '../defaults.js';
import { histogramFromTrend, k6Script, K6_MIN_SECONDS, MEASURE_MARKERS, parseK6Summary, type ClosedLoad, type OpenLoad } from '../k6/script.js';
import { guardProcessGroup, guardTempDir } from '../process.js';
import type { Driver, DriverRunOptions, DriverRunResult } from '../driver.js';

/** Where k6 is (see `findGoTool`): null when it is not installed. */
export function findK6(env: NodeJS.ProcessEnv = process.env): string | null {
  return findGoTool('k6', env);
}

/** The load a window asks for, as the script's executor sees it. */
function k6Load(o: Pick<DriverRunOptions, 'connections' | 'rate' | 'openLoop' | 'timeoutSec'>): ClosedLoad | OpenLoad {
  if (!o.openLoop || !o.rate) return { kind: 'closed', connections: [o.connections] };
  // In flight at once: the connections asked for, or as many as a second of arrivals when the
  // server stalls, so a stall shows up as latency instead of as sends that never happened.
  const maxInFlight = Math.max(o.connections, Math.min(DEFAULTS.openLoop.maxInFlight, Math.ceil(o.rate * DEFAULTS.openLoop.inFlightSec)));
  // All allocated up front: a virtual user made mid-window costs a script init, and its sends wait for it.
  return { kind: 'open', rate: o.rate, preAllocated: maxInFlight, maxInFlight };
}

/**
 * Run one script. A measured run's resource window is its measured phase only: the script logs
 * a marker from `setup()` (every virtual user made) and from `teardown()` (the scenario over), and
 * the sampler starts and stops on them, so neither the users' start-up nor the summary dilutes
 * the server's core share over a rate taken from the test's own duration.
 */
function runK6(bin: string, o: DriverRunOptions, script: string, mode: 'warmup' | 'measure'): Promise<string> {
  const env: NodeJS.ProcessEnv = { ...process.env, BASE_URL: o.baseUrl, K6_NO_USAGE_REPORT: 'true', ...(mode === 'measure' ? { BS_MARKERS: '1' } : {}) };
  const argv = [...o.pin, bin, 'run', '--quiet', '--no-color', '--log-output=stderr', script];
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'], env, detached: true });
    guardProcessGroup(child);
    let out = '';
    let err = '';
    let line = '';
    let phase: 'before' | 'measuring' | 'after' = 'before';
    const onLine = (l: string) => {
      if (mode !== 'measure') return;
      if (phase === 'before' && l.includes(MEASURE_MARKERS.start)) {
        phase = 'measuring';
        o.onMeasureStart?.(child.pid!);
      } else if (phase === 'measuring' && l.includes(MEASURE_MARKERS.end)) {
        phase = 'after';
        o.onMeasureEnd?.(child.pid!);
      }
    };
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      err = (err + c).slice(-3000);
      const lines = (line + c).split('\n');
      line = lines.pop()!;
      for (const l of lines) onLine(l);
    });
    const abort = () => child.kill('SIGKILL');
    o.signal?.addEventListener('abort', abort, { once: true });
    child.once('error', reject);
    // At 'close', not 'exit': its output is read to the end only once its pipes have closed.
    child.once('close', (code, signal) => {
      if (line) onLine(line);
      // An end marker lost (k6 killed in its teardown): the window ends here.
      if (phase === 'measuring') o.onMeasureEnd?.(child.pid!);
      o.signal?.removeEventListener('abort', abort);
      if (o.signal?.aborted) return reject(new Error('interrupted'));
      // k6 exits 99 when a threshold fails; the script's only threshold always holds.
      if (code !== 0 || !out.includes('@@BS ')) return reject(new Error(`k6 failed (${signal ?? `exit ${code}`}): ${(err || out).trim().slice(-600)}`));
      if (mode === 'measure' && phase === 'before') return reject(new Error(`k6 logged no "${MEASURE_MARKERS.start}" from the script's setup(): the measured phase is unknown`));
      resolve(out);
    });
  });
}

let k6Version: Promise<string> | undefined;

/**
 * k6 (Go, goja scripts) from the Go module proxy: closed loop (`constant-vus`) or open loop
 * (`constant-arrival-rate`, latency also from each request's intended send time, late and dropped
 * sends counted). Its ceiling is far below wrk's (about 5k req/s per core open loop here, vegeta ~20k): use it for
 * open-loop load, rates, and the scripts that run on the k6-operator.
 */
export const k6Driver: Driver = {
  name: 'k6',
  // Measured open loop on the project's machine (npm run bench:open-loop): ~5k req/s per core.
  ceilingRps: 5_000,
  openLoopCeilingRps: 2_000,
  capabilities: { capRate: true, openLoop: true, microsecondLatency: true, threads: 'per-loader-core' },
  note: 'k6 runs windows of at least 1 s (shorter ones are lengthened); its latency comes from a grid of ~300 exact quantiles printed by the script; an open-loop send later than its schedule by more than 2 ms (k6 scripts read a ms clock) counts as late.',
  async available() {
    return findK6() ? true : 'k6 not found (benchsuite setup k6 builds it from the Go module proxy)';
  },
  version() {
    k6Version ??= new Promise((resolve) => {
      const bin = findK6();
      if (!bin) return resolve('unknown');
      execFile(bin, ['version'], (_err, stdout) => resolve(/k6 v?(\S+)/.exec(String(stdout))?.[1] ?? 'unknown'));
    });
    return k6Version;
  },
  flags(o) {
    const load = k6Load({ ...o, connections: o.connections, openLoop: o.openLoop ?? false });
    return load.kind === 'open'
      ? [
          'executor=constant-arrival-rate',
          `rate=${load.rate}/s`,
          `preAllocatedVUs=${load.preAllocated}`,
          `maxVUs=${load.maxInFlight}`,
          `duration=${Math.max(K6_MIN_SECONDS, o.durationSec)}s`,
          `warmup=${o.warmupSec}s`,
        ]
      : ['executor=constant-vus', `vus=${o.connections}`, `duration=${Math.max(K6_MIN_SECONDS, o.durationSec)}s`, `warmup=${o.warmupSec}s`];
  },
  async run(o): Promise<DriverRunResult> {
    const bin = findK6();
    if (!bin) throw new Error('k6 not found (benchsuite setup k6 builds it from the Go module proxy)');
    const dir = guardTempDir(mkdtempSync(join(tmpdir(), 'benchsuite-k6-')));
    try {
      const load = k6Load(o);
      const write = (name: string, durationSec: number) => {
        const file = join(dir, name);
        writeFileSync(file, k6Script({ requests: o.requests, expectStatus: o.expectStatus, load, durationSec, timeoutSec: o.timeoutSec }));
        return file;
      };
      if (o.warmupSec > 0) await runK6(bin, o, write('warmup.js', o.warmupSec), 'warmup');
      const s = parseK6Summary(await runK6(bin, o, write('measure.js', o.durationSec), 'measure'));
      return summaryToResult(s);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

/** A script summary as the figures every driver returns. */
function summaryToResult(s: ReturnType<typeof parseK6Summary>): DriverRunResult {
  const histogram = histogramFromTrend(s.latency);
  let non2xx = 0;
  for (const [code, n] of Object.entries(s.statusCounts)) if (!code.startsWith('2')) non2xx += n;
  const durationSec = s.durationMs / 1000;
  return {
    requests: histogram.totalCount,
    durationSec,
    histogram,
    statusCounts: s.statusCounts,
    errors: s.errors,
    timeouts: s.timeouts,
    non2xx,
    unexpected: s.unexpected,
    ...(s.corrected ? { openLoop: { corrected: histogramFromTrend(s.corrected), late: s.late, dropped: s.dropped } } : {}),
  };
}
