import { describe, expect, it } from 'vitest';
import type { SuiteEvent } from '@benchsuite/sdk';
import { createProgress } from '../src/_progress.js';

type WindowEvent = Extract<SuiteEvent, { type: 'window' }>;

function okWindow(over: { target: string; rps: number; steal?: number; excluded?: 'steal' | null; clientBound?: boolean; round?: number }): WindowEvent['window'] {
  return {
    scenario: 'baseline',
    target: over.target,
    block: 2,
    round: over.round ?? 3,
    position: 0,
    index: 7,
    startedAt: '2026-11-23T00:00:00.000Z',
    elapsedSec: 190,
    status: 'ok',
    durationSec: 1,
    rps: over.rps,
    requests: over.rps,
    statusCounts: { 200: over.rps },
    errors: 0,
    timeouts: 0,
    non2xx: 0,
    unexpected: 0,
    latency: { p50: 1, p90: 1, p99: 1, p999: 1, min: 1, max: 1, mean: 1, stdev: 0, count: over.rps },
    histogram: '',
    resources: {
      serverCpuSeconds: 1,
      serverPeakRssBytes: 1,
      serverProcesses: 1,
      loaderCpuSeconds: 1,
      loaderCoreBusy: 0.5,
      loaderBusiestCore: 0.5,
      loaderThreadBusy: 0.5,
      cpuSteal: over.steal ?? 0,
      samples: 10,
    },
    clientBound: over.clientBound ?? false,
    cpuPerRequestUs: 10,
    steps: [],
    excluded: over.excluded ?? null,
  } as WindowEvent['window'];
}

function capture(tty: boolean, now = () => 0) {
  let out = '';
  const p = createProgress({
    write: (t) => {
      out += t;
    },
    tty,
    columns: 200,
    now,
  });
  return { p, text: () => out };
}

describe('progress when piped: plain lines, one per event worth keeping', () => {
  it('block start, warm-up, windows with steal and client-bound marks, failures, block end and the precision decision', () => {
    const { p, text } = capture(false);
    p.onEvent({ type: 'driver', name: 'autocannon', reason: 'wrk not available (not installed): using autocannon' });
    p.onEvent({ type: 'block-start', scenario: 'baseline', block: 2, targets: ['node-http', 'fastify'], elapsedSec: 185, budgetSec: 1080 });
    p.onEvent({ type: 'warmup', scenario: 'baseline', block: 2, target: 'fastify', sec: 1, served: 41000, rps: 41000, steady: false });
    p.onEvent({ type: 'warmup', scenario: 'baseline', block: 2, target: 'fastify', sec: 3, served: 131000, rps: 45200, steady: true });
    p.onEvent({ type: 'window', window: okWindow({ target: 'fastify', rps: 45230 }), elapsedSec: 190, budgetSec: 1080 });
    p.onEvent({ type: 'window', window: okWindow({ target: 'node-http', rps: 61000, steal: 0.14, excluded: 'steal' }), elapsedSec: 191, budgetSec: 1080 });
    p.onEvent({ type: 'window', window: okWindow({ target: 'node-http', rps: 75000, steal: 0.07, clientBound: true, round: 4 }), elapsedSec: 192, budgetSec: 1080 });
    p.onEvent({
      type: 'window',
      elapsedSec: 193,
      budgetSec: 1080,
      window: {
        scenario: 'baseline',
        target: 'koa',
        block: 2,
        round: 4,
        position: 2,
        index: 9,
        startedAt: '2026-11-23T00:00:00.000Z',
        elapsedSec: 193,
        status: 'failed',
        failure: { phase: 'crash', message: 'server exited (exit code 3)', stderrTail: 'boom' },
      },
    });
    p.onEvent({ type: 'precision', scenario: 'baseline', blocks: 3, rounds: 36, worstHalfWidth: 0.031, target: 0.02, decision: 'continue' });
    p.onEvent({ type: 'precision', scenario: 'baseline', blocks: 6, rounds: 72, worstHalfWidth: 0.019, target: 0.02, decision: 'precision' });
    p.done();
    expect(text().split('\n')).toEqual([
      'driver autocannon: wrk not available (not installed): using autocannon',
      'baseline: block 2 (node-http, fastify) at 3m05s of 18m',
      '  warm-up fastify: warm after 3s (131.0k requests) at 45.2k req/s',
      '  block 2 round 3 fastify: 45.2k req/s (3m10s of 18m)',
      '  block 2 round 3 node-http: 61.0k req/s [steal 14.0%: left out] (3m11s of 18m)',
      '  block 2 round 4 node-http: 75.0k req/s [steal 7.0%, client-bound] (3m12s of 18m)',
      '  FAILED baseline × koa, block 2 round 4 (crash): server exited (exit code 3)',
      '    | boom',
      'baseline: worst ±3.1% (target ±2.0%) after 3 blocks, 36 rounds → continue',
      'baseline: worst ±1.9% (target ±2.0%) after 6 blocks, 72 rounds → stop: precision reached',
      '',
    ]);
    expect(text()).not.toContain('\r');
  });
});

describe('progress of the steps beside the windows: data from the SDK, sentences from the report', () => {
  it('not pinned, the budget plan, a failed step, windows lengthened, the backend ceiling, capacity probes, a change during the run and a signal', () => {
    const { p, text } = capture(false);
    p.onEvent({ type: 'not-pinned', reason: 'taskset not found on PATH' });
    p.onEvent({ type: 'budget', plan: { minimumSec: 1500, givenMinimumSec: 1900, changes: [{ what: 'rounds', from: 5, to: 3 }], overBySec: 420 }, budgetSec: 1080 });
    p.onEvent({ type: 'step-failed', step: 'backend-ceiling', scenario: 'gateway-json', message: 'stub exited' });
    p.onEvent({ type: 'window-fit', scenario: 'gateway-json', block: 1, fromSec: 0.8, toSec: 1.6, connections: 50, minResponses: 5 });
    p.onEvent({ type: 'ceiling', scenario: 'gateway-json', service: 'stub' });
    p.onEvent({ type: 'capacity', scenario: 'baseline', target: 'koa', slo: 'p99<10ms' });
    p.onEvent({
      type: 'capacity',
      scenario: 'baseline',
      target: 'koa',
      slo: 'p99<10ms',
      block: 1,
      probe: { rate: 8000, achievedRps: 7990.4, p50: 900, p99: 4200, meets: true, failed: null, errorShare: 0 },
    });
    p.onEvent({ type: 'replan', change: { what: 'warmup', from: 4, to: 2, atSec: 642, scenario: 'concurrency-ramp' } });
    p.note('SIGINT: stopping');
    p.done();
    const lines = text().split('\n');
    expect(lines[0]).toBe('warning: server and load generator were not pinned to separate cores (taskset not found on PATH): they competed for the same CPUs');
    expect(lines[1]).toMatch(/^warning: budget: the minimum design \(about 31 min 40 s\) does not fit the 18 min 00 s budget: rounds per block start at 3 instead of 5 /);
    expect(lines[2]).toMatch(/^warning: budget: even the smallest design needs about 25 min 00 s, 7 min 00 s over the 18 min 00 s budget/);
    expect(lines[3]).toBe("warning: gateway-json: measuring the backend's own ceiling failed, the run goes on without it: stub exited");
    expect(lines[4]).toBe('gateway-json: windows lengthened from 0.80 s to 1.60 s in block 1, so that each of 50 connections gets at least 5 responses at the latency the warm-up saw');
    expect(lines[5]).toBe("gateway-json: measuring the backend's own ceiling (service stub loaded directly)");
    expect(lines[6]).toBe('baseline × koa: capacity under p99<10ms');
    expect(lines[7]).toBe('  baseline × koa block 1: 8000 req/s offered → 7990 req/s, p99 4.2 ms, meets');
    expect(lines[8]).toMatch(/^warning: budget: from 10 min 42 s on, warm-up stops at 2 s instead of 4 s .*concurrency-ramp's blocks took longer than planned/);
    expect(lines[9]).toBe('SIGINT: stopping');
  });

  it('the forecasts after block 2: with processes per scenario, how many scenarios had begun and which one the report keeps', () => {
    const { p, text } = capture(false);
    const forecast = { method: 'sliced', source: 'measured' as const, components: { between: 0.02, within: 0.06 }, blocks: 4, rounds: 2, halfWidth: 0.07, budgetFor: [] };
    p.onEvent({ type: 'forecast', forecast, afterBlock: 2, scenarios: { begun: 1, of: 9 } });
    p.onEvent({ type: 'forecast', forecast, afterBlock: 2, scenarios: { begun: 4, of: 9 } });
    p.onEvent({ type: 'forecast', forecast, afterBlock: 2 });
    p.done();
    const lines = text().split('\n');
    expect(lines[0]).toMatch(/^expects after block 2 \(1 of 9 scenarios begun: the one the report keeps\): about ±7\.0% for a typical pair/);
    expect(lines[1]).toMatch(/^expects after block 2 \(4 of 9 scenarios begun\): about ±7\.0%/);
    expect(lines[2]).toMatch(/^expects after block 2: about ±7\.0%/);
  });

  it("windows lengthened in a scenario's later block say that its earlier blocks' latency counted too", () => {
    const { p, text } = capture(false);
    p.onEvent({ type: 'window-fit', scenario: 'concurrency-ramp', block: 2, fromSec: 0.5, toSec: 1.19, connections: 500, minResponses: 5 });
    p.done();
    expect(text().split('\n')[0]).toBe(
      "concurrency-ramp: windows lengthened from 0.50 s to 1.19 s in block 2, so that each of 500 connections gets at least 5 responses at the latency the warm-up and the scenario's earlier blocks saw",
    );
  });
});

describe('verify: one line per target unless a check fails', () => {
  const verify = (scenario: string, target: string, ok: boolean): SuiteEvent => ({
    type: 'verify',
    outcome: { scenario, target, ok, ...(ok ? {} : { reason: 'answered 500, expected 201', diff: '- status: 201\n+ status: 500' }) },
  });
  const events = (): SuiteEvent[] => [
    ...['baseline', 'json-post', 'auth'].map((s) => verify(s, 'node-http', true)),
    verify('baseline', 'express', true),
    verify('json-post', 'express', false),
    verify('auth', 'express', true),
    { type: 'costs', target: 'node-http', message: 'cold start 1/5' },
  ];

  it('piped: the failed check in full, then one line per target with its count, when the next step starts', () => {
    const { p, text } = capture(false);
    for (const e of events()) p.onEvent(e);
    expect(text().split('\n')).toEqual([
      'verify json-post × express: FAILED, not benchmarked',
      '    - status: 201',
      '    + status: 500',
      'verify  node-http  3/3 ok',
      'verify  express    2/3 ok, 1 FAILED (above), not benchmarked there',
      'costs node-http: cold start 1/5',
      '',
    ]);
  });

  it('on a terminal: each check on the live line only, and the same lasting lines; a run that ends after verify still says them', () => {
    const { p, text } = capture(true);
    for (const e of events().slice(0, 3)) p.onEvent(e);
    expect(text()).toContain('verify auth × node-http: ok');
    expect(text()).not.toContain('\n');
    p.done();
    expect(text()).toMatch(/verify {2}node-http {2}3\/3 ok\n$/);
  });
});

describe('progress on a terminal: one live line, lasting lines for decisions', () => {
  it('redraws the live line in place with elapsed of the budget from an injected clock, and clears it before a lasting line', () => {
    let t = 100;
    const { p, text } = capture(true, () => t);
    p.onEvent({ type: 'block-start', scenario: 'baseline', block: 1, targets: ['a', 'b'], elapsedSec: 0, budgetSec: 60 });
    t = 105;
    p.onEvent({ type: 'window', window: okWindow({ target: 'a', rps: 1234 }), elapsedSec: 4, budgetSec: 60 });
    expect(text().endsWith('\r\u001b[2Kbaseline · block 2 · round 3 · a 1.2k req/s · 4s of 1m')).toBe(true);
    t = 107;
    p.onEvent({ type: 'precision', scenario: 'baseline', blocks: 1, rounds: 5, worstHalfWidth: null, target: 0.02, decision: 'continue' });
    expect(text()).toContain('\r\u001b[2Kbaseline: no interval yet (target ±2.0%) after 1 block, 5 rounds → continue\n');
    expect(text().endsWith('· 6s of 1m')).toBe(true);
    p.done();
    expect(text().endsWith('\r\u001b[2K')).toBe(true);
  });
});
