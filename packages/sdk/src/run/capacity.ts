import { DEFAULTS } from '../defaults.js';
import { firstFailed, errorShare, type ThresholdTerm } from '../analysis/thresholds.js';
import { blockInterval, median } from '../analysis/bootstrap.js';
import type { DesignThresholds } from '../design-thresholds.js';
import type { Capacity, CapacityBlock, CapacityProbe, OkWindow, WindowRecord } from '../result-schema.js';
import { prepareRequests, type Scenario } from '../scenario.js';
import type { Target } from '../target.js';
import { failureOf, windowSpec } from './block.js';
import type { RunContext } from './context.js';
import { LoaderFailure, runtimeOf, type StartedTarget } from './server-process.js';
import { doneRecord } from './state.js';
import { serverFullShare } from '../window-resources.js';
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

type ProbeFigures = Pick<WindowFigures, 'rps' | 'requests' | 'errors' | 'loaderErrors' | 'timeouts' | 'unexpected' | 'latency' | 'histogram' | 'openLoop' | 'cpuPerRequestUs' | 'resources'>;

/**
 * The server had room: per thread it can use, it was under `loaderBound.serverShare` busy
 * (`serverFullShare`: its cores' share, or its busiest thread's, whichever is higher), or it is not
 * sampled (a URL target). The processes' own CPU, not the cores' busy share: on a shared host other
 * work fills an idle core.
 */
function serverHadRoom(r: ProbeFigures['resources'], t: Pick<DesignThresholds, 'loaderBound'>): boolean {
  return r.serverProcesses === 0 || serverFullShare(r) < t.loaderBound.serverShare;
}

/**
 * Was the loader the limit of this window by its CPU? The loader process asked its core for more
 * than `loaderBound.loaderBusy` of the window — the CPU it used per thread it can use, plus the time
 * it waited runnable for a core (`loaderThreadWait`) — while the server had room (`serverHadRoom`),
 * and the schedule was not kept: sends dropped, more than `lateShare` of them late, or fewer
 * delivered than `keptUpShare` of the offered rate. A server that only answers slowly leaves the
 * loader idle; a loader that cannot send the rate is busy and late with a server that waits for
 * requests. (Here other sessions' `nice -n 19` jobs kept the loader's core 90–99% busy while a Node
 * loader used 25–38% of it, and every such probe read as loader-bound when the cores' busy share
 * was the measure: the loader's own figures are the evidence, not its core's.) The wait counts
 * because work of another session shares the core as an equal (the scheduler's autogroups weigh
 * sessions, not their nice levels): oha held at twice its ceiling then used 0.52–0.68 of its core
 * and waited 0.19–0.31 of the window for the rest, its sends far behind, the server 0.42–0.58 busy
 * (`capacity-oha-ceiling.test.ts`), and read as the server's failure by its own CPU alone. A
 * loader late under 0.8 of its core is `loaderLate`'s.
 */
export function loaderLimited(
  rate: number,
  f: Pick<ProbeFigures, 'rps' | 'requests' | 'openLoop' | 'resources'>,
  t: Pick<DesignThresholds, 'loaderBound'> = DEFAULTS,
  c: Pick<CapacitySettings, 'keptUpShare' | 'lateShare'> = DEFAULTS.capacity,
): boolean {
  const r = f.resources;
  const loaderBusy = r.loaderThreadBusy + (r.loaderThreadWait ?? 0) > t.loaderBound.loaderBusy;
  const dropped = f.openLoop?.dropped ?? 0;
  const sends = f.requests + dropped;
  const behind = dropped > 0 || (f.openLoop?.late ?? 0) > sends * c.lateShare || f.rps < rate * c.keptUpShare;
  return loaderBusy && serverHadRoom(r, t) && behind;
}

/**
 * Did the loader's late sends make this failure, whatever its CPU reads? Each open-loop request is
 * timed twice: from its actual send (what the server took) and from its intended send (what a user
 * arriving on time waited); the difference is the loader's lag alone. The failure is the loader's
 * when all three hold:
 * - judged again with latency from the actual send, and without the loader's own failed sends
 *   (`loaderErrors`, also taken off the rate it had to deliver), the SLO is met: every other term
 *   (errors with dropped sends, throughput ≥ `keptUpShare` of the rate) as before;
 * - the lag is material: more than `lateShare` of the sends left late (over
 *   `openLoop.lateSendMs` behind their schedule) or failed at the loader;
 * - the server had room per thread (`serverHadRoom`).
 * Example (`npm run bench:open-loop`): oha at 30k req/s used 0.66 of its core and sent 17% late,
 * p99 95 ms from the intended send, 2 ms at the median, node:http 80% busy: under `p99<50ms` the
 * probe fails, and it is the loader's. A server that is slow shows it from the actual send too, so
 * its failures stay its own; and the loader's in-flight limit is a second of arrivals
 * (`openLoop.inFlightSec`), so sends wait for a connection only once the server's latency from the
 * actual send nears a second, which fails any tighter SLO as the server's.
 */
export function loaderLate(
  rate: number,
  f: Pick<ProbeFigures, 'rps' | 'requests' | 'errors' | 'loaderErrors' | 'timeouts' | 'unexpected' | 'latency' | 'openLoop' | 'cpuPerRequestUs' | 'resources'> & {
    histogram?: string | undefined;
  },
  terms: readonly ThresholdTerm[],
  t: Pick<DesignThresholds, 'loaderBound'> = DEFAULTS,
  c: Pick<CapacitySettings, 'keptUpShare' | 'lateShare'> = DEFAULTS.capacity,
): boolean {
  const o = f.openLoop;
  if (!o) return false;
  const loaderErrors = f.loaderErrors ?? 0;
  const sends = f.requests + f.errors + f.timeouts + o.dropped + loaderErrors;
  if (o.late + loaderErrors <= sends * c.lateShare) return false;
  if (!serverHadRoom(f.resources, t)) return false;
  const asSent = { ...f, openLoop: { ...o, corrected: f.latency, correctedHistogram: f.histogram ?? o.correctedHistogram } };
  const loaderShortRps = f.requests > 0 ? (loaderErrors * f.rps) / f.requests : 0;
  return firstFailed(asSent, terms) === null && f.rps >= (rate - loaderShortRps) * c.keptUpShare;
}

/**
 * A probe meets the SLO when every term holds (open-loop latency from the intended send; the
 * loader's own failed sends are not errors) and the server kept up with the offered rate. A probe
 * that fails is marked loader-bound when the loader was its limit, by its CPU (`loaderLimited`,
 * `loaderEvidence: 'busy'`) or by its lateness (`loaderLate`, `'late'`): its failure says nothing
 * about the server.
 */
export function judgeProbe(
  rate: number,
  f: Pick<ProbeFigures, 'rps' | 'requests' | 'errors' | 'timeouts' | 'unexpected' | 'latency' | 'openLoop' | 'cpuPerRequestUs'> &
    Partial<Pick<ProbeFigures, 'resources' | 'loaderErrors'>> & { histogram?: string | undefined },
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
  const withResources = f.resources ? { ...f, resources: f.resources } : undefined;
  const evidence: CapacityProbe['loaderEvidence'] =
    meets || !withResources ? undefined : loaderLimited(rate, withResources, t, c) ? 'busy' : loaderLate(rate, withResources, terms, t, c) ? 'late' : undefined;
  return {
    rate,
    achievedRps: f.rps,
    p50: latency.p50,
    p99: latency.p99,
    errorShare: errorShare(figures),
    meets,
    failed: failed ? failed.expression : keptUp ? null : `throughput ≥ ${Math.round(c.keptUpShare * 100)}% of the offered rate`,
    loaderBound: evidence !== undefined,
    ...(evidence ? { loaderEvidence: evidence } : {}),
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
        const measure = async (): Promise<{ window: WindowRecord; p: Omit<CapacityProbe, 'window' | 'confirmation'>; stolen: boolean }> => {
          const base = { scenario: scenario.name, target: target.name, block: b, round: probes.length + 1, position: 0, startedAt: new Date().toISOString() };
          try {
            const f = await measureWindow(ctx, s, { ...spec, steps: [Math.max(...spec.steps)] });
            ctx.addLoad(f.durationSec);
            const stolen = (f.resources.cpuSteal ?? 0) > ctx.design.stealThreshold;
            const window = { ...base, index: nextIndex(), elapsedSec: ctx.elapsed(), status: 'ok', ...f, excluded: stolen ? ('steal' as const) : null } satisfies OkWindow;
            return { window, p: judgeProbe(rate, f, slo.terms, ctx.bottleneckThresholds ?? DEFAULTS, settings), stolen };
          } catch (err) {
            const failure = failureOf(err, ctx.signal);
            if (failure.phase === 'interrupted') throw new Interrupted();
            // A dead server cannot be probed again: the block ends (reported as a failed step).
            if (failure.phase === 'crash') throw err;
            const window: WindowRecord = { ...base, index: nextIndex(), elapsedSec: ctx.elapsed(), status: 'failed', failure };
            // The loader's own failure (its process exited with an error) says nothing about the server.
            const loader = err instanceof LoaderFailure;
            const p = {
              rate,
              achievedRps: 0,
              p50: 0,
              p99: 0,
              errorShare: 1,
              meets: false,
              failed: `window failed: ${failure.message}`,
              loaderBound: loader,
              ...(loader ? { loaderEvidence: 'failed' as const } : {}),
            };
            return { window, p, stolen: false };
          }
        };
        // A probe the hypervisor stole from is not judged: probed again at the same rate, and judged
        // (marked) only when every repeat was stolen from too.
        let m = await measure();
        for (let repeat = 0; m.stolen && repeat < DEFAULTS.capacity.stealRepeats; repeat++) {
          const skipped: CapacityProbe = { ...m.p, steal: 'repeated', ...(confirmation ? { confirmation } : {}), window: m.window };
          probes.push(skipped);
          onProbe?.(b, skipped);
          if (ctx.signal.aborted) throw new Interrupted();
          m = await measure();
        }
        const { window } = m;
        const p = m.stolen ? { ...m.p, steal: 'judged' as const } : m.p;
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
 * replayed from its journal (the run's state: `doneRecord`). The probes' windows are numbered on from the run's
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
  onProbe?: (block: number, p: CapacityProbe) => void,
): Promise<Capacity> {
  const out: CapacityBlock[] = [];
  // What the interrupted run finished, as the search begins (the blocks it journals now are not replayed).
  const replayed = ctx.journal.state;
  let index = replayed.nextIndex;
  const nextIndex = () => index++;
  for (let b = 1; b <= blocks && !ctx.signal.aborted; b++) {
    const again = doneRecord(replayed, { step: 'capacity-block', scenario: scenario.name, target: target.name, block: b });
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
