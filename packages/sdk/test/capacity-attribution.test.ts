// Who a failed capacity probe is charged to, from the evidence the open-loop driver gives: latency
// from the actual send against the one from the intended send, late and unsent shares, the loader's
// CPU, and how full the server was per thread it can use. Pure: probe figures built by hand.
import { describe, expect, it } from 'vitest';
import { parseThresholds } from '../src/analysis/thresholds.js';
import { judgeProbe, loaderLate, loaderLimited } from '../src/run/capacity.js';
import { busiestThreadShare, serverFullShare } from '../src/window-resources.js';
import type { Latency } from '../src/index.js';
import { zeroResources } from './_helpers.js';

const lat = (p99: number): Latency => ({ p50: p99 / 4, p90: p99 / 2, p99, p999: p99 * 2, min: 1, max: p99 * 3, mean: p99 / 3, stdev: 1, count: 1000 });

const terms = parseThresholds('p99<50ms,errors<1%');

/** A 2-s probe at `rate`: µs latencies from the actual and the intended send, late sends, the loader's and the server's CPU. */
function probe(o: {
  rate: number;
  actualP99: number;
  intendedP99: number;
  late: number;
  loaderBusy: number;
  serverShare: number;
  busiestThread?: number;
  dropped?: number;
  loaderErrors?: number;
  loaderWait?: number;
  loaderCore?: number;
}) {
  const requests = o.rate * 2 - (o.dropped ?? 0) - (o.loaderErrors ?? 0);
  return {
    rps: requests / 2,
    requests,
    errors: 0,
    timeouts: 0,
    unexpected: 0,
    ...(o.loaderErrors ? { loaderErrors: o.loaderErrors } : {}),
    latency: lat(o.actualP99),
    openLoop: { corrected: lat(o.intendedP99), late: o.late, dropped: o.dropped ?? 0 },
    cpuPerRequestUs: 20,
    resources: zeroResources({
      loaderThreadBusy: o.loaderBusy,
      loaderBusiestCore: o.loaderCore ?? o.loaderBusy,
      ...(o.loaderWait !== undefined ? { loaderThreadWait: o.loaderWait } : {}),
      serverCoreShare: o.serverShare,
      serverProcesses: 1,
      ...(o.busiestThread !== undefined ? { serverBusiestThread: o.busiestThread } : {}),
    }),
  };
}

describe('a failed probe is attributed by the evidence the driver gives', () => {
  it("the grey zone (oha at 30k req/s: 0.66 of its core, 17% of sends late, p99 95 ms from the intended send, the server 80% busy) is the loader's", () => {
    const f = probe({ rate: 30_000, actualP99: 4_000, intendedP99: 95_330, late: 0.17 * 60_000, loaderBusy: 0.66, serverShare: 0.8 });
    expect(judgeProbe(30_000, f, terms)).toMatchObject({ meets: false, failed: 'p99<50ms', loaderBound: true, loaderEvidence: 'late' });
  });

  it('a failure at a full server with an on-time loader stays the server’s', () => {
    // Late 0.2%: the latency from the actual send fails too, the server's core full.
    const f = probe({ rate: 30_000, actualP99: 80_000, intendedP99: 82_000, late: 120, loaderBusy: 0.5, serverShare: 0.99 });
    expect(judgeProbe(30_000, f, terms)).toMatchObject({ meets: false, loaderBound: false });
    expect(judgeProbe(30_000, f, terms).loaderEvidence).toBeUndefined();
    // A slow server with room on its core (waiting on a backend, a lock): slow from the actual send too.
    const slow = probe({ rate: 2_000, actualP99: 70_000, intendedP99: 75_000, late: 300, loaderBusy: 0.2, serverShare: 0.3 });
    expect(judgeProbe(2_000, slow, terms)).toMatchObject({ meets: false, loaderBound: false });
  });

  it("a loader slowed on purpose, under 0.8 of its CPU, whose lateness makes the failure is the loader's", () => {
    // 600 µs of work before each send: 0.7 of its thread, 12% of sends late, the tiny server at 10%.
    const f = probe({ rate: 1_200, actualP99: 2_500, intendedP99: 64_000, late: 290, loaderBusy: 0.7, serverShare: 0.1 });
    expect(judgeProbe(1_200, f, terms)).toMatchObject({ meets: false, loaderBound: true, loaderEvidence: 'late' });
  });

  it('needs the lateness to be material and the server to have room per thread', () => {
    const base = { rate: 30_000, actualP99: 4_000, intendedP99: 95_000, loaderBusy: 0.66, serverShare: 0.5 };
    // 0.5% late (under `capacity.lateShare`): the server's.
    expect(judgeProbe(30_000, probe({ ...base, late: 300 }), terms).loaderBound).toBe(false);
    // The server's one thread full although its two cores read 50%: the server's.
    expect(judgeProbe(30_000, probe({ ...base, late: 10_000, busiestThread: 0.99 }), terms).loaderBound).toBe(false);
    expect(judgeProbe(30_000, probe({ ...base, late: 10_000, busiestThread: 0.6 }), terms).loaderBound).toBe(true);
  });

  it("keeps the old rule: a busy loader that fell behind with the server's core free is the loader's ('busy')", () => {
    const f = probe({ rate: 40_000, actualP99: 200_000, intendedP99: 276_000, late: 52_000, loaderBusy: 0.95, serverShare: 0.8, dropped: 8_900 });
    expect(judgeProbe(40_000, f, terms)).toMatchObject({ meets: false, loaderBound: true, loaderEvidence: 'busy' });
  });

  it("a loader that waited for its core (another session's work shared it) asked for it as much as one that used it: its failure far behind the schedule is the loader's ('busy')", () => {
    // oha offered 224k req/s, twice its ceiling: 0.52 of its core used and 0.31 of the window
    // waiting for it, 41k delivered, the server 42% busy (capacity-oha-ceiling.test.ts).
    const waited = { rate: 224_000, actualP99: 300_000, intendedP99: 1_400_000, late: 81_000, loaderBusy: 0.52, loaderCore: 0.99, serverShare: 0.42, dropped: 366_000 };
    expect(judgeProbe(224_000, probe({ ...waited, loaderWait: 0.31 }), terms)).toMatchObject({ meets: false, loaderBound: true, loaderEvidence: 'busy' });
    // Its own CPU alone (no wait measured, or none): the server's.
    expect(judgeProbe(224_000, probe(waited), terms).loaderBound).toBe(false);
    expect(judgeProbe(224_000, probe({ ...waited, loaderWait: 0.02 }), terms).loaderBound).toBe(false);
    // A loader that waited but was not behind: met, or a failure the server's.
    expect(loaderLimited(2_000, { ...probe({ ...waited, rate: 2_000, dropped: 0, late: 0, loaderWait: 0.31 }) })).toBe(false);
  });

  it("the loader's own failed sends are not the server's errors, and count as its lateness", () => {
    // 10% of sends failed at the loader (EMFILE): not in the error share; the rate it had to deliver is short by them.
    const f = probe({ rate: 10_000, actualP99: 3_000, intendedP99: 3_500, late: 0, loaderBusy: 0.4, serverShare: 0.4, loaderErrors: 2_000 });
    const p = judgeProbe(10_000, f, terms);
    expect(p.errorShare).toBe(0);
    expect(p).toMatchObject({ meets: false, failed: 'throughput ≥ 95% of the offered rate', loaderBound: true, loaderEvidence: 'late' });
    expect(loaderLate(10_000, { ...f, loaderErrors: 0 }, terms)).toBe(false);
  });
});

describe("the server's fullness per thread it can use", () => {
  it('is the larger of its cores’ share and its busiest thread’s', () => {
    expect(serverFullShare({ serverCoreShare: 0.5, serverBusiestThread: 0.98 })).toBe(0.98);
    expect(serverFullShare({ serverCoreShare: 0.9, serverBusiestThread: 0.46 })).toBe(0.9);
    // Older results and hosts without schedstat: the cores' share.
    expect(serverFullShare({ serverCoreShare: 0.5 })).toBe(0.5);
  });

  it('takes the busiest thread of the tree from per-thread nanoseconds (a thread born in the window from 0)', () => {
    const start = new Map([
      [
        10,
        {
          ticks: 0,
          threads: new Map([
            [10, 1e9],
            [11, 5e8],
          ]),
        },
      ],
      [20, { ticks: 0, threads: new Map([[20, 0]]) }],
    ]);
    const end = new Map([
      [
        10,
        {
          ticks: 0,
          threads: new Map([
            [10, 1e9 + 1.9e9],
            [11, 5e8 + 1e8],
            [12, 3e8],
          ]),
        },
      ],
      [20, { ticks: 0, threads: new Map([[20, 4e8]]) }],
    ]);
    expect(busiestThreadShare(start, end, 2)).toBeCloseTo(0.95, 6);
    // No per-thread figures: unknown.
    expect(busiestThreadShare(new Map([[10, { ticks: 0 }]]), new Map([[10, { ticks: 5 }]]), 2)).toBeUndefined();
    expect(busiestThreadShare(new Map(), new Map(), 2)).toBeUndefined();
  });
});
