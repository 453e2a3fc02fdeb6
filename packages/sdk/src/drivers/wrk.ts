import { spawn, execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHistogram } from '../histogram.js';
import { guardProcessGroup, guardTempDir } from '../process.js';
import { monotonicMs, type Driver, type DriverRunOptions, type DriverRunResult, type SlicedFigures } from '../driver.js';
import type { RequestSpec } from '../scenario.js';

const luaString = (s: string) =>
  JSON.stringify(s).replace(/\\u([0-9a-fA-F]{4})/g, (_, h: string) => {
    // Lua 5.1 has no \u escapes: encode the code point as UTF-8 decimal byte escapes.
    return [...Buffer.from(String.fromCharCode(parseInt(h, 16)), 'utf8')].map((b) => `\\${b}`).join('');
  });
const luaTable = (headers: Record<string, string>) =>
  `{${Object.entries(headers)
    .map(([k, v]) => `[${luaString(k)}]=${luaString(v)}`)
    .join(',')}}`;

/**
 * The Lua script handed to wrk: the request(s), a per-thread status count (response() is only a
 * counter; wrk must then parse each response, which costs a few % of its ceiling), and a done()
 * that prints ~300 exact µs quantiles from which the HDR histogram is rebuilt.
 */
function wrkScript(requests: readonly RequestSpec[], slots?: ReadonlyArray<readonly [number, number]>): string {
  const lines: string[] = [];
  if (slots) lines.push(sliceScript(slots));
  if (requests.length === 1 && !slots) {
    const r = requests[0]!;
    lines.push(`wrk.method = ${luaString(r.method)}`, `wrk.path = ${luaString(r.path)}`);
    for (const [k, v] of Object.entries(r.headers)) lines.push(`wrk.headers[${luaString(k)}] = ${luaString(v)}`);
    if (r.body !== undefined) lines.push(`wrk.body = ${luaString(r.body)}`);
  } else {
    // Round-robin over the requests; sliced, every send also notes its time (the first of a slot starts its measured time).
    lines.push(
      `local specs = {${requests.map((r) => `{${luaString(r.method)},${luaString(r.path)},${luaTable(r.headers)},${r.body === undefined ? 'nil' : luaString(r.body)}}`).join(',')}}`,
      'local formatted, idx = {}, 0',
      'init = function(args) for i, s in ipairs(specs) do formatted[i] = wrk.format(s[1], s[2], s[3], s[4]) end end',
      `request = function() ${slots ? 'bs_sent(); ' : ''}idx = idx % #formatted + 1; return formatted[idx] end`,
    );
  }
  lines.push(
    'counts = {}',
    slots
      ? 'response = function(status, headers, body) counts[status] = (counts[status] or 0) + 1; bs_classify() end'
      : 'response = function(status, headers, body) counts[status] = (counts[status] or 0) + 1 end',
    'local threads = {}',
    'setup = function(thread) table.insert(threads, thread) end',
    'done = function(summary, latency, requests)',
    '  local e = summary.errors',
    '  io.write("@@BS summary ", summary.requests, " ", summary.duration, " ", e.connect, " ", e.read, " ", e.write, " ", e.status, " ", e.timeout, "\\n")',
    '  local totals = {}',
    '  for _, t in ipairs(threads) do for k, v in pairs(t:get("counts")) do totals[k] = (totals[k] or 0) + v end end',
    '  for k, v in pairs(totals) do io.write("@@BS status ", k, " ", v, "\\n") end',
    ...(slots
      ? [
          '  for _, t in ipairs(threads) do local e = t:get("bs_eighths"); io.write("@@BS slice ", t:get("bs_active"), " ", t:get("bs_inslot"), " ", t:get("bs_drained"), " ", t:get("bs_slots"), " ", table.concat(e, " "), "\\n") end',
          // Each slot of the plan on its own: responses inside it and its measured ms, per thread.
          '  for _, t in ipairs(threads) do local n, ms, buf = t:get("bs_pn"), t:get("bs_pms"), {}; for i = 1, #n do buf[i] = n[i] .. ":" .. ms[i] end; io.write("@@BS slots ", table.concat(buf, " "), "\\n") end',
          // Its own CPU (every thread, CLOCK_PROCESS_CPUTIME_ID): a round's loaders exit together,
          // and the runner's reaped-children ticks cannot tell one from another.
          '  ffi.C.clock_gettime(2, bs_ts); io.write("@@BS cpu ", tonumber(bs_ts.tv_sec) + tonumber(bs_ts.tv_nsec) / 1e9, "\\n")',
        ]
      : []),
    // Debian's wrk 4.1 cannot index the latency object, but percentile() walks wrk's exact µs
    // array: print a dense grid of quantiles (0.1% steps, finer in the tail) and rebuild from it.
    '  if latency.max >= latency.min and summary.requests > 0 then',
    '    local grid = {}',
    // Each percentile() walks wrk's array once, so the grid stays at ~300 points: 0.5% steps to
    // p99, then 0.01% steps to p99.99, then 0.001% steps to the max.
    '    for i = 1, 198 do grid[#grid + 1] = i / 2 end',
    '    for i = 1, 99 do grid[#grid + 1] = 99 + i / 100 end',
    '    for i = 1, 10 do grid[#grid + 1] = 99.99 + i / 1000 end',
    '    if (latency.max - latency.min) * #grid > 3e8 then grid = {1,5,10,20,25,30,40,50,60,70,75,80,90,95,97.5,99,99.5,99.9,99.99,99.999,100} end',
    '    local buf = {}',
    '    for _, p in ipairs(grid) do',
    // percentile(100) overshoots wrk's rank and answers 0: use max there.
    '      buf[#buf + 1] = p .. ":" .. (p >= 100 and latency.max or latency:percentile(p))',
    '      if #buf >= 200 then io.write("@@BS pct ", table.concat(buf, ","), "\\n"); buf = {} end',
    '    end',
    '    if #buf > 0 then io.write("@@BS pct ", table.concat(buf, ","), "\\n") end',
    '  end',
    'end',
  );
  return `${lines.join('\n')}\n`;
}

/**
 * What a sliced loader's thread writes to stderr once its last slot has closed and every request
 * it sent has its response: wrk stops a thread only at its 100-ms tick after SIGINT, so the runner
 * sends it as soon as every thread has said this, not at the last slot's end plus the drain (a
 * round's loaders then outlived their slots by 0.1–0.2 s; the drain stays as the limit for a thread
 * whose request never returns).
 */
const DRAINED_LINE = '@@BS drained';

/**
 * Time slices for a round of several targets at once (`DriverRunOptions.slots`): wrk's `delay()`,
 * asked before every request (the first of each connection too), holds a connection until its
 * target's next slot and lets it send only inside one; `request()` notes each send. Responses are
 * split into those inside their slot and those after its end (the drain: requests still in flight
 * when it closed), per thread. A slot's measured time runs from its first send to its last
 * response inside it, so a closed loop's rate comes out right whether the server answers
 * continuously (CPU-bound: one response per service time from the first on) or in bursts (a server
 * that waits: every connection's response a latency after its send): counting to the slot's end
 * would read the second high by up to a latency ÷ slot, counting from the first response the first.
 * The clock is CLOCK_MONOTONIC through LuaJIT's FFI, the runner's `process.hrtime`. wrk's timers
 * have millisecond resolution and can fire up to 1 ms early: a slot's first sends wait 1 ms more, so
 * they leave inside it, up to 2 ms late, and are timed as they leave.
 */
function sliceScript(slots: ReadonlyArray<readonly [number, number]>): string {
  return [
    'local ffi = require("ffi")',
    'pcall(ffi.cdef, "typedef struct { long tv_sec; long tv_nsec; } bs_timespec; int clock_gettime(int, bs_timespec *);")',
    'local bs_ts = ffi.new("bs_timespec")',
    'local function bs_now() ffi.C.clock_gettime(1, bs_ts); return tonumber(bs_ts.tv_sec) * 1000 + tonumber(bs_ts.tv_nsec) / 1e6 end',
    `local bs_plan = {${slots.map(([a, b]) => `{${a.toFixed(3)},${b.toFixed(3)}}`).join(',')}}`,
    // bs_i: the slot now or next; bs_opened: the slot this thread has sent in, from bs_open_at;
    // bs_mark: where the measured time of that slot has been counted to (its last response so far).
    'local bs_i, bs_opened, bs_open_at, bs_spanned, bs_mark = 1, 0, 0, 0, 0',
    // bs_flight: requests sent and not yet answered (one per connection at most), counted from the
    // first delay(): wrk calls request() once at start-up to check it, on the first thread's state.
    'local bs_flight, bs_live, bs_stopped = 0, false, false',
    'bs_active, bs_inslot, bs_drained, bs_slots, bs_eighths = 0, 0, 0, 0, {0, 0, 0, 0, 0, 0, 0, 0}',
    // Per slot of the plan: responses inside it (bs_pn) and its measured ms so far (bs_pms).
    'bs_pn, bs_pms = {}, {}',
    'for i = 1, #bs_plan do bs_pn[i] = 0; bs_pms[i] = 0 end',
    'local function bs_advance(t) while bs_i <= #bs_plan and t >= bs_plan[bs_i][2] do bs_i = bs_i + 1 end end',
    'delay = function()',
    '  bs_live = true',
    '  local t = bs_now()',
    '  bs_advance(t)',
    '  if bs_i > #bs_plan then return 3600000 end',
    '  local s = bs_plan[bs_i]',
    // wrk's timers count from the millisecond truncated (its event loop reads gettimeofday in whole
    // ms) and fire when the truncated clock reaches them: up to 1 ms early. One more ms makes a
    // slot's first sends leave inside it; sent early, their responses counted as drained and a
    // connection could drain twice at a slot's edge (CI, 2026-12-02: 21 drained for 10 × 2 slots).
    '  if t < s[1] then return math.ceil(s[1] - t) + 1 end',
    '  return 0',
    'end',
    'function bs_sent()',
    '  if bs_live then bs_flight = bs_flight + 1 end',
    '  local t = bs_now()',
    '  bs_advance(t)',
    '  if bs_i <= #bs_plan and t >= bs_plan[bs_i][1] and bs_opened ~= bs_i then bs_opened = bs_i; bs_open_at = t; bs_slots = bs_slots + 1 end',
    'end',
    'function bs_classify()',
    '  local t = bs_now()',
    '  bs_advance(t)',
    '  if bs_opened == bs_i and bs_i <= #bs_plan then',
    '    if bs_spanned ~= bs_i then bs_spanned = bs_i; bs_mark = bs_open_at end',
    '    bs_active = bs_active + (t - bs_mark); bs_mark = t',
    '    bs_inslot = bs_inslot + 1',
    '    bs_pn[bs_i] = bs_pn[bs_i] + 1; bs_pms[bs_i] = t - bs_open_at',
    // Which eighth of the slot (from its first send to its end) the response came in: what the
    // switch from the previous slot's server costs this one (cold caches, the scheduler) shows as
    // short first eighths (its first half ÷ its second is the run's check, `result.designBias`).
    '    local k = math.floor(8 * (t - bs_open_at) / (bs_plan[bs_i][2] - bs_open_at)) + 1',
    '    if k < 1 then k = 1 elseif k > 8 then k = 8 end',
    '    bs_eighths[k] = bs_eighths[k] + 1',
    '  else bs_drained = bs_drained + 1 end',
    // Past the last slot with every request answered: this thread is done. It stops its own loop
    // and says so on stderr (unbuffered), and the runner stops wrk at once (DRAINED_LINE).
    '  bs_flight = bs_flight - 1',
    `  if bs_i > #bs_plan and bs_flight <= 0 and not bs_stopped then bs_stopped = true; io.stderr:write("${DRAINED_LINE}\\n"); wrk.thread:stop() end`,
    'end',
  ].join('\n');
}

/** Parse the @@BS lines printed by `wrkScript`'s done(). */
function parseWrkOutput(stdout: string, expectStatus: readonly number[]): DriverRunResult {
  const histogram = createHistogram();
  const statusCounts: Record<string, number> = {};
  let summary: number[] | undefined;
  const quantiles: Array<[number, number]> = [];
  const slices: number[][] = [];
  const perSlot: Array<Array<[number, number]>> = [];
  let ownCpuSec: number | undefined;
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('@@BS ')) continue;
    const [, kind, ...rest] = line.split(' ');
    if (kind === 'summary') summary = rest.map(Number);
    else if (kind === 'status') statusCounts[rest[0]!] = Number(rest[1]);
    else if (kind === 'slice') slices.push(rest.map(Number));
    else if (kind === 'slots') perSlot.push(rest.filter((x) => x.includes(':')).map((x) => x.split(':').map(Number) as [number, number]));
    else if (kind === 'cpu') ownCpuSec = Number(rest[0]);
    else if (kind === 'pct') {
      for (const pair of rest.join(' ').split(',')) {
        const [p, v] = pair.split(':').map(Number) as [number, number];
        quantiles.push([p, v]);
      }
    }
  }
  if (!summary) throw new Error(`wrk printed no summary: ${stdout.trim().slice(-400)}`);
  // Each grid point stands for the requests between it and the previous point, at its exact value.
  const total = summary[0] ?? 0;
  let prevRank = 0;
  for (const [p, v] of quantiles) {
    const rank = Math.round((total * p) / 100);
    if (rank > prevRank) histogram.recordValueWithCount(Math.max(1, v), rank - prevRank);
    prevRank = Math.max(prevRank, rank);
  }
  const [requests = 0, durationUs = 0, connect = 0, read = 0, write = 0, , timeout = 0] = summary;
  const expected = new Set(expectStatus);
  let non2xx = 0;
  let unexpected = 0;
  for (const [code, n] of Object.entries(statusCounts)) {
    if (!code.startsWith('2')) non2xx += n;
    if (!expected.has(Number(code))) unexpected += n;
  }
  const sliced = slices.length ? { ...slicedFigures(slices, perSlot), ...(ownCpuSec !== undefined && Number.isFinite(ownCpuSec) ? { loaderCpuSec: ownCpuSec } : {}) } : undefined;
  return {
    requests,
    durationSec: sliced ? sliced.activeSec : durationUs / 1e6,
    ...(sliced ? { sliced } : {}),
    histogram,
    statusCounts,
    errors: connect + read + write,
    timeouts: timeout,
    non2xx,
    unexpected,
  };
}

/**
 * A sliced window's figures from each thread's `@@BS slice <active ms> <in slot> <drained> <slots> <eighths ×8>`:
 * responses summed, the active time the mean over the threads that sent (each thread's connections
 * start each slot on their own timer), and the responses in each eighth of the slots summed (the
 * halves are the first four and the last four).
 */
function slicedFigures(threads: readonly number[][], perSlot: ReadonlyArray<ReadonlyArray<readonly [number, number]>> = []): SlicedFigures {
  const answered = threads.filter((t) => (t[0] ?? 0) > 0 && (t[3] ?? 0) > 0);
  const activeMs = answered.length ? answered.reduce((a, t) => a + t[0]!, 0) / answered.length : 0;
  // Each thread's rate over its own measured time, summed: the loader's in-slot throughput.
  const rate = answered.reduce((a, t) => a + (t[1] ?? 0) / (t[0]! / 1000), 0);
  const eighths = threads.every((t) => t.length >= 12) ? Array.from({ length: 8 }, (_, k) => threads.reduce((a, t) => a + (t[4 + k] ?? 0), 0)) : undefined;
  return {
    activeSec: activeMs / 1000,
    inSlot: threads.reduce((a, t) => a + (t[1] ?? 0), 0),
    rps: rate,
    drained: threads.reduce((a, t) => a + (t[2] ?? 0), 0),
    slots: Math.max(0, ...threads.map((t) => t[3] ?? 0)),
    ...(eighths ? { eighths, halves: [eighths.slice(0, 4).reduce((a, x) => a + x, 0), eighths.slice(4).reduce((a, x) => a + x, 0)] as [number, number] } : {}),
    ...(perSlot.length === threads.length && perSlot.length > 0 ? { slotRps: slotRates(perSlot) } : {}),
  };
}

/**
 * Each slot's throughput from every thread's `<responses>:<ms>` of it: the threads' own rates
 * summed, as the window's (`slicedFigures`); a slot no thread answered in reads 0.
 */
export function slotRates(perThread: ReadonlyArray<ReadonlyArray<readonly [number, number]>>): number[] {
  const n = Math.max(0, ...perThread.map((t) => t.length));
  return Array.from({ length: n }, (_, i) =>
    perThread.reduce((a, t) => {
      const [count = 0, ms = 0] = t[i] ?? [];
      return a + (count > 0 && ms > 0 ? count / (ms / 1000) : 0);
    }, 0),
  );
}

let wrkVersion: Promise<string> | undefined;

/**
 * Run one wrk process for `seconds`. A measured window is stopped with SIGINT (wrk then reports
 * its own measured runtime and runs done()); a warm-up, whose figures nobody reads, is killed
 * outright at its deadline, sparing wrk's ≤ 100 ms stop tick.
 */
function runWrk(o: DriverRunOptions, script: string, seconds: number, mode: 'measure' | 'warmup', hooks: { start?: (pid: number) => void; end?: (pid: number) => void } = {}): Promise<string> {
  // One thread per loader core, no more than connections.
  const threads = Math.min(Math.max(1, o.pin.length ? o.pin.at(-1)!.split(',').length : 1), o.connections);
  const args = ['-t', String(threads), '-c', String(o.connections), '-d', `${Math.ceil(seconds) + 2}s`, '--timeout', `${Math.ceil(o.timeoutSec)}s`, '-s', script, o.baseUrl];
  const argv = [...o.pin, 'wrk', ...args];
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    guardProcessGroup(child);
    let out = '';
    let err = '';
    const stop = () => child.kill(mode === 'measure' ? 'SIGINT' : 'SIGKILL');
    const abort = () => child.kill('SIGKILL');
    let timer: NodeJS.Timeout | undefined;
    // A sliced loader: stop it once each of its threads has drained its last slot (DRAINED_LINE).
    let drained = 0;
    let errLine = '';
    const watchDrained = (c: string) => {
      const lines = (errLine + c).split('\n');
      errLine = lines.pop()!;
      drained += lines.filter((l) => l === DRAINED_LINE).length;
      if (drained >= threads && timer !== undefined) {
        clearTimeout(timer);
        timer = undefined;
        stop();
      }
    };
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      if (o.slots?.length && mode === 'measure') watchDrained(c);
      err = (err + c.replaceAll(`${DRAINED_LINE}\n`, '')).slice(-2000);
    });
    child.once('spawn', () => {
      hooks.start?.(child.pid!);
      timer = setTimeout(stop, seconds * 1000);
    });
    o.signal?.addEventListener('abort', abort, { once: true });
    child.once('error', reject);
    child.once('exit', () => {
      // wrk notices SIGINT within its 100 ms tick (at once when every thread has stopped on its
      // own) and reports its own measured runtime; the sampling window ends here, when its load
      // really stops.
      hooks.end?.(child.pid!);
      clearTimeout(timer);
    });
    // Its output is read once its pipes have closed, not at its exit: with a round's loaders
    // ending together the runner may not have read the last of it yet (a default run lost two
    // block parts to a wrk that "printed nothing" and one whose slot lines were still unread).
    child.once('close', (code, signal) => {
      o.signal?.removeEventListener('abort', abort);
      if (o.signal?.aborted) reject(new Error('interrupted'));
      else if (mode === 'warmup' && signal === 'SIGKILL') resolve('');
      else if (!out.includes('@@BS summary')) reject(new Error(`wrk failed (${signal ?? `exit ${code}`}): ${(err || out).trim().slice(-500)}`));
      else resolve(out);
    });
  });
}

/** wrk 4 (C, epoll): the higher ceiling (~176k req/s on one core here) and µs latency. */
export const wrkDriver: Driver = {
  name: 'wrk',
  ceilingRps: 170_000,
  capabilities: { capRate: false, fixedRequests: false, microsecondLatency: true, threads: 'per-loader-core', slots: true },
  note: 'wrk cannot cap the request rate; status codes are counted in a Lua response() hook.',
  async available() {
    return new Promise((resolve) => {
      execFile('wrk', ['--version'], (err) => resolve(err && (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'wrk not found on PATH' : true));
    });
  },
  version() {
    wrkVersion ??= new Promise((resolve) => {
      execFile('wrk', ['--version'], (_err, stdout, stderr) => {
        const m = /wrk\s+(\S+)/.exec(String(stdout) + String(stderr));
        resolve(m?.[1] ?? 'unknown');
      });
    });
    return wrkVersion;
  },
  flags(o) {
    return [
      '-t',
      '<loader cores>',
      '-c',
      String(o.connections),
      `warmup=${o.warmupSec}s`,
      `duration=${o.durationSec}s (stopped by SIGINT)`,
      '--timeout',
      `${Math.ceil(o.timeoutSec)}s`,
      '-s',
      'benchsuite.lua',
    ];
  },
  async run(o) {
    if (o.rate) throw new Error('wrk cannot cap the request rate; use the autocannon driver for scenarios with load.rate');
    if (o.requestCount) throw new Error('wrk cannot send a fixed number of requests; use the autocannon driver for load.requests (--requests)');
    const dir = guardTempDir(mkdtempSync(join(tmpdir(), 'benchsuite-wrk-')));
    try {
      const script = join(dir, 'benchsuite.lua');
      writeFileSync(script, wrkScript(o.requests, o.slots));
      if (o.slots?.length) {
        // The loader connects at once and holds each request for its slot; it stops once the last
        // slot's responses have had time to arrive.
        const stopSec = Math.max(0, (Math.max(...o.slots.map((x) => x[1])) - monotonicMs()) / 1000) + (o.drainSec ?? 0);
        return parseWrkOutput(await runWrk(o, script, stopSec, 'measure', { start: o.onMeasureStart, end: o.onMeasureEnd }), o.expectStatus);
      }
      if (o.warmupSec > 0) await runWrk(o, script, o.warmupSec, 'warmup');
      const out = await runWrk(o, script, o.durationSec, 'measure', { start: o.onMeasureStart, end: o.onMeasureEnd });
      return parseWrkOutput(out, o.expectStatus);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
