// The streaming scenario kind end to end: runSuite against two small real gateways (one that
// aborts its upstream request when the client goes and waits for the client's socket, one that does
// neither) in front of the real stub backend, on real sockets. Streams are 20 ms apart, so the
// measured inter-event gap has a known value. One block, a few seconds per phase; nothing here asserts
// a duration beyond the known spacing.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEFAULTS, resultSchema, runSuite, type BenchResult, type StreamResult } from '@benchsuite/sdk';
import { stubBackendService } from '../src/index.js';

const gateway = fileURLToPath(new URL('./fixtures/sse-gateway.mjs', import.meta.url));
const spacingMs = 20;

const fixture = (name: string, env: Record<string, string>) => ({
  kind: 'process' as const,
  name,
  command: [process.execPath, gateway],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the SDK's service placeholder.
  env: { BACKEND_URL: '${services.backend.url}', ...env },
  services: { backend: stubBackendService },
});

const body = (extra: Record<string, unknown> = {}) => JSON.stringify({ model: 'm', max_tokens: 256, messages: [{ role: 'user', content: 'hello' }], stream: true, ...extra });

const scenario = {
  name: 'sse',
  kind: 'stream' as const,
  request: { method: 'POST', path: '/v1/messages', headers: { 'content-type': 'application/json' }, body: body() },
  expect: { status: 200 },
  stream: {
    streams: [4],
    durationSec: 1.5,
    warmupSec: 0.3,
    observer: {
      service: 'backend',
      configure: {
        load: { streamChunkDelayMs: spacingMs, streamRepeat: 1, msPer100Tokens: 0 },
        cancel: { streamChunkDelayMs: 50, streamRepeat: 1 },
        backpressure: { streamChunkDelayMs: 0, streamRepeat: 16_000 },
      },
    },
    cancel: { count: 4, afterEvents: 2, waitMs: 2000 },
    backpressure: { readBytesPerSec: 1024, durationSec: 3, body: body({ max_tokens: 100_000_000 }) },
  },
};

describe('a streaming scenario (kind "stream")', () => {
  let result: BenchResult;
  const of = (target: string): StreamResult['blocks'][number] => {
    const r = result.streaming!.find((s) => s.target === target)!;
    expect(r.blocks).toHaveLength(1);
    return r.blocks[0]!;
  };

  it('runs every phase on both gateways and writes a valid result', async () => {
    result = await runSuite({
      scenarios: [scenario],
      targets: [fixture('aborts', { ABORT: '1', BUFFER: '0' }), fixture('ignores', { ABORT: '0', BUFFER: '1' })],
      design: { windowSec: DEFAULTS.windowSec, blocks: { min: 1, max: 1 } },
      verify: false,
      pinning: false,
      seed: 3,
    });
    expect(resultSchema.safeParse(result).success).toBe(true);
    expect(result.scenarios.find((s) => s.name === 'sse')?.kind).toBe('stream');
    expect(result.streaming?.map((s) => s.target).sort()).toEqual(['aborts', 'ignores']);
    for (const t of ['aborts', 'ignores']) expect(of(t).status, of(t).failure).toBe('ok');
  }, 120_000);

  it('measures the inter-event gap the stub was told to keep, and counts completed streams', () => {
    for (const t of ['aborts', 'ignores']) {
      const [level] = of(t).levels;
      expect(level!.streams).toBe(4);
      expect(level!.errors).toBe(0);
      expect(level!.completed).toBeGreaterThan(4);
      expect(level!.steady!.completedPerSec).toBeGreaterThan(0);
      expect(level!.steady!.eventsPerSec).toBeGreaterThan(level!.steady!.completedPerSec);
      // Latencies are µs: the median gap is the stub's 20 ms spacing plus timer slack, per read and
      // per event alike (the gateways write each token on its own).
      for (const gap of [level!.readGap!, level!.eventGap!]) {
        expect(gap.p50 / 1000).toBeGreaterThanOrEqual(spacingMs * 0.9);
        expect(gap.p50 / 1000).toBeLessThan(spacingMs * 1.75);
      }
      expect(level!.firstDelta.p50).toBeGreaterThanOrEqual(level!.ttfb.p50);
    }
  });

  it('times the upstream abort on the gateway that aborts, and reports every upstream request as never aborted on the one that does not', () => {
    const good = of('aborts').cancel!;
    expect(good.disconnects).toBe(4);
    expect(good.aborted).toBe(4);
    expect(good.neverAborted).toBe(0);
    expect(good.latency.p50).toBeGreaterThan(0);
    expect(good.latency.p99 / 1000).toBeLessThan(500);
    const bad = of('ignores').cancel!;
    expect(bad.disconnects).toBe(4);
    expect(bad.aborted).toBe(0);
    expect(bad.neverAborted).toBe(4);
  });

  it('sees memory grow on the gateway that buffers for a slow reader, and the stub throttled behind the one that waits', () => {
    const buffered = of('ignores').backpressure!;
    const throttled = of('aborts').backpressure!;
    expect(buffered.clientBytes).toBeGreaterThan(0);
    // The buffering gateway absorbs the backend's stream (it goes on writing, or finishes) ...
    expect(buffered.upstream?.throttled, JSON.stringify(buffered.upstream)).toBe(false);
    if (buffered.upstream?.outcome !== 'completed') expect(buffered.upstream!.lateBytes).toBeGreaterThan(4 * 2 ** 20);
    expect(buffered.rssGrowthBytes).toBeGreaterThan(16 * 2 ** 20);
    // ... the waiting one holds it to the reader's pace: little written in the second half. The phase
    // runs on past its 3 s (up to 9 s) until the buffers between the stub and the reader are full
    // (0.9 s here; longer on a slow host), so the verdict does not follow the host's speed.
    expect(throttled.upstream?.throttled, `${JSON.stringify(throttled.upstream)} after ${throttled.durationSec} s`).toBe(true);
    expect(throttled.upstream!.waits).toBeGreaterThan(0);
    expect(throttled.upstream!.outcome).toBe('in-flight');
    expect(throttled.upstream!.lateBytes).toBeLessThan(2 ** 20);
    expect(throttled.rssGrowthBytes).toBeLessThan(buffered.rssGrowthBytes / 2);
    expect(buffered.rssSeries.length).toBeGreaterThanOrEqual(2);
  });
});
