import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULTS } from '../defaults.js';
import { createHistogram } from '../histogram.js';
import { isLoaderError } from '../loader-errors.js';
import { guardProcessGroup, guardTempDir } from '../process.js';
import type { Driver, DriverRunOptions, DriverRunResult } from '../driver.js';
import { findGoTool } from '../cache.js';

/** Where vegeta is (see `findGoTool`): null when it is not installed. */
export function findVegeta(env: NodeJS.ProcessEnv = process.env): string | null {
  return findGoTool('vegeta', env);
}

/** One target per request spec in vegeta's JSON target format (bodies base64), sent round-robin. */
function targets(o: DriverRunOptions): string {
  return `${o.requests
    .map((r) =>
      JSON.stringify({
        method: r.method,
        url: o.baseUrl + r.path,
        header: Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, [v]])),
        ...(r.body !== undefined ? { body: Buffer.from(r.body).toString('base64') } : {}),
      }),
    )
    .join('\n')}\n`;
}

/** In flight at once: the connections asked for, or a second of arrivals when the server stalls (as for k6). */
function maxInFlight(o: Pick<DriverRunOptions, 'connections' | 'rate' | 'openLoop'>): number {
  if (!o.openLoop || !o.rate) return o.connections;
  return Math.max(o.connections, Math.min(DEFAULTS.openLoop.maxInFlight, Math.ceil(o.rate * DEFAULTS.openLoop.inFlightSec)));
}

function attackArgs(o: DriverRunOptions, seconds: number, out: string, targetsFile: string): string[] {
  const open = Boolean(o.openLoop && o.rate);
  const workers = maxInFlight(o);
  return [
    'attack',
    '-format=json',
    `-targets=${targetsFile}`,
    // Closed loop: no rate, as many workers as connections, each waiting for its answer.
    open ? `-rate=${Math.round(o.rate!)}/s` : o.rate ? `-rate=${Math.round(o.rate)}/s` : '-rate=0',
    `-workers=${Math.min(workers, Math.max(o.connections, 1))}`,
    `-max-workers=${workers}`,
    `-max-connections=${workers}`,
    `-duration=${Math.max(0.001, seconds).toFixed(3)}s`,
    `-timeout=${Math.ceil(o.timeoutSec)}s`,
    '-http2=false',
    '-max-body=0',
    `-output=${out}`,
  ];
}

function run(bin: string, args: string[], o: DriverRunOptions, hooks: { start?: (pid: number) => void; end?: (pid: number) => void } = {}): Promise<string> {
  const argv = [...o.pin, bin, ...args];
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    guardProcessGroup(child);
    const chunks: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (err = (err + c).slice(-2000)));
    const abort = () => child.kill('SIGKILL');
    o.signal?.addEventListener('abort', abort, { once: true });
    child.once('spawn', () => hooks.start?.(child.pid!));
    child.once('error', reject);
    // At 'close', not 'exit': its output is read to the end only once its pipes have closed.
    child.once('close', (code, signal) => {
      hooks.end?.(child.pid!);
      o.signal?.removeEventListener('abort', abort);
      if (o.signal?.aborted) return reject(new Error('interrupted'));
      if (code !== 0) return reject(new Error(`vegeta failed (${signal ?? `exit ${code}`}): ${err.trim().slice(-500)}`));
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
  });
}

/**
 * Figures from `vegeta encode --to=csv` lines (timestamp ns, code, latency ns, bytes out, bytes in,
 * error, body, attack, seq, …). A row with no status failed: a timeout, the loader's own failure
 * (`isLoaderError`: `loaderErrors`) or an error. Open loop: request `seq` was due at T0 + seq/rate, where T0 is the
 * earliest `timestamp − seq/rate` (no send leaves before its time); its latency from the intended
 * send is its end minus that, and it was late when it left more than `lateSendMs` after it.
 * vegeta's pacer only counts a send once a worker took it, and stops at the duration: when every
 * worker (`-max-workers`) was busy, the schedule's remaining sends never left. They are the
 * dropped sends: the schedule's count over the attack's duration less the requests it made.
 */
export function parseVegetaCsv(
  csv: string,
  o: { expectStatus: readonly number[]; rate?: number | undefined; openLoop?: boolean | undefined; timeoutSec: number; durationSec: number },
): DriverRunResult {
  const histogram = createHistogram();
  const rows: Array<{ ts: number; code: number; lat: number; seq: number; err: string }> = [];
  for (const line of csv.split('\n')) {
    if (!line) continue;
    const f = line.split(',', 9);
    rows.push({ ts: Number(f[0]), code: Number(f[1]), lat: Number(f[2]), seq: Number(f[8]), err: f[5] ?? '' });
  }
  const statusCounts: Record<string, number> = {};
  const expected = new Set(o.expectStatus);
  let requests = 0;
  let errors = 0;
  let loaderErrors = 0;
  let timeouts = 0;
  let non2xx = 0;
  let unexpected = 0;
  const open = Boolean(o.openLoop && o.rate);
  const stepNs = open ? 1e9 / o.rate! : 0;
  const t0 = open && rows.length ? Math.min(...rows.map((r) => r.ts - r.seq * stepNs)) : 0;
  const corrected = createHistogram();
  let late = 0;
  let first = Number.POSITIVE_INFINITY;
  let last = 0;
  for (const r of rows) {
    first = Math.min(first, r.ts);
    if (r.code === 0) {
      if (/timeout|deadline/i.test(r.err)) timeouts++;
      else if (isLoaderError(r.err)) loaderErrors++;
      else errors++;
      continue;
    }
    requests++;
    last = Math.max(last, r.ts + r.lat);
    histogram.recordValue(Math.max(1, Math.round(r.lat / 1000)));
    statusCounts[String(r.code)] = (statusCounts[String(r.code)] ?? 0) + 1;
    if (r.code < 200 || r.code >= 300) non2xx++;
    if (!expected.has(r.code)) unexpected++;
    if (open) {
      const due = t0 + r.seq * stepNs;
      corrected.recordValue(Math.max(1, Math.round((r.ts + r.lat - due) / 1000)));
      if (r.ts - due > DEFAULTS.openLoop.lateSendMs * 1e6) late++;
    }
  }
  const durationSec = rows.length && last > first ? (last - first) / 1e9 : 0;
  const dropped = open ? Math.max(0, Math.floor(o.durationSec * o.rate!) - rows.length) : 0;
  return {
    requests,
    durationSec,
    histogram,
    statusCounts,
    errors,
    ...(loaderErrors ? { loaderErrors } : {}),
    timeouts,
    non2xx,
    unexpected,
    ...(open ? { openLoop: { corrected, late, dropped } } : {}),
  };
}

let vegetaVersion: Promise<string> | undefined;

/**
 * vegeta (Go) from the Go module proxy: open loop at a constant rate (`-rate`), or closed loop with
 * one worker per connection (`-rate=0`). Every request's send time and sequence number come back,
 * so latency from the intended send is computed exactly (ns), and sends that left late are counted.
 * Measured on the project's machine it kept ~20k req/s open loop on one core where k6 managed ~5k.
 */
export const vegetaDriver: Driver = {
  name: 'vegeta',
  ceilingRps: 20_000,
  openLoopCeilingRps: 10_000,
  capabilities: { capRate: true, openLoop: true, microsecondLatency: true, threads: 'per-loader-core' },
  note: 'vegeta records every request (send time, sequence, latency in ns); latency from the intended send is computed from the schedule; a send more than 2 ms behind it counts as late.',
  async available() {
    return findVegeta() ? true : 'vegeta not found (benchsuite setup vegeta builds it from the Go module proxy)';
  },
  version() {
    vegetaVersion ??= new Promise((resolve) => {
      const bin = findVegeta();
      if (!bin) return resolve('unknown');
      execFile(bin, ['-version'], (_e, stdout) => resolve(/Version:\s*(\S+)/.exec(String(stdout))?.[1] ?? 'unknown'));
    });
    return vegetaVersion;
  },
  flags(o) {
    const open = Boolean(o.openLoop && o.rate);
    return [
      open || o.rate ? `rate=${o.rate}/s` : 'rate=0 (closed loop)',
      `max-workers=${maxInFlight(o)}`,
      `duration=${o.durationSec}s`,
      `warmup=${o.warmupSec}s`,
      `timeout=${Math.ceil(o.timeoutSec)}s`,
      'http2=false',
    ];
  },
  async run(o) {
    const bin = findVegeta();
    if (!bin) throw new Error('vegeta not found (benchsuite setup vegeta builds it from the Go module proxy)');
    const dir = guardTempDir(mkdtempSync(join(tmpdir(), 'benchsuite-vegeta-')));
    try {
      const tf = join(dir, 'targets.json');
      writeFileSync(tf, targets(o));
      if (o.warmupSec > 0) await run(bin, attackArgs(o, o.warmupSec, '/dev/null', tf), o);
      const out = join(dir, 'results.bin');
      await run(bin, attackArgs(o, o.durationSec, out, tf), o, { start: o.onMeasureStart, end: o.onMeasureEnd });
      const csv = await run(bin, ['encode', '--to=csv', out], { ...o, pin: [] });
      return parseVegetaCsv(csv, o);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
