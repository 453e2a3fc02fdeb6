import { DEFAULTS } from '../defaults.js';
import { firstFailed, errorShare, type ThresholdTerm } from '../analysis/thresholds.js';
import { blockInterval, median } from '../analysis/bootstrap.js';
import type { DesignThresholds } from '../design-thresholds.js';
import type { Capacity, CapacityBlock, CapacityProbe, OkWindow, WindowRecord } from '../result-schema.js';
import { prepareRequests, type Scenario } from '../scenario.js';
import type { Target } from '../target.js';
import { failureOf, windowSpec } from './block.js';
import type { RunContext } from './context.js';
import { runtimeOf, type StartedTarget } from './runtime.js';
import { measureWindow, type WindowFigures } from './window.js';
import { warmUp } from './warmup.js';

/** The search's settings, as a run records them (`result.design.capacity`). */
export type CapacitySettings = Record<'growth' | 'resolution' | 'maxProbes' | 'keptUpShare' | 'lateShare', number>;

/** The capacity search a run does (recorded in `result.design.capacity`): at least `minBlocks` blocks, or `--blocks MIN` if more. */
export function capacitySettings(design: { blocks: { min: number } }) {
  const c = DEFAULTS.capacity;
  return {
    blocks: Math.max(design.blocks.min, c.minBlocks),
    startShare: c.startShare,
    growth: c.growth,
    resolution: c.resolution,
    maxProbes: c.maxProbes,
    keptUpShare: c.keptUpShare,
    lateShare: c.lateShare,
    confirmFailures: true,
  };
}

/**
 * How long a capacity run of `searches` (scenario, target) pairs takes, s: per search and block a fresh process (`planCosts.blockStartSec`),
 * its warm-up (`warmup.maxSec`) and the probes, each its window and the loader's start
 * (`probeOverheadSec`), for a typical search (`typicalProbes`) and the longest (`maxProbes`). The
 * budget does not bound a capacity run: its blocks are what its interval needs.
 */
export function capacityDurationSec(
  design: { warmup: { maxSec: number }; capacityProbeSec?: number | undefined },
  settings: { blocks: number; maxProbes: number },
  searches: number,
): { typicalSec: number; maxSec: number } {
  const c = DEFAULTS.capacity;
  const probeSec = (design.capacityProbeSec ?? c.probeSec) + c.probeOverheadSec;
  const blockSec = (probes: number) => DEFAULTS.planCosts.blockStartSec + design.warmup.maxSec + probes * probeSec;
  return { typicalSec: searches * settings.blocks * blockSec(Math.min(c.typicalProbes, settings.maxProbes)), maxSec: searches * settings.blocks * blockSec(settings.maxProbes) };
}

type ProbeFigures = Pick<WindowFigures, 'rps' | 'requests' | 'errors' | 'timeouts' | 'unexpected' | 'latency' | 'openLoop' | 'cpuPerRequestUs' | 'resources'>;

/**
 * Was the loader the limit of this window? The loader process kept its core busy (its own CPU per
 * thread it can use over `loaderBound.loaderBusy`) while the server's tree did not (under
 * `loaderBound.serverShare`; not judged for a server this runner does not sample), and the schedule
 * was not kept: sends dropped, more than `lateShare` of them late, or fewer delivered than
 * `keptUpShare` of the offered rate. A server that only answers slowly leaves the loader idle; a
 * loader that cannot send the rate is busy and late with a server that waits for requests. The
 * processes' own CPU, not the cores' busy share: on a shared host other work fills an idle core
 * (here other sessions' `nice -n 19` jobs kept the loader's core 90–99% busy while a Node loader
 * used 25–38% of it, and every such probe read as loader-bound).
 */
export function loaderLimited(
  rate: number,
  f: Pick<ProbeFigures, 'rps' | 'requests' | 'openLoop' | 'resources'>,
  t: Pick<DesignThresholds, 'loaderBound'> = DEFAULTS,
  c: Pick<CapacitySettings, 'keptUpShare' | 'lateShare'> = DEFAULTS.capacity,
): boolean {
  const r = f.resources;
  const loaderBusy = r.loaderThreadBusy > t.loaderBound.loaderBusy;
  const sampledServer = r.serverProcesses > 0;
  const serverRoom = !sampledServer || r.serverCoreShare < t.loaderBound.serverShare;
  const dropped = f.openLoop?.dropped ?? 0;
  const sends = f.requests + dropped;
  const behind = dropped > 0 || (f.openLoop?.late ?? 0) > sends * c.lateShare || f.rps < rate * c.keptUpShare;
  return loaderBusy && serverRoom && behind;
}

/**
 * A probe meets the SLO when every term holds and the server kept up with the offered rate. A
 * probe that fails while its loader was the limit (`loaderLimited`) is marked loader-bound: its
 * failure says nothing about the server.
 */
export function judgeProbe(
  rate: number,
  f: Pick<ProbeFigures, 'rps' | 'requests' | 'errors' | 'timeouts' | 'unexpected' | 'latency' | 'openLoop' | 'cpuPerRequestUs'> &
    Partial<Pick<ProbeFigures, 'resources'>> & { histogram?: string | undefined },
  terms: readonly ThresholdTerm[],
  t: Pick<DesignThresholds, 'loaderBound'> = DEFAULTS,
  c: Pick<CapacitySettings, 'keptUpShare' | 'lateShare'> = DEFAULTS.capacity,
): CapacityProbe {
  const figures = { ...f, openLoop: f.openLoop };
  const failed = firstFailed(figures, terms);
  const latency = f.openLoop?.corrected ?? f.latency;
  // An open-loop server that falls behind queues the rest: the SLO's latency catches it as the
  // queue grows, but a short probe may end first. Achieved throughput below the schedule fails too.
  const keptUp = f.rps >= rate * c.keptUpShare;
  const meets = failed === null && keptUp;
  return {
    rate,
    achievedRps: f.rps,
    p50: latency.p50,
    p99: latency.p99,
    errorShare: errorShare(figures),
    meets,
    failed: failed ? failed.expression : keptUp ? null : `throughput ≥ ${Math.round(c.keptUpShare * 100)}% of the offered rate`,
    loaderBound: !meets && f.resources !== undefined && loaderLimited(rate, { ...f, resources: f.resources }, t, c),
  };
}

/** What one probe (or a probe and its confirmation) said of a rate. */
export interface ProbeVerdict {
  meets: boolean;
  /** It failed with the loader as the limit. */
  loaderBound: boolean;
}

/** What the search found: the highest rate that met, the bracket, and what stopped it going higher. */
export interface SearchOutcome {
  capacity: number | null;
  bracket: [number, number] | null;
  /**
   * `server`: the lowest failing rate failed at the server; `loader`: it failed with the loader as the
   * limit, so the capacity is only a lower bound; `probes`: no rate failed within the probes allowed.
   */
  bound: 'server' | 'loader' | 'probes';
  /** With `bound: 'loader'`: the lowest rate whose probes failed loader-bound. */
  loaderBoundAt: number | null;
}

/**
 * The search over offered rates, as pure logic: coarse steps up (×growth) from `start` until the
 * SLO fails, then bisection of the last bracket until it is narrower than `resolution`. A probe that
 * fails is probed again at the same rate (`confirmation`) before it bounds the search: one noisy
 * probe (a steal burst, a collection) must not cut the capacity short; the rate fails only when both
 * failed, and then counts as loader-bound only when both were (one failure at a full server core is
 * the server's). Calls `probe` at most `maxProbes` times.
 */
export async function searchCapacity(
  start: number,
  probe: (rate: number, confirmation: boolean) => Promise<ProbeVerdict>,
  o: Pick<CapacitySettings, 'growth' | 'resolution' | 'maxProbes'> = DEFAULTS.capacity,
): Promise<SearchOutcome> {
  let probes = 0;
  const failedLoaderBound = new Map<number, boolean>();
  const tryRate = async (r: number): Promise<boolean> => {
    const rate = Math.round(r);
    probes++;
    const first = await probe(rate, false);
    if (first.meets || probes >= o.maxProbes) {
      if (!first.meets) failedLoaderBound.set(rate, first.loaderBound);
      return first.meets;
    }
    probes++;
    const second = await probe(rate, true);
    if (!second.meets) failedLoaderBound.set(rate, first.loaderBound && second.loaderBound);
    return second.meets;
  };
  let lo: number | null = null;
  let hi: number | null = null;
  let r = start;
  // Coarse: up while it meets; if the start already fails, down until one meets.
  if (await tryRate(r)) {
    lo = r;
    while (probes < o.maxProbes) {
      r *= o.growth;
      if (await tryRate(r)) lo = r;
      else {
        hi = r;
        break;
      }
    }
  } else {
    hi = r;
    while (probes < o.maxProbes && r > 1) {
      r /= o.growth;
      if (await tryRate(r)) {
        lo = r;
        break;
      }
      hi = r;
    }
  }
  const boundOf = (rate: number | null): Pick<SearchOutcome, 'bound' | 'loaderBoundAt'> =>
    rate === null
      ? { bound: 'probes', loaderBoundAt: null }
      : failedLoaderBound.get(Math.round(rate))
        ? { bound: 'loader', loaderBoundAt: Math.round(rate) }
        : { bound: 'server', loaderBoundAt: null };
  if (lo === null) return { capacity: null, bracket: null, ...boundOf(hi) };
  if (hi === null) return { capacity: Math.round(lo), bracket: [Math.round(lo), Math.round(lo)], ...boundOf(null) };
  let [a, z]: [number, number] = [lo, hi];
  while (probes < o.maxProbes && (z - a) / a > o.resolution) {
    const mid: number = (a + z) / 2;
    if (await tryRate(mid)) a = mid;
    else z = mid;
  }
  return { capacity: Math.round(a), bracket: [Math.round(a), Math.round(z)], ...boundOf(z) };
}

/**
 * A target's capacity from its blocks' searches (interrupted blocks left out): the median over
 * blocks of the highest rate that met the SLO. When any block's search stopped at a loader-bound
 * failure (or ran out of probes before a failure), that median is only a lower bound (`bound`),
 * with the lowest rate at which the loader gave out (`loaderBoundAt`), and has no interval. Else the
 * 95% interval is the random-effects t-interval over blocks, widened to the blocks' bisection
 * brackets (each block's capacity lies within its bracket); with fewer than 2 blocks there is none,
 * and `ci95Missing` says why.
 */
export function capacityOfBlocks(blocks: readonly CapacityBlock[], meta: Pick<Capacity, 'scenario' | 'target' | 'slo' | 'driver'>, confidence: number = DEFAULTS.confidence): Capacity {
  const done = blocks.filter((b) => !b.interrupted);
  const found = done.filter((b): b is CapacityBlock & { capacity: number } => b.capacity !== null);
  const caps = found.map((b) => b.capacity);
  const capacity = caps.length ? median(caps) : null;
  const loaderAt = done.flatMap((b) => (b.bound === 'loader' && b.loaderBoundAt != null ? [b.loaderBoundAt] : []));
  const bound: Capacity['bound'] = loaderAt.length ? 'loader' : done.some((b) => b.bound === 'probes' && b.capacity !== null) ? 'probes' : 'server';
  const only = done.length === 1 ? done[0] : undefined;
  let ci95: [number, number] | null = null;
  let ci95Missing: Capacity['ci95Missing'];
  if (bound !== 'server') ci95Missing = 'lower-bound';
  else if (capacity === null) ci95Missing = 'no-capacity';
  else if (found.length < 2) ci95Missing = done.length < blocks.length ? 'interrupted' : 'blocks';
  else {
    const t = blockInterval(
      caps.map((c) => [c]),
      capacity,
      confidence,
    );
    const brackets = found.map((b): [number, number] => b.bracket ?? [b.capacity, b.capacity]);
    const lo = Math.min(...brackets.map((x) => x[0]));
    const hi = Math.max(...brackets.map((x) => x[1]));
    ci95 = t ? [Math.min(t[0], lo), Math.max(t[1], hi)] : [lo, hi];
  }
  return {
    ...meta,
    capacity,
    interval: caps.length > 1 ? [Math.min(...caps), Math.max(...caps)] : (only?.bracket ?? null),
    blocks: [...blocks],
    bound,
    ...(bound === 'loader' ? { loaderBoundAt: Math.min(...loaderAt) } : {}),
    ci95,
    ...(ci95Missing ? { ci95Missing } : {}),
  };
}

/** Thrown inside the search when the run is interrupted: the block is cut short, not judged. */
class Interrupted extends Error {}

/**
 * One block of the capacity search: a fresh process, warmed up as a block is, then open-loop probes
 * of `probeSec` that search the offered rate. Every probe keeps its window (resources, histograms,
 * open-loop figures); the finished block is journalled, so `--resume` replays it.
 */
async function capacityBlock(
  ctx: RunContext,
  scenario: Scenario,
  target: Target,
  slo: { terms: readonly ThresholdTerm[] },
  b: number,
  settings: CapacitySettings & { probeSec: number },
  nextIndex: () => number,
  onProbe?: (block: number, p: CapacityProbe) => void,
): Promise<CapacityBlock> {
  let started: StartedTarget | undefined;
  const probes: CapacityProbe[] = [];
  try {
    started = await runtimeOf(target).start({ pinning: ctx.pinning, signal: ctx.signal, command: ctx.commands.get(target.name) });
    const requests = await prepareRequests(scenario, started.baseUrl);
    // The closed-loop warm-up's last req/s is near what the server can do at all: the open-loop
    // search starts at a share of it, so it brackets the capacity in a few probes.
    const warm = await warmUp(ctx, started, windowSpec(scenario, requests, ctx.design, 0), ctx.design.warmup);
    const closed = warm.rps.at(-1) ?? 0;
    const startRate = closed > 0 ? Math.max(1, closed * DEFAULTS.capacity.startShare) : DEFAULTS.capacity.startRate;
    const s = started;
    const found = await searchCapacity(
      startRate,
      async (rate, confirmation) => {
        if (ctx.signal.aborted) throw new Interrupted();
        const open: Scenario = { ...scenario, load: { ...scenario.load, rate, openLoop: true, connections: scenario.load.connections, duration: settings.probeSec, warmup: 0 } };
        const spec = windowSpec(open, requests, ctx.design, 0);
        const base = { scenario: scenario.name, target: target.name, block: b, round: probes.length + 1, position: 0, startedAt: new Date().toISOString() };
        let window: WindowRecord;
        let p: Omit<CapacityProbe, 'window' | 'confirmation'>;
        try {
          const f = await measureWindow(ctx, s, { ...spec, steps: [Math.max(...spec.steps)] });
          ctx.addLoad(f.durationSec);
          const excluded = (f.resources.cpuSteal ?? 0) > ctx.design.stealThreshold ? ('steal' as const) : null;
          window = { ...base, index: nextIndex(), elapsedSec: ctx.elapsed(), status: 'ok', ...f, excluded } satisfies OkWindow;
          p = judgeProbe(rate, f, slo.terms, ctx.bottleneckThresholds ?? DEFAULTS, settings);
        } catch (err) {
          const failure = failureOf(err, ctx.signal);
          if (failure.phase === 'interrupted') throw new Interrupted();
          // A dead server cannot be probed again: the block ends (reported as a failed step).
          if (failure.phase === 'crash') throw err;
          window = { ...base, index: nextIndex(), elapsedSec: ctx.elapsed(), status: 'failed', failure };
          p = { rate, achievedRps: 0, p50: 0, p99: 0, errorShare: 1, meets: false, failed: `window failed: ${failure.message}`, loaderBound: false };
        }
        const probe: CapacityProbe = { ...p, ...(confirmation ? { confirmation } : {}), window };
        probes.push(probe);
        onProbe?.(b, probe);
        return { meets: probe.meets, loaderBound: probe.loaderBound ?? false };
      },
      settings,
    );
    const block: CapacityBlock = {
      block: b,
      capacity: found.capacity,
      bracket: found.bracket,
      probes,
      bound: found.bound,
      ...(found.loaderBoundAt !== null ? { loaderBoundAt: found.loaderBoundAt } : {}),
    };
    ctx.journal.record({ record: 'capacity-block', scenario: scenario.name, target: target.name, block });
    return block;
  } catch (err) {
    if (err instanceof Interrupted || ctx.signal.aborted) return { block: b, capacity: null, bracket: null, probes, interrupted: true };
    ctx.emit({ type: 'step-failed', step: 'capacity', scenario: scenario.name, target: target.name, block: b, message: (err as Error).message });
    const block: CapacityBlock = { block: b, capacity: null, bracket: null, probes, failure: (err as Error).message };
    ctx.journal.record({ record: 'capacity-block', scenario: scenario.name, target: target.name, block });
    return block;
  } finally {
    await started?.stop();
  }
}

/**
 * Capacity under an SLO for one (scenario, target): `blocks` blocks of the search (at least
 * `DEFAULTS.capacity.minBlocks`), each on a fresh process; blocks an interrupted run finished are
 * replayed from its journal (`replayed`). The probes' windows are numbered on from the run's
 * windows (a journalled block moves the run's next index past its probes). The figure and its
 * interval come from `capacityOfBlocks`.
 */
export async function capacityOf(
  ctx: RunContext,
  scenario: Scenario,
  target: Target,
  slo: { text: string; terms: readonly ThresholdTerm[] },
  blocks: number,
  settings: CapacitySettings & { probeSec: number },
  replayed: readonly CapacityBlock[] = [],
  onProbe?: (block: number, p: CapacityProbe) => void,
): Promise<Capacity> {
  const out: CapacityBlock[] = [];
  let index = ctx.journal.state.nextIndex;
  const nextIndex = () => index++;
  for (let b = 1; b <= blocks && !ctx.signal.aborted; b++) {
    const again = replayed.find((r) => r.block === b);
    if (again) {
      out.push(again);
      continue;
    }
    const block = await capacityBlock(ctx, scenario, target, slo, b, settings, nextIndex, onProbe);
    out.push(block);
    if (block.interrupted) break;
  }
  return capacityOfBlocks(out, { scenario: scenario.name, target: target.name, slo: slo.text, driver: ctx.driver.name });
}
