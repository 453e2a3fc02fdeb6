import { DEFAULTS } from '../defaults.js';
import { firstFailed, errorShare, type ThresholdTerm } from '../analysis/thresholds.js';
import { median } from '../analysis/bootstrap.js';
import type { Capacity, CapacityProbe } from '../result-schema.js';
import { prepareRequests, type Scenario } from '../scenario.js';
import type { Target } from '../target.js';
import { windowSpec } from './block.js';
import type { RunContext } from './context.js';
import { runtimeOf, type StartedTarget } from './runtime.js';
import { measureWindow, type WindowFigures } from './window.js';
import { warmUp } from './warmup.js';

type Probe = CapacityProbe;

/** A probe meets the SLO when every term holds and the server kept up with the offered rate. */
export function judgeProbe(
  rate: number,
  f: Pick<WindowFigures, 'rps' | 'requests' | 'errors' | 'timeouts' | 'unexpected' | 'latency' | 'openLoop' | 'cpuPerRequestUs'> & { histogram?: string | undefined },
  terms: readonly ThresholdTerm[],
): Probe {
  const figures = { ...f, openLoop: f.openLoop };
  const failed = firstFailed(figures, terms);
  const latency = f.openLoop?.corrected ?? f.latency;
  // An open-loop server that falls behind queues the rest: the SLO's latency catches it as the
  // queue grows, but a short probe may end first. Achieved throughput below the schedule fails too.
  const keptUp = f.rps >= rate * DEFAULTS.capacity.keptUpShare;
  return {
    rate,
    achievedRps: f.rps,
    p50: latency.p50,
    p99: latency.p99,
    errorShare: errorShare(figures),
    meets: failed === null && keptUp,
    failed: failed ? failed.expression : keptUp ? null : `throughput ≥ ${Math.round(DEFAULTS.capacity.keptUpShare * 100)}% of the offered rate`,
  };
}

/**
 * The search over offered rates, as pure logic: coarse steps up (×growth) from `start` until the
 * SLO fails, then bisection of the last bracket until it is narrower than `resolution`. Calls
 * `probe(rate)` at most `maxProbes` times. Returns the highest rate that met the SLO and the bracket.
 */
export async function searchCapacity(
  start: number,
  probe: (rate: number) => Promise<boolean>,
  o: { growth: number; resolution: number; maxProbes: number } = DEFAULTS.capacity,
): Promise<{ capacity: number | null; bracket: [number, number] | null }> {
  let probes = 0;
  const tryRate = async (r: number) => {
    probes++;
    return probe(Math.round(r));
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
  if (lo === null) return { capacity: null, bracket: null };
  if (hi === null) return { capacity: Math.round(lo), bracket: [Math.round(lo), Math.round(lo)] };
  let [a, z]: [number, number] = [lo, hi];
  while (probes < o.maxProbes && (z - a) / a > o.resolution) {
    const mid: number = (a + z) / 2;
    if (await tryRate(mid)) a = mid;
    else z = mid;
  }
  return { capacity: Math.round(a), bracket: [Math.round(a), Math.round(z)] };
}

/**
 * Capacity under an SLO for one (scenario, target): in each of `blocks` fresh processes, warmed up
 * as a block is, open-loop probes of `DEFAULTS.capacity.probeSec` search the offered rate. The
 * capacity is the median over blocks of the highest rate that met the SLO; its interval is the
 * lowest and highest over blocks (fresh processes), or the bisection bracket with one block.
 */
export async function capacityOf(
  ctx: RunContext,
  scenario: Scenario,
  target: Target,
  slo: { text: string; terms: readonly ThresholdTerm[] },
  blocks: number,
  onProbe?: (block: number, p: Probe) => void,
): Promise<Capacity> {
  const out: Capacity['blocks'] = [];
  for (let b = 1; b <= blocks && !ctx.signal.aborted; b++) {
    let started: StartedTarget | undefined;
    const probes: Probe[] = [];
    try {
      started = await runtimeOf(target).start({ pinning: ctx.pinning, signal: ctx.signal, command: ctx.commands.get(target.name) });
      const requests = await prepareRequests(scenario, started.baseUrl);
      // The closed-loop warm-up's last req/s is near what the server can do at all: the open-loop
      // search starts at a share of it, so it brackets the capacity in a few probes.
      const warm = await warmUp(ctx, started, windowSpec(scenario, requests, ctx.design, 0), ctx.design.warmup);
      const closed = warm.rps.at(-1) ?? 0;
      const startRate = closed > 0 ? Math.max(1, closed * DEFAULTS.capacity.startShare) : DEFAULTS.capacity.startRate;
      const s = started;
      const found = await searchCapacity(startRate, async (rate) => {
        if (ctx.signal.aborted) return false;
        const open: Scenario = { ...scenario, load: { ...scenario.load, rate, openLoop: true, connections: scenario.load.connections, duration: DEFAULTS.capacity.probeSec, warmup: 0 } };
        const spec = windowSpec(open, requests, ctx.design, 0);
        const f = await measureWindow(ctx, s, { ...spec, steps: [Math.max(...spec.steps)] });
        ctx.addLoad(f.durationSec);
        const p = judgeProbe(rate, f, slo.terms);
        probes.push(p);
        onProbe?.(b, p);
        return p.meets;
      });
      out.push({ block: b, capacity: found.capacity, bracket: found.bracket, probes });
    } catch (err) {
      if (ctx.signal.aborted) break;
      out.push({ block: b, capacity: null, bracket: null, probes });
      ctx.emit({ type: 'step-failed', step: 'capacity', scenario: scenario.name, target: target.name, block: b, message: (err as Error).message });
    } finally {
      await started?.stop();
    }
  }
  const caps = out.map((b) => b.capacity).filter((c): c is number => c !== null);
  const only = out.length === 1 ? out[0] : undefined;
  return {
    scenario: scenario.name,
    target: target.name,
    slo: slo.text,
    capacity: caps.length ? median(caps) : null,
    interval: caps.length > 1 ? [Math.min(...caps), Math.max(...caps)] : (only?.bracket ?? null),
    blocks: out,
    driver: ctx.driver.name,
  };
}
