// Streams counted without bias: the streaming loader against a real SSE server (a child process on
// port 0) whose event spacing, batching and stream length are known, and the level's figures from
// hand-made traces. What is checked: completed streams per second against the rate the server
// served, gaps per read and per event with the batching said, drain-time events apart from the
// level's, and the drain cap counted from the level's end.
import { fileURLToPath } from 'node:url';
import { startListening, type RunningProcess } from '@benchsuite/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULTS } from '../src/index.js';
import { streamLevelSchema } from '../src/result-schema.js';
import type { StreamRead, StreamTrace } from '../src/stream/client.js';
import { levelFigures, streamLevel, type StreamPhaseContext } from '../src/stream/measure.js';

const fixture = fileURLToPath(new URL('./fixtures/sse-batches.mjs', import.meta.url));
let server: RunningProcess | undefined;
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

async function start(env: Record<string, string>): Promise<StreamPhaseContext> {
  server = await startListening('sse-batches', [process.execPath, fixture], { env, unsetEnv: DEFAULTS.unsetEnv });
  return {
    baseUrl: server.url,
    request: { method: 'POST', path: '/v1/messages', headers: { 'content-type': 'application/json' }, body: '{}' },
    pid: undefined,
    cpus: [],
    signal: new AbortController().signal,
    deltaEvent: 'content_block_delta',
    endEvent: 'message_stop',
  };
}

/** What the server served: each stream from the request's arrival to the end of its response. */
async function served(): Promise<Array<{ durationMs: number; complete: boolean }>> {
  const res = await fetch(`${server!.url}/stats`);
  return ((await res.json()) as { streams: Array<{ durationMs: number; complete: boolean }> }).streams;
}

describe('a level of streams against a server with known spacing and batching', () => {
  const streams = 4;
  const batch = 3;
  const spacingMs = 20;
  const writes = 10;

  it('gives the per-read and per-event gaps, the batching, and completed/s within 2% of the rate the server served', async () => {
    const ctx = await start({ BATCH: String(batch), SPACING_MS: String(spacingMs), WRITES: String(writes) });
    const level = await streamLevel(ctx, streams, 2, 1);
    const done = (await served()).filter((s) => s.complete);
    // A closed loop of `streams` lanes: the server's rate is streams ÷ the length of a stream.
    const meanMs = done.reduce((a, s) => a + s.durationMs, 0) / done.length;
    const rate = streams / (meanMs / 1000);
    // The server kept its schedule (its timers may fire a fraction of a ms early on its clock).
    expect(meanMs).toBeGreaterThan(writes * spacingMs - 1);
    expect(meanMs).toBeLessThan(writes * spacingMs * 1.05);

    expect(streamLevelSchema.safeParse(level).success).toBe(true);
    expect(level.errors).toBe(0);
    expect(level.steady).toBeTruthy();
    expect(level.steady!.completedPerSec / rate).toBeGreaterThan(0.98);
    expect(level.steady!.completedPerSec / rate).toBeLessThan(1.02);
    // Every stream brings 1 + writes × batch + 1 events.
    expect(level.steady!.eventsPerSec / (rate * (2 + writes * batch))).toBeGreaterThan(0.98);
    expect(level.steady!.eventsPerSec / (rate * (2 + writes * batch))).toBeLessThan(1.02);

    // Each write's events arrive in one read: per read the writes' spacing, per event its share.
    const b = level.batching!;
    expect(b.tokens / b.reads).toBeGreaterThanOrEqual(batch);
    expect(b.tokens / b.reads).toBeLessThan(batch * 1.1);
    expect(b.maxPerRead).toBeGreaterThanOrEqual(batch);
    expect(b.batchedReads).toBe(b.reads);
    expect(level.readGap!.p50 / 1000).toBeGreaterThanOrEqual(spacingMs * 0.9);
    expect(level.readGap!.p50 / 1000).toBeLessThan(spacingMs * 1.25);
    expect(level.eventGap!.p50 / 1000).toBeGreaterThanOrEqual((spacingMs / batch) * 0.9);
    expect(level.eventGap!.p50 / 1000).toBeLessThan((spacingMs / batch) * 1.25);
    // A stream's first read gives no gap; each later read one, and each of its token events one.
    expect(level.eventGap!.count).toBe(level.readGap!.count * batch);

    // The streams in flight at the level's end finished in the drain, and were counted there.
    const drain = level.drain!;
    expect(drain.open).toBe(streams);
    expect(drain.completed).toBe(streams);
    expect(drain.cut).toBe(0);
    expect(drain.sec).toBeLessThan((writes * spacingMs * 1.5) / 1000);
    expect(drain.batching.tokens).toBeGreaterThan(0);
    expect(level.loaderLag!.count).toBeGreaterThan(0);
  }, 30_000);

  it('cuts the streams still open at the drain cap, counted from the level end, not from each stream start', async () => {
    // Two lanes, writes 200 ms apart: first streams of 0.6 s (the cold start: the window opens at
    // 0.6 s and ends at 1.6 s), then streams of 0.4 s, then of 6 s, started at 1.0 s. Cut at 1.6 s +
    // drainSec, not at their start + the window + drainSec (2.5 s).
    const ctx = await start({ SPACING_MS: '200', WRITES_LIST: '3,3,2,2,30' });
    const drainSec = 0.5;
    const level = await streamLevel(ctx, 2, 1, drainSec);
    expect(level.coldSec).toBeGreaterThanOrEqual(0.6);
    expect(level.coldSec).toBeLessThan(0.75);
    expect(level.started).toBe(6);
    expect(level.completed).toBe(2);
    const drain = level.drain!;
    expect(drain.open).toBe(2);
    expect(drain.cut).toBe(2);
    expect(level.errors).toBe(2);
    expect(level.errorSamples).toEqual([`still open ${drainSec} s after the level ended (the drain cap)`]);
    expect(drain.sec).toBeGreaterThanOrEqual(drainSec);
    expect(drain.sec).toBeLessThan(drainSec + 0.15);
  }, 30_000);
});

/** A stream from `startedAt` with token reads at `at` (ms) of `tokens` each, ending at `endedAt`. */
function trace(startedAt: number, endedAt: number, reads: Array<[at: number, tokens: number]>, complete = true): StreamTrace {
  const r: StreamRead[] = reads.map(([at, tokens]) => ({ at, tokens, events: tokens }));
  return { startedAt, headersAt: startedAt + 1, status: 200, reads: r, tokens: r.reduce((a, x) => a + x.tokens, 0), complete, endedAt, error: complete ? null : 'x', timedOut: false };
}

describe('levelFigures', () => {
  it('counts the window by each stream’s share, hand-computed', () => {
    // Window 400–1000 ms (the cold start ended at 400). Lane A: streams of 300 ms back to back (ends
    // 300, 600, 900, and 1200 in the drain): (600−400)/300 + 1 + 100/300 = 2. Lane B: 400 ms
    // streams (ends 400, 800, 1200): 1 + 200/400 = 1.5. 3.5 streams in 0.6 s.
    const a = [0, 300, 600, 900].map((s) => trace(s, s + 300, [[s + 300, 1]]));
    const b = [0, 400, 800].map((s) => trace(s, s + 400, [[s + 400, 1]]));
    const f = levelFigures([a, b], { streams: 2, durationSec: 0.6, start: 400, end: 1000 });
    expect(f.steady!.sec).toBeCloseTo(0.6, 9);
    expect(f.steady!.completed).toBeCloseTo(3.5, 9);
    expect(f.steady!.completedPerSec).toBeCloseTo(3.5 / 0.6, 9);
    // A count of the streams that ended inside the window (400, 600, 800, 900): 4 in 0.6 s, where
    // the lanes run 1/0.3 + 1/0.4 = 5.83 a second.
    expect(f.completed).toBe(4);
    expect(f.started).toBe(7);
    // One event per stream, by the same shares.
    expect(f.steady!.events).toBeCloseTo(3.5, 9);
    // Events that arrived inside the window (A's first, at 300, came in the cold start).
    expect(f.events).toBe(4);
    expect(f.firstDelta.count).toBe(4);
    expect(f.drain!.open).toBe(2);
    expect(f.drain!.completed).toBe(2);
    expect(f.drain!.sec).toBeCloseTo(0.2, 9);
  });

  it('puts the reads after the level end in the drain’s histograms only, and shares a read’s gap among its events', () => {
    // One stream: 1 token at 100, 3 tokens at 160 (gap 60 → 3 × 20), then 2 tokens at 1040 after the end (gap 880 → 2 × 440).
    const t = trace(0, 1050, [
      [100, 1],
      [160, 3],
      [1040, 2],
    ]);
    const f = levelFigures([[t]], { streams: 1, durationSec: 1, start: 0, end: 1000 });
    expect(f.readGap!.count).toBe(1);
    expect(f.readGap!.max).toBeCloseTo(60_000, -2);
    expect(f.eventGap!.count).toBe(3);
    expect(f.eventGap!.max).toBeCloseTo(20_000, -2);
    expect(f.batching).toEqual({ reads: 2, tokens: 4, batchedReads: 1, maxPerRead: 3 });
    expect(f.firstDelta.count).toBe(1);
    const d = f.drain!;
    expect(d.readGap.count).toBe(1);
    expect(d.readGap.min).toBeCloseTo(880_000, -3);
    expect(d.eventGap.count).toBe(2);
    expect(d.eventGap.min).toBeCloseTo(440_000, -3);
    expect(d.batching).toEqual({ reads: 1, tokens: 2, batchedReads: 1, maxPerRead: 2 });
    expect(d.firstDelta.count).toBe(0);
    expect(f.events).toBe(4);
    expect(d.events).toBe(2);
    // The stream's share inside the window: 1000 of its 1050 ms.
    expect(f.steady!.completed).toBeCloseTo(1000 / 1050, 9);
  });
});
