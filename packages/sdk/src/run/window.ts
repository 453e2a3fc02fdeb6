import { DEFAULTS } from '../defaults.js';
import type { DriverRunResult } from '../driver.js';
import type { DesignThresholds } from '../design-thresholds.js';
import { encodeHistogram, latencyOf, mergeHistograms, type Histogram } from '../histogram.js';
import type { OkWindow, StepResult } from '../result-schema.js';
import { bottlenecks, isClientBound, serverCpuExactOf, type WindowResources } from '../window-resources.js';
import type { RequestSpec, Scenario } from '../scenario.js';
import { loadOnce, type LoadContext } from './load.js';
import { PhaseError, type StartedTarget } from './server-process.js';
import { mergeOpenLoop, openLoopRecord } from '../open-loop.js';

/** What one window needs besides the target: the driver, pinning and the window's timing. */
export interface WindowContext extends LoadContext {
  clientBoundBusy: number;
  /** The run's recorded bottleneck thresholds (`result.design`); `DEFAULTS` when absent. */
  bottleneckThresholds?: Pick<DesignThresholds, 'backendBoundBusy' | 'serverSaturatedShare' | 'loaderBound'>;
}

export interface WindowSpec {
  scenario: Scenario;
  requests: readonly RequestSpec[];
  /** Connection steps measured one after the other (one for a fixed load). */
  steps: readonly number[];
  windowSec: number;
  /** Seconds of load before the first step's measurement, never recorded. */
  settleSec: number;
  /** Seconds of load before each later step's measurement (the previous step has just loaded the process). */
  laterSettleSec: number;
}

/** One target of a round: the process that serves it and how the scenario loads it. */
export interface RoundItem {
  target: StartedTarget;
  spec: WindowSpec;
}

/** Unrecorded load seconds of a window: the first step's settle and each later step's. */
export const settleSecOf = (spec: Pick<WindowSpec, 'steps' | 'settleSec' | 'laterSettleSec'>): number => spec.settleSec + (spec.steps.length - 1) * spec.laterSettleSec;

/** The measured part of a window, before its place in the run (block, round…) is added. */
export type WindowFigures = Pick<
  OkWindow,
  | 'durationSec'
  | 'rps'
  | 'requests'
  | 'statusCounts'
  | 'errors'
  | 'loaderErrors'
  | 'timeouts'
  | 'non2xx'
  | 'unexpected'
  | 'latency'
  | 'histogram'
  | 'resources'
  | 'clientBound'
  | 'backendBound'
  | 'serverNotSaturated'
  | 'loaderBound'
  | 'cpuPerRequestUs'
  | 'steps'
  | 'fixedRequests'
  | 'openLoop'
>;

/** A window's resources when nothing was sampled (a loader that ended without its hooks, a merged k6 run). */
export const emptyResources = (): WindowResources => ({
  serverCpuSeconds: 0,
  serverPeakRssBytes: 0,
  serverProcesses: 0,
  loaderCpuSeconds: 0,
  loaderCoreBusy: 0,
  loaderBusiestCore: 0,
  loaderThreadBusy: 0,
  cpuSteal: 0,
  serverCoreShare: 0,
  serviceCpuSeconds: 0,
  serviceBusy: 0,
  samples: 0,
});

/**
 * Load one target for one window: each connection step in turn (settle, then measure), sampling
 * the server's process tree and the loader's CPU at the measured edges. Throws `PhaseError`.
 */
export async function measureWindow(ctx: WindowContext, target: StartedTarget, spec: WindowSpec): Promise<WindowFigures> {
  const load = spec.scenario.load;
  const expectStatus = Array.isArray(spec.scenario.expect.status) ? spec.scenario.expect.status : [spec.scenario.expect.status];
  const steps: StepResult[] = [];
  const histograms: Histogram[] = [];
  for (const [i, connections] of spec.steps.entries()) {
    const { res, resources } = await loadOnce(ctx, {
      server: target,
      send: {
        requests: spec.requests,
        connections,
        warmupSec: i === 0 ? spec.settleSec : spec.laterSettleSec,
        durationSec: spec.windowSec,
        requestCount: load.requests,
        rate: load.rate,
        openLoop: load.openLoop,
        timeoutSec: load.timeout,
        expectStatus,
      },
      failures: 'window',
      sample: {},
    });
    if (res.requests === 0) {
      throw new PhaseError('load', `no response in the measured window at ${connections} connections (${res.errors} errors, ${res.timeouts} timeouts): is the server reachable at ${target.baseUrl}?`);
    }
    histograms.push(res.histogram);
    steps.push(stepOf(ctx, connections, res, resources ?? emptyResources(), { sampledServer: target.pid !== undefined, openLoop: load.openLoop ? { rate: load.rate } : undefined }));
  }
  const figures = combineSteps(steps, histograms, target.pid !== undefined);
  return load.requests !== undefined ? { ...figures, fixedRequests: load.requests } : figures;
}

/**
 * One connection step's record from what the driver measured and the resources sampled around it
 * (throughput: responses ÷ measured seconds; a sliced step's: responses inside its slots ÷ their
 * seconds, with the slot plan it ran on).
 */
export function stepOf(
  ctx: Pick<WindowContext, 'clientBoundBusy' | 'bottleneckThresholds'>,
  connections: number,
  res: DriverRunResult,
  r: WindowResources,
  o: { sampledServer: boolean; openLoop?: { rate: number | undefined } | undefined; slice?: { sliceSec: number; gapSec: number; startsSec?: readonly number[] } | undefined },
): StepResult {
  const clientBound = isClientBound(r, ctx.clientBoundBusy);
  const rps = res.sliced ? res.sliced.rps : res.durationSec > 0 ? res.requests / res.durationSec : 0;
  return {
    connections,
    durationSec: res.durationSec,
    rps,
    requests: res.requests,
    statusCounts: res.statusCounts,
    errors: res.errors,
    ...(res.loaderErrors ? { loaderErrors: res.loaderErrors } : {}),
    timeouts: res.timeouts,
    non2xx: res.non2xx,
    unexpected: res.unexpected,
    latency: latencyOf(res.histogram),
    histogram: encodeHistogram(res.histogram),
    resources: r,
    clientBound,
    ...bottlenecks(r, { sampledServer: o.sampledServer, clientBound }, ctx.bottleneckThresholds),
    rpsPerCpuSecond: r.serverCpuSeconds > 0 ? res.requests / r.serverCpuSeconds : null,
    ...(o.openLoop ? { openLoop: openLoopRecord(res.openLoop, o.openLoop.rate) } : {}),
    ...(res.sliced && o.slice
      ? {
          slice: {
            sliceSec: o.slice.sliceSec,
            gapSec: o.slice.gapSec,
            slots: res.sliced.slots,
            activeSec: res.sliced.activeSec,
            drained: res.sliced.drained,
            ...(res.sliced.halves ? { halves: res.sliced.halves } : {}),
            ...(res.sliced.eighths ? { eighths: res.sliced.eighths } : {}),
            ...(res.sliced.slotRps && o.slice.startsSec && res.sliced.slotRps.length === o.slice.startsSec.length
              ? { perSlot: o.slice.startsSec.map((at, i): [number, number] => [at, res.sliced!.slotRps![i]!]) }
              : {}),
          },
        }
      : {}),
  };
}

/** A window's figures from its steps: sums, duration-weighted shares, the merged histogram. */
export function combineSteps(steps: StepResult[], histograms: Histogram[], sampledServer: boolean): WindowFigures {
  const only = steps.length === 1 ? steps[0]! : undefined;
  const merged = only ? undefined : mergeHistograms(histograms);
  const sum = (f: (s: StepResult) => number) => steps.reduce((a, s) => a + f(s), 0);
  const max = (f: (s: StepResult) => number) => Math.max(...steps.map(f));
  const durationSec = sum((s) => s.durationSec);
  const requests = sum((s) => s.requests);
  const weighted = (f: (s: StepResult) => number) => (durationSec > 0 ? sum((s) => f(s) * s.durationSec) / durationSec : 0);
  const statusCounts: Record<string, number> = {};
  for (const s of steps) for (const [k, v] of Object.entries(s.statusCounts)) statusCounts[k] = (statusCounts[k] ?? 0) + v;
  const cpu = sum((s) => s.resources.serverCpuSeconds);
  const exact = serverCpuExactOf(steps);
  return {
    durationSec,
    // Each step's own rate, by its time: requests ÷ seconds for a window of its own, the in-slot
    // rate for a sliced step (whose requests also count those answered after its slots closed).
    rps: weighted((s) => s.rps),
    requests,
    statusCounts,
    errors: sum((s) => s.errors),
    ...(steps.some((s) => s.loaderErrors) ? { loaderErrors: sum((s) => s.loaderErrors ?? 0) } : {}),
    timeouts: sum((s) => s.timeouts),
    non2xx: sum((s) => s.non2xx),
    unexpected: sum((s) => s.unexpected),
    latency: only ? only.latency : latencyOf(merged!),
    histogram: only ? only.histogram : encodeHistogram(merged!),
    resources: {
      serverCpuSeconds: cpu,
      serverPeakRssBytes: max((s) => s.resources.serverPeakRssBytes),
      serverProcesses: max((s) => s.resources.serverProcesses),
      serverWorkers: max((s) => s.resources.serverWorkers ?? 0),
      loaderCpuSeconds: sum((s) => s.resources.loaderCpuSeconds),
      loaderCoreBusy: weighted((s) => s.resources.loaderCoreBusy),
      loaderBusiestCore: max((s) => s.resources.loaderBusiestCore),
      loaderThreadBusy: max((s) => s.resources.loaderThreadBusy),
      ...(steps.every((s) => s.resources.loaderThreadWait !== undefined) ? { loaderThreadWait: max((s) => s.resources.loaderThreadWait ?? 0) } : {}),
      cpuSteal: weighted((s) => s.resources.cpuSteal ?? 0),
      ...(steps.every((s) => s.resources.serverCoreSteal !== undefined) ? { serverCoreSteal: weighted((s) => s.resources.serverCoreSteal ?? 0) } : {}),
      ...(steps.every((s) => s.resources.loaderCoreSteal !== undefined) ? { loaderCoreSteal: weighted((s) => s.resources.loaderCoreSteal ?? 0) } : {}),
      serverCoreShare: weighted((s) => s.resources.serverCoreShare),
      ...(steps.every((s) => s.resources.serverBusiestThread !== undefined) ? { serverBusiestThread: max((s) => s.resources.serverBusiestThread ?? 0) } : {}),
      serviceCpuSeconds: sum((s) => s.resources.serviceCpuSeconds),
      serviceBusy: max((s) => s.resources.serviceBusy),
      samples: sum((s) => s.resources.samples),
      ...(exact === undefined ? {} : { serverCpuExact: exact }),
      ...(steps.some((s) => s.resources.otherCpuShare !== undefined) ? { otherCpuShare: weighted((s) => s.resources.otherCpuShare ?? 0) } : {}),
    },
    clientBound: steps.some((s) => s.clientBound),
    backendBound: steps.some((s) => s.backendBound),
    serverNotSaturated: steps.some((s) => s.serverNotSaturated),
    loaderBound: steps.some((s) => s.loaderBound),
    cpuPerRequestUs: sampledServer && requests > 0 && cpu > 0 ? (cpu / requests) * 1e6 : null,
    steps,
    ...(steps.some((s) => s.openLoop) ? { openLoop: mergeOpenLoop(steps.map((s) => s.openLoop)) } : {}),
  };
}

/**
 * A window long enough to hold `DEFAULTS.minResponsesPerConnection` responses on every connection
 * (up to `DEFAULTS.maxFittedWindowSec`):
 * the latency a closed loop sees is connections ÷ req/s (Little's law), taken from each target's
 * best window of those given (its warm-up windows, and from a scenario's second block what earlier
 * blocks measured at its most connections: `fitWindow` in run/block.ts), the nearest to its
 * measured level (a warm-up window hit by a steal burst, run after the idle of a rotation, or still
 * climbing, reads low and would lengthen every window of the block);
 * the block uses the longest any target needs, so every target of a round is measured for the
 * same time.
 */
export function fittedWindowSec(
  windowSec: number,
  connections: readonly number[],
  warmupRps: ReadonlyArray<readonly number[]>,
  minResponses: number = DEFAULTS.minResponsesPerConnection,
  maxSec: number = DEFAULTS.maxFittedWindowSec,
): number {
  let need = windowSec;
  for (const series of warmupRps) {
    if (!series.length) continue;
    const rps = Math.max(...series);
    // No response in a warm-up second: the latency is longer than it, so the longest window.
    need = Math.max(need, rps > 0 ? Math.min(maxSec, (minResponses * Math.max(...connections)) / rps) : maxSec);
  }
  return need;
}
