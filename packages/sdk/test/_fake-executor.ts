// A scripted executor and clock (run/executor.ts): the block and scheduler logic run against it in
// milliseconds, with no server, socket or lock. Its figures are a function of the target, the
// scenario, which start of processes it is (a block, as a process knows it) and the windows that
// process has served, with seeded noise between processes and between windows, so a run on it is
// reproducible from its seeds and the stopping rule meets intervals of a known width.
import { autocannonDriver, type Driver } from '../src/index.js';
import { subSeed } from '../src/analysis/bootstrap.js';
import { createHistogram, encodeHistogram, latencyOf } from '../src/histogram.js';
import { mulberry32, normalDraw } from '../src/random.js';
import { scenarioRequests } from '../src/scenario.js';
import type { StepResult } from '../src/result-schema.js';
import { DEFAULTS } from '../src/defaults.js';
import type { BlockProcess, Clock, Executor, ExecutorContext } from '../src/run/executor.js';
import { fallbackMethod, roundMethod } from '../src/run/methods/index.js';
import type { MethodContext } from '../src/run/methods/method.js';
import { PhaseError, type StartedTarget } from '../src/run/server-process.js';
import type { RunSeam } from '../src/run/suite.js';
import type { RoundItem, WindowFigures } from '../src/run/window.js';
import { zeroResources } from './_helpers.js';

/** Where a window falls, as the fake executor sees it: the nth start of processes, the nth measured window of the process in a scenario. */
export interface FakePlace {
  target: string;
  scenario: string;
  /** Which start of processes (from 1): a block as the processes know it. */
  start: number;
  /** The process's measured windows in this scenario so far, this one included (from 1). */
  window: number;
}

export interface FakeModel {
  /** A target's req/s in a scenario, before noise. */
  rps(target: string, scenario: string): number;
  /** Seeded noise: SD of the log of a process's level (between blocks) and of a window's (within). */
  noise?: { between: number; within: number; seed: number };
  /** A target's noise as a multiple of `noise` (default 1): one pair quieter than another. */
  noiseScale?(target: string): number;
  /** Seconds a block's processes take to start (all at once). Default 1.5. */
  startSec?: number;
  /** Seconds a loader takes to start around each window and warm-up window. Default 0.1. */
  loaderSec?: number;
  /** CPU steal share of a window (over the design's threshold: left out and replaced). */
  steal?(w: FakePlace): number;
  /** The process dies during this window: the window fails, and the process stays dead. */
  crash?(w: FakePlace): boolean;
  /** Extra seconds this window takes beyond its length (a late window). */
  lateSec?(w: FakePlace): number;
  /** A factor on this window's req/s (a trend across a block's rounds). Default 1. */
  factor?(w: FakePlace): number;
  /** Time-sliced windows: the target's slots' first half ÷ second half in this window (a switch cost); its steps then carry slice records. */
  firstHalf?(target: string, w: FakePlace): number;
}

/** Every call the block and scheduler made, for tests that check the schedule itself. */
export interface FakeCall {
  op: 'start' | 'warm' | 'measure' | 'stop';
  targets: string[];
  scenario?: string;
  windowSec?: number;
  /** A warm-up round: the paths each target was sent. */
  paths?: string[][];
  at: number;
}

const gauss = (seed: number): number => {
  return normalDraw(mulberry32(seed));
};

/** A window's figures at `rps` req/s over `sec` per connection step. */
function figures(rps: number, connections: readonly number[], sec: number, steal: number, firstHalf?: number): WindowFigures {
  const steps: StepResult[] = connections.map((c) => {
    const requests = Math.max(1, Math.round(rps * sec));
    const head = firstHalf === undefined ? 0 : Math.round((requests * firstHalf) / (1 + firstHalf));
    const h = createHistogram();
    h.recordValueWithCount(Math.max(1, Math.round((1e6 * c) / rps)), requests);
    const resources = zeroResources({ serverCpuSeconds: requests * 30e-6, serverPeakRssBytes: 50e6, serverProcesses: 1, serverWorkers: 1, cpuSteal: steal, serverCoreShare: 1, samples: 10 });
    return {
      connections: c,
      durationSec: sec,
      rps: requests / sec,
      requests,
      statusCounts: { '200': requests },
      errors: 0,
      timeouts: 0,
      non2xx: 0,
      unexpected: 0,
      latency: latencyOf(h),
      histogram: encodeHistogram(h),
      resources: { ...resources, serverCpuExact: true },
      clientBound: false,
      backendBound: false,
      serverNotSaturated: false,
      loaderBound: false,
      rpsPerCpuSecond: requests / resources.serverCpuSeconds,
      ...(firstHalf === undefined ? {} : { slice: { sliceSec: 0.05, gapSec: 0.002, slots: Math.round(sec / 0.05), activeSec: sec, drained: 0, halves: [head, requests - head] as [number, number] } }),
    };
  });
  const requests = steps.reduce((a, s) => a + s.requests, 0);
  const durationSec = sec * steps.length;
  const only = steps[0]!;
  return {
    durationSec,
    rps: requests / durationSec,
    requests,
    statusCounts: { '200': requests },
    errors: 0,
    timeouts: 0,
    non2xx: 0,
    unexpected: 0,
    latency: only.latency,
    histogram: only.histogram,
    resources: { ...only.resources, serverCpuSeconds: requests * 30e-6 },
    clientBound: false,
    backendBound: false,
    serverNotSaturated: false,
    loaderBound: false,
    cpuPerRequestUs: 30,
    steps,
  };
}

/** A scripted clock: time moves only when the fake executor says a start or a window took it. */
export function fakeClock(): Clock & { advance(sec: number): void } {
  let t = 0;
  return {
    now: () => t,
    date: () => new Date(Date.UTC(2026, 10, 26, 12) + Math.round(t * 1000)),
    advance(sec) {
      t += sec;
    },
  };
}

/**
 * The fake executor and its clock, as a `RunSeam` for `runSuiteWith`: processes that start in
 * `startSec`, warm up towards their level (half the gap closed per warm-up window) and serve
 * windows at their scripted level. `signal` is the run's: a round ends when it aborts.
 */
export function fakeSeam(model: FakeModel): RunSeam & { calls: FakeCall[]; clock: ReturnType<typeof fakeClock> } {
  const clock = fakeClock();
  const calls: FakeCall[] = [];
  const loaderSec = model.loaderSec ?? 0.1;
  let starts = 0;
  // Per process: its start, warm-up windows served, measured windows per scenario, and whether it died.
  const procs = new Map<StartedTarget, { name: string; start: number; warmed: number; measured: Map<string, number>; dead: boolean }>();
  const level = (p: { name: string; start: number }, scenario: string, window: number) => {
    const n = model.noise;
    const k = model.noiseScale?.(p.name) ?? 1;
    const between = n ? k * n.between * gauss(subSeed(n.seed, p.name, scenario, p.start)) : 0;
    const within = n ? k * n.within * gauss(subSeed(n.seed, p.name, scenario, p.start, window)) : 0;
    return model.rps(p.name, scenario) * Math.exp(between + within);
  };
  // A method other than the fallback (sliced) runs its own rounds (`run/methods/`) on this scripted
  // driver: each call is one target's loader of the round, served at its process's scripted level
  // (a warm-up round's as the fallback's warm-up windows are), its slots all measured.
  let phase: 'warm' | 'measure' = 'measure';
  const byUrl = new Map<string, StartedTarget>();
  const slotDriver: Driver = {
    ...fakeDriver,
    capabilities: { ...fakeDriver.capabilities, slots: true },
    async run(o) {
      const started = byUrl.get(o.baseUrl)!;
      const p = procs.get(started)!;
      const scenario = runningScenario.get(started)!;
      let rate: number;
      let firstHalf: number | undefined;
      if (phase === 'warm') {
        p.warmed++;
        rate = level(p, scenario, 0) * (1 - 0.5 ** p.warmed);
      } else {
        const window = (p.measured.get(scenario) ?? 0) + 1;
        p.measured.set(scenario, window);
        const place: FakePlace = { target: p.name, scenario, start: p.start, window };
        rate = level(p, scenario, window) * (model.factor?.(place) ?? 1);
        firstHalf = model.firstHalf?.(p.name, place);
      }
      const requests = Math.max(1, Math.round(rate * o.durationSec));
      const histogram = createHistogram();
      histogram.recordValueWithCount(Math.max(1, Math.round((1e6 * o.connections) / rate)), requests);
      const head = firstHalf === undefined ? undefined : Math.round((requests * firstHalf) / (1 + firstHalf));
      return {
        requests,
        durationSec: o.durationSec,
        histogram,
        statusCounts: { '200': requests },
        errors: 0,
        timeouts: 0,
        non2xx: 0,
        unexpected: 0,
        sliced: {
          activeSec: o.durationSec,
          inSlot: requests,
          rps: requests / o.durationSec,
          drained: 0,
          slots: o.slots?.length ?? 0,
          ...(head === undefined ? {} : { halves: [head, requests - head] as [number, number] }),
        },
      };
    },
  };
  // Which scenario each process serves in the round under way (the scripted driver sees only its URL).
  const runningScenario = new Map<StartedTarget, string>();
  const lastRps = new WeakMap<StartedTarget, number>();
  let rounds = 0;
  /** What the run's method reads, as the real executor gives it, on the scripted driver and clock. */
  const methodContext = (ctx: ExecutorContext, items: readonly RoundItem[]): MethodContext => {
    for (const i of items) runningScenario.set(i.target, i.spec.scenario.name);
    return {
      ...ctx,
      driver: slotDriver,
      date: () => clock.date(),
      nextRoundSeed: () => subSeed(ctx.seed, 'round', ++rounds),
      lastRps: (t) => lastRps.get(t),
      saw: (t, rps) => {
        if (rps > 0) lastRps.set(t, rps);
      },
    };
  };
  const seam: RunSeam & { calls: FakeCall[]; clock: typeof clock } = {
    clock,
    calls,
    executor: (ctx): Executor => ({
      clock,
      async start(targets) {
        starts++;
        clock.advance(model.startSec ?? 1.5);
        calls.push({ op: 'start', targets: targets.map((t) => t.name), at: clock.now() });
        return targets.map((t): BlockProcess => {
          const state = { name: t.name, start: starts, warmed: 0, measured: new Map<string, number>(), dead: false };
          const started: StartedTarget = {
            baseUrl: `http://fake.invalid/${t.name}/${starts}`,
            pid: undefined,
            startupMs: 100,
            servicePids: [],
            exited: undefined,
            exitInfo: () => (state.dead ? { code: 1, signal: null } : undefined),
            tail: () => (state.dead ? 'fake: the process died' : undefined),
            stop: async () => undefined,
          };
          procs.set(started, state);
          byUrl.set(started.baseUrl, started);
          return { name: t.name, started };
        });
      },
      async stop(ps) {
        calls.push({ op: 'stop', targets: ps.map((p) => p.name), at: clock.now() });
      },
      async prepare(scenario) {
        return scenarioRequests(scenario);
      },
      async warmRound(items: readonly RoundItem[], windowSec: number) {
        calls.push({
          op: 'warm',
          targets: items.map((i) => procs.get(i.target)!.name),
          scenario: items[0]?.spec.scenario.name,
          windowSec,
          paths: items.map((i) => i.spec.requests.map((r) => r.path)),
          at: clock.now(),
        });
        const method = roundMethod(ctx.method, items[0]?.spec.scenario, items.length);
        if (method !== fallbackMethod) {
          // The run's own method (sliced) measures the round on the scripted driver; its warm-up round is at the first step.
          phase = 'warm';
          clock.advance(method.roundSec({ name: '', targets: items.length, steps: 1, windowSec, settleSec: 0 }, DEFAULTS.planCosts));
          return method.warmRound(methodContext(ctx, items), items, windowSec);
        }
        return items.map((i) => {
          if (ctx.signal.aborted) throw new PhaseError('interrupted', 'interrupted');
          const p = procs.get(i.target)!;
          clock.advance(windowSec + loaderSec);
          if (p.dead) return { error: new PhaseError('crash', 'server exited during the warm-up', 'fake: the process died', { code: 1, signal: null }) };
          p.warmed++;
          return level(p, i.spec.scenario.name, 0) * (1 - 0.5 ** p.warmed);
        });
      },
      async measureRound(items, onWindow) {
        calls.push({ op: 'measure', targets: items.map((i) => procs.get(i.target)!.name), scenario: items[0]?.spec.scenario.name, at: clock.now() });
        const method = roundMethod(ctx.method, items[0]?.spec.scenario, items.length);
        if (method !== fallbackMethod) {
          // Every target in the same seconds: the round takes what the planner says the method's round takes.
          phase = 'measure';
          const { spec } = items[0]!;
          const done = method.measureRound(methodContext(ctx, items), items, onWindow);
          clock.advance(method.roundSec({ name: '', targets: items.length, steps: spec.steps.length, windowSec: spec.windowSec, settleSec: 0 }, DEFAULTS.planCosts));
          return done;
        }
        // One window after another: the fake's own script of the fallback method, window by window.
        for (const [i, item] of items.entries()) {
          if (ctx.signal.aborted) return;
          const p = procs.get(item.target)!;
          const scenario = item.spec.scenario.name;
          const window = (p.measured.get(scenario) ?? 0) + 1;
          p.measured.set(scenario, window);
          const place: FakePlace = { target: p.name, scenario, start: p.start, window };
          const startedAt = clock.date().toISOString();
          const { spec } = item;
          clock.advance(spec.settleSec + (spec.steps.length - 1) * spec.laterSettleSec + spec.steps.length * (spec.windowSec + loaderSec) + (model.lateSec?.(place) ?? 0));
          if (p.dead || model.crash?.(place)) {
            p.dead = true;
            onWindow(i, { startedAt, error: new PhaseError('crash', 'server exited during the window (exit code 1)', 'fake: the process died', { code: 1, signal: null }) });
            continue;
          }
          const rate = level(p, scenario, window) * (model.factor?.(place) ?? 1);
          onWindow(i, { startedAt, figures: figures(rate, spec.steps, spec.windowSec, model.steal?.(place) ?? 0, model.firstHalf?.(p.name, place)) });
        }
      },
    }),
  };
  return seam;
}

/** A driver the fake executor never calls: the result records its name, version and flags. */
export const fakeDriver: Driver = {
  ...autocannonDriver,
  name: 'fake',
  run: () => Promise.reject(new Error('the fake executor measures; the driver is never called')),
  close: async () => undefined,
};

/** Targets the setup phase leaves alone (a URL is never started by the run): the fake executor serves them. */
export const fakeTargets = (...names: string[]) => names.map((name) => ({ kind: 'url' as const, name, url: `http://fake.invalid/${name}` }));

/** The fake driver as one that can confine its sends to slots: a run asked for sliced rounds runs the sliced method's rounds on the fake executor. */
export const fakeSlicingDriver: Driver = { ...fakeDriver, capabilities: { ...fakeDriver.capabilities, slots: true } };
