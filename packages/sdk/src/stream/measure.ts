import { Agent } from 'node:http';
import { connect } from 'node:net';
import { type IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { DEFAULTS } from '../defaults.js';
import { createHistogram, latencyOf } from '../histogram.js';
import { cpuTimes, processTree } from '../procfs.js';
import type { RequestSpec } from '../scenario.js';
import type { Latency, StreamCancel, StreamBackpressure, StreamLevel } from '../result-schema.js';
import type { ObservedRequest } from './spec.js';
import { openStream, type StreamEvents, type StreamRead, type StreamTrace } from './client.js';

/** Where the phases send load and what they watch. */
export interface StreamPhaseContext extends StreamEvents {
  baseUrl: string;
  request: RequestSpec;
  /** The target's server pid (its tree's RSS is sampled), when this runner started it. */
  pid: number | undefined;
  /** Cores whose steal is reported (the server's and the loader's). */
  cpus: readonly number[];
  signal: AbortSignal;
  /** The observer service's base URL (the stream observer protocol), when the scenario names one. */
  observerUrl?: string | undefined;
}

/** ms → µs for the histograms (at least 1 µs: the histogram's floor). */
const us = (ms: number): number => Math.max(1, Math.round(ms * 1000));

/** Resolves after `ms`, or at once when the run is aborted (its listener is removed either way). */
const sleep = (ms: number, signal?: AbortSignal): Promise<void> => delay(ms, undefined, { signal }).catch(() => undefined);

function stealOf(cpus: readonly number[], a: ReturnType<typeof cpuTimes>): number {
  const b = cpuTimes(cpus);
  const total = b.total - a.total;
  return total > 0 ? (b.steal - a.steal) / total : 0;
}

/**
 * One level: `streams` lanes, each a closed loop (its next stream starts as soon as its last one
 * ended), all opened at once. The level's window starts when every lane has ended its first stream
 * (the cold start; at most `coldMaxSec`) and lasts `durationSec`; then no stream starts, and those
 * still open may finish until `drainSec` after the window's end, when the rest are cut.
 * `levelFigures` says what is counted where.
 */
export async function streamLevel(ctx: StreamPhaseContext, streams: number, durationSec: number, drainSec: number, coldMaxSec: number = DEFAULTS.stream.coldMaxSec): Promise<StreamLevel> {
  const agent = new Agent({ keepAlive: true, maxSockets: streams });
  const lanes: StreamTrace[][] = Array.from({ length: streams }, () => []);
  const open = new Set<ReturnType<typeof openStream>>();
  const lag = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS });
  const t0 = performance.now();
  let cpu0 = cpuTimes(ctx.cpus);
  let start = Number.POSITIVE_INFINITY;
  let end = Number.POSITIVE_INFINITY;
  let coldCapped = false;
  const timers: NodeJS.Timeout[] = [];
  // The window opens once, when the last lane ends its first stream or at the cold start's cap.
  const openWindow = (capped: boolean): void => {
    if (start !== Number.POSITIVE_INFINITY) return;
    start = performance.now();
    end = start + durationSec * 1000;
    coldCapped = capped;
    cpu0 = cpuTimes(ctx.cpus);
    lag.enable();
    timers.push(setTimeout(() => lag.disable(), durationSec * 1000));
    // The drain cap counts from the window's end for every stream, whenever it started.
    timers.push(
      setTimeout(
        () => {
          for (const s of open) s.cut(`still open ${drainSec} s after the level ended (the drain cap)`);
        },
        (durationSec + drainSec) * 1000,
      ),
    );
  };
  timers.push(setTimeout(() => openWindow(true), coldMaxSec * 1000));
  let cold = streams;
  let peakRss = 0;
  const rssTimer = ctx.pid
    ? setInterval(() => {
        peakRss = Math.max(peakRss, treeRss(ctx.pid!));
      }, 250)
    : undefined;
  const lane = async (traces: StreamTrace[]): Promise<void> => {
    while (performance.now() < end && !ctx.signal.aborted) {
      const s = openStream({ ...ctx, agent });
      open.add(s);
      traces.push(s.trace);
      const cut = () => s.req.destroy();
      ctx.signal.addEventListener('abort', cut, { once: true });
      await s.done;
      ctx.signal.removeEventListener('abort', cut);
      open.delete(s);
      if (traces.length === 1 && --cold === 0) openWindow(false);
      // A failing target answers at once: do not spin on it.
      if (s.trace.error && performance.now() - s.trace.startedAt < 5) await sleep(5);
    }
  };
  await Promise.all(lanes.map(lane));
  for (const t of timers) clearTimeout(t);
  lag.disable();
  if (rssTimer) clearInterval(rssTimer);
  agent.destroy();
  // Stopped (the run was aborted) before the window opened: an empty window.
  if (start === Number.POSITIVE_INFINITY) start = end = performance.now();
  return {
    ...levelFigures(lanes, { streams, durationSec, start, end }),
    coldSec: (start - t0) / 1000,
    ...(coldCapped ? { coldCapped } : {}),
    loaderLag: lagOf(lag),
    peakRssBytes: peakRss || null,
    cpuSteal: stealOf(ctx.cpus, cpu0),
  };
}

/** The event-loop delay sampler's period, ms: it records each period plus the delay. */
const LAG_RESOLUTION_MS = 5;

/** The loader's event-loop delay (beyond the sampler's own period) as µs percentiles. */
function lagOf(h: IntervalHistogram): Latency {
  if (!h.count) return latencyOf(createHistogram());
  const at = (ns: number) => Math.max(0, Math.round(ns / 1000 - LAG_RESOLUTION_MS * 1000));
  return {
    p50: at(h.percentile(50)),
    p90: at(h.percentile(90)),
    p99: at(h.percentile(99)),
    p999: at(h.percentile(99.9)),
    min: at(h.min),
    max: at(h.max),
    mean: at(h.mean),
    stdev: Math.round(h.stddev / 1000),
    count: h.count,
  };
}

/**
 * A level's figures from its lanes' traces (each lane's streams in the order it ran them), `start`
 * and `end` being its window's on the traces' clock; before the window is the cold start, after it
 * the drain:
 * - `started` and `errors` count every stream, cold start and drain included;
 * - counts (`completed`, `events`) take what ended or arrived inside the window;
 * - `steady` rates take the window, each completed stream (and each stream's events) by the share
 *   of its length inside it: exact for streams of one length whatever their phase, where a count of
 *   streams that ended inside a window loses up to one per lane (`docs/streaming.md`,
 *   `npm run bench:stream-rates`);
 * - latencies, gaps and batching take what arrived inside the window; what arrived in the drain
 *   goes to `drain`'s own histograms, what arrived in the cold start nowhere;
 * - a read's gap is between consecutive reads of a stream that brought token events; its events
 *   share it (m events after a gap g give m gaps of g ÷ m).
 */
export function levelFigures(
  lanes: readonly (readonly StreamTrace[])[],
  o: { streams: number; durationSec: number; start: number; end: number },
): Omit<StreamLevel, 'peakRssBytes' | 'cpuSteal' | 'loaderLag' | 'coldSec' | 'coldCapped'> {
  const level = latencyRecorder();
  const drain = latencyRecorder();
  let started = 0;
  let completed = 0;
  let events = 0;
  let errors = 0;
  const errorSamples = new Set<string>();
  const d = { open: 0, completed: 0, cut: 0, lastEnd: o.end, events: 0 };
  const steady = { completed: 0, events: 0 };
  /** The part of the level a time falls in: the window's or the drain's recorder, or none (the cold start). */
  const part = (at: number) => (at < o.start ? null : at <= o.end ? level : drain);
  for (const traces of lanes) {
    for (const t of traces) {
      started++;
      if (t.error) {
        errors++;
        if (errorSamples.size < 3) errorSamples.add(t.error);
      }
      if (t.endedAt !== null && t.endedAt > o.end) {
        d.open++;
        if (t.complete) d.completed++;
        if (t.timedOut) d.cut++;
        d.lastEnd = Math.max(d.lastEnd, t.endedAt);
      } else if (t.complete && t.endedAt !== null && t.endedAt >= o.start) completed++;
      let received = 0;
      for (const r of t.reads) {
        received += r.events;
        const p = part(r.at);
        if (p === level) events += r.events;
        else if (p === drain) d.events += r.events;
      }
      if (t.endedAt !== null && t.endedAt > t.startedAt) {
        const inside = Math.min(t.endedAt, o.end) - Math.max(t.startedAt, o.start);
        const share = inside > 0 ? inside / (t.endedAt - t.startedAt) : 0;
        if (t.complete) steady.completed += share;
        steady.events += received * share;
      }
      if (t.headersAt !== null) part(t.headersAt)?.ttfb.recordValue(us(t.headersAt - t.startedAt));
      let prev: StreamRead | null = null;
      for (const r of t.reads) {
        if (!r.tokens) continue;
        const p = part(r.at);
        if (p) {
          p.reads++;
          p.tokens += r.tokens;
          if (r.tokens > 1) p.batchedReads++;
          p.maxPerRead = Math.max(p.maxPerRead, r.tokens);
          if (!prev) p.firstDelta.recordValue(us(r.at - t.startedAt));
          else {
            const g = r.at - prev.at;
            p.readGap.recordValue(us(g));
            p.eventGap.recordValueWithCount(us(g / r.tokens), r.tokens);
          }
        }
        prev = r;
      }
    }
  }
  const sec = Math.max(0, (o.end - o.start) / 1000);
  return {
    streams: o.streams,
    durationSec: o.durationSec,
    started,
    completed,
    errors,
    ...(errorSamples.size ? { errorSamples: [...errorSamples] } : {}),
    events,
    steady: sec > 0 ? { sec, completed: steady.completed, events: steady.events, completedPerSec: steady.completed / sec, eventsPerSec: steady.events / sec } : null,
    ...latenciesOf(level),
    drain: { open: d.open, completed: d.completed, cut: d.cut, sec: (d.lastEnd - o.end) / 1000, events: d.events, ...latenciesOf(drain) },
  };
}

/** The histograms and batching counts of one part of a level. */
function latencyRecorder() {
  return { ttfb: createHistogram(), firstDelta: createHistogram(), readGap: createHistogram(), eventGap: createHistogram(), reads: 0, tokens: 0, batchedReads: 0, maxPerRead: 0 };
}

function latenciesOf(r: ReturnType<typeof latencyRecorder>) {
  return {
    ttfb: latencyOf(r.ttfb),
    firstDelta: latencyOf(r.firstDelta),
    readGap: latencyOf(r.readGap),
    eventGap: latencyOf(r.eventGap),
    batching: { reads: r.reads, tokens: r.tokens, batchedReads: r.batchedReads, maxPerRead: r.maxPerRead },
  };
}

/** RSS of a process and its descendants, bytes. */
function treeRss(pid: number): number {
  return processTree(pid).reduce((a, s) => a + s.rssBytes, 0);
}

/** The observer service (stream observer protocol): its records after `after`, and its clock. */
async function observed(url: string, after: number): Promise<{ now: number; requests: ObservedRequest[] }> {
  const res = await fetch(`${url}/debug/requests?after=${after}`);
  if (!res.ok) throw new Error(`observer: GET /debug/requests answered ${res.status}`);
  return (await res.json()) as { now: number; requests: ObservedRequest[] };
}

/** Post a phase's configuration to the observer (e.g. the stub's chunk spacing). */
export async function configureObserver(url: string, body: Record<string, unknown> | undefined): Promise<void> {
  if (!body) return;
  const res = await fetch(`${url}/debug/config`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
  if (!res.ok) throw new Error(`observer: POST /debug/config answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
}

/** The newest record id the observer holds (records after it belong to what follows). */
async function lastId(url: string): Promise<number> {
  const { requests } = await observed(url, 0);
  return requests.reduce((a, r) => Math.max(a, r.id), 0);
}

/**
 * The observer's clock minus ours (ms since the epoch on both sides), from the quickest of five
 * round trips: the midpoint of a round trip is when the observer read its clock, within half of it.
 */
async function clockOffset(url: string): Promise<{ offsetMs: number; uncertaintyMs: number }> {
  let best = { offsetMs: 0, uncertaintyMs: Infinity };
  for (let i = 0; i < 5; i++) {
    const a = performance.timeOrigin + performance.now();
    const { now } = await observed(url, Number.MAX_SAFE_INTEGER);
    const b = performance.timeOrigin + performance.now();
    if ((b - a) / 2 < best.uncertaintyMs) best = { offsetMs: now - (a + b) / 2, uncertaintyMs: (b - a) / 2 };
  }
  return best;
}

/**
 * Disconnect `count` streams one after another, each once `afterEvents` token events arrived, and
 * time the observer's upstream request from the disconnect to its abort. An upstream request that
 * completed, or still ran `waitMs` after the disconnect, was never aborted.
 */
export async function cancellations(ctx: StreamPhaseContext, o: { count: number; afterEvents: number; waitMs: number }): Promise<StreamCancel> {
  if (!ctx.observerUrl) throw new Error("cancellation needs the scenario's stream.observer (a backend that reports its requests)");
  const url = ctx.observerUrl;
  const clock = await clockOffset(url);
  const latency = createHistogram();
  let aborted = 0;
  let neverAborted = 0;
  let failed = 0;
  const failures = new Set<string>();
  for (let i = 0; i < o.count && !ctx.signal.aborted; i++) {
    const before = await lastId(url);
    let disconnectedAt = 0;
    const s = openStream({
      ...ctx,
      timeoutMs: 10_000,
      onDelta: (n, req) => {
        if (n !== o.afterEvents) return;
        disconnectedAt = performance.timeOrigin + performance.now();
        req.destroy();
      },
    });
    await s.done;
    if (!disconnectedAt) {
      failed++;
      if (failures.size < 3) failures.add(s.trace.error ?? `the stream ended after ${s.trace.tokens} token events, before the disconnect`);
      continue;
    }
    // Wait for the upstream request to end, or for waitMs.
    let rec: ObservedRequest | undefined;
    const deadline = performance.now() + o.waitMs;
    for (;;) {
      rec = (await observed(url, before)).requests.find((r) => r.stream);
      if ((rec && rec.outcome !== 'in-flight') || performance.now() > deadline || ctx.signal.aborted) break;
      await sleep(10);
    }
    if (rec?.outcome === 'aborted' && rec.endedAt !== null && rec.endedAt - clock.offsetMs - disconnectedAt <= o.waitMs) {
      aborted++;
      latency.recordValue(us(Math.max(0, rec.endedAt - clock.offsetMs - disconnectedAt)));
    } else if (!rec) {
      failed++;
      if (failures.size < 3) failures.add('the observer saw no upstream stream for this request');
    } else neverAborted++;
  }
  return {
    disconnects: aborted + neverAborted,
    aborted,
    neverAborted,
    failed,
    ...(failures.size ? { failures: [...failures] } : {}),
    afterEvents: o.afterEvents,
    waitMs: o.waitMs,
    latency: latencyOf(latency),
    clockUncertaintyMs: clock.uncertaintyMs,
  };
}

/** The backend's bytes and the client's at one point of the backpressure phase, seconds from its start. */
interface BackpressureSample {
  sec: number;
  upstream: number;
  client: number;
}

/**
 * The backend's side of the backpressure phase from the samples so far (the last one is now): what
 * it wrote in the phase's second half, and whether it was throttled — still streaming, its writes
 * waited for drain, and in the second half it wrote no more than the client read plus `slackBytes`.
 * Nothing here is a time limit: a backend held back by the reader has stopped once the buffers
 * between them are full, however long they took to fill; one whose writes the target absorbs goes on.
 */
function upstreamVerdict(rec: ObservedRequest, samples: readonly BackpressureSample[], slackBytes: number): NonNullable<StreamBackpressure['upstream']> {
  const last = samples[samples.length - 1]!;
  const half = samples.findLast((x) => x.sec <= last.sec / 2) ?? { sec: 0, upstream: 0, client: 0 };
  const lateBytes = rec.bytes - half.upstream;
  const lateClientBytes = last.client - half.client;
  const throttled = rec.outcome === 'in-flight' && rec.waits > 0 && lateBytes <= lateClientBytes + slackBytes;
  return { bytes: rec.bytes, lateBytes, waits: rec.waits, blockedMs: rec.blockedMs, outcome: rec.outcome, throttled };
}

/**
 * One client that reads about `readBytesPerSec` while the backend streams as fast as it may: the
 * target tree's RSS growth, and whether the backend's writes were held back (its socket buffer
 * filled and it waited for drain) — a target that passes backpressure on throttles the backend; one
 * that buffers lets it write everything and grows instead.
 *
 * The phase lasts `durationSec`, and goes on (up to `DEFAULTS.stream.backpressure.maxDurationFactor`
 * times as long) while the backend still streams and is not yet held to the reader's pace in the
 * phase's second half: the socket buffers between the backend and the reader hold ~10 MB on
 * loopback, and on a slow or busy host they take longer to fill than half of a short phase.
 */
export async function backpressure(ctx: StreamPhaseContext, o: { readBytesPerSec: number; durationSec: number; body?: string | undefined }): Promise<StreamBackpressure> {
  if (!ctx.observerUrl) throw new Error("backpressure needs the scenario's stream.observer (a backend that reports its requests)");
  if (!ctx.pid) throw new Error('backpressure needs a target this runner started (its memory is sampled)');
  const observerUrl = ctx.observerUrl;
  const { stallSlackBytes, maxDurationFactor } = DEFAULTS.stream.backpressure;
  const url = new URL(ctx.request.path, ctx.baseUrl);
  const before = await lastId(observerUrl);
  const body = o.body ?? ctx.request.body ?? '';
  const head = [
    `${ctx.request.method} ${url.pathname}${url.search} HTTP/1.1`,
    `host: ${url.host}`,
    'accept: text/event-stream',
    'connection: close',
    ...Object.entries(ctx.request.headers).map(([k, v]) => `${k}: ${v}`),
    `content-length: ${Buffer.byteLength(body)}`,
    '',
    '',
  ].join('\r\n');
  const rssStart = treeRss(ctx.pid);
  let rssPeak = rssStart;
  let clientBytes = 0;
  const socket = connect({ host: url.hostname, port: Number(url.port) });
  // A small user-space buffer: the kernel's receive window is what the writer meets.
  socket.pause();
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.on('error', () => undefined);
  socket.write(head + body);
  const tickMs = 100;
  const t0 = performance.now();
  const rssSeries: Array<{ sec: number; bytes: number }> = [];
  // The backend's bytes and the client's at every tick: the phase's second half is judged from them.
  const samples: BackpressureSample[] = [];
  let rec: ObservedRequest | undefined;
  let sec = 0;
  while (!ctx.signal.aborted && !socket.destroyed) {
    await sleep(tickMs, ctx.signal);
    // The pace follows the clock, not the ticks: a late tick (a busy host, a slow observer) reads what it missed.
    let want = Math.floor((o.readBytesPerSec * (performance.now() - t0)) / 1000) - clientBytes;
    while (want > 0) {
      const chunk = socket.read(Math.min(want, socket.readableLength || want)) as Buffer | null;
      if (!chunk) break;
      clientBytes += chunk.length;
      want -= chunk.length;
    }
    const rss = treeRss(ctx.pid);
    rssPeak = Math.max(rssPeak, rss);
    rec = (await observed(observerUrl, before)).requests.find((r) => r.stream);
    sec = (performance.now() - t0) / 1000;
    samples.push({ sec, upstream: rec?.bytes ?? 0, client: clientBytes });
    if (!rssSeries.length || sec - rssSeries[rssSeries.length - 1]!.sec >= 1) rssSeries.push({ sec: Math.round(sec * 10) / 10, bytes: rss });
    if (sec >= o.durationSec * maxDurationFactor) break;
    // Past durationSec, stop once the verdict is in: the backend is held back, finished, or never came.
    if (sec >= o.durationSec && (rec?.outcome !== 'in-flight' || upstreamVerdict(rec, samples, stallSlackBytes).throttled)) break;
  }
  const rssEnd = treeRss(ctx.pid);
  socket.destroy();
  return {
    readBytesPerSec: o.readBytesPerSec,
    durationSec: Math.round(sec * 10) / 10,
    clientBytes,
    rssStartBytes: rssStart,
    rssEndBytes: rssEnd,
    rssPeakBytes: rssPeak,
    rssGrowthBytes: Math.max(0, rssPeak - rssStart),
    rssSeries,
    upstream: rec && samples.length ? upstreamVerdict(rec, samples, stallSlackBytes) : null,
  };
}
