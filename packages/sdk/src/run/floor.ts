import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ABSOLUTE_METHOD, estimate, type EstimatorOptions } from '../analysis/summarize.js';
import { DEFAULTS } from '../defaults.js';
import type { Driver } from '../driver.js';
import { pinPrefix, type Pinning } from '../environment.js';
import { latencyOf, mergeHistograms, type Histogram } from '../histogram.js';
import { startProcess } from '../process.js';
import type { LoaderFloor } from '../result-schema.js';
import { connectionSteps, scenarioRequests, type Scenario } from '../scenario.js';
import { isClientBound, TreeSampler } from '../window-resources.js';

// From dist this sits beside us; when the SDK runs from source (vitest), use the built responder.
const builtResponder = fileURLToPath(new URL('../floor/_responder.js', import.meta.url));
const responderPath = existsSync(builtResponder) ? builtResponder : fileURLToPath(new URL('../../dist/floor/_responder.js', import.meta.url));

/** What answers the floor's requests, as the result records it. */
const FLOOR_RESPONDER = 'raw socket (node:net, no HTTP parser), one fixed 11-byte JSON response, pinned to the server cores';

/** The scenario's connection steps at or below `lowConnections`: those where the loader floor is measured. */
export const lowSteps = (scenario: Pick<Scenario, 'load'>, lowConnections: number = DEFAULTS.lowConnections): number[] => connectionSteps(scenario.load).filter((c) => c <= lowConnections);

/**
 * The loader's round-trip floor for a scenario: start the trivial responder pinned where the
 * servers run, then at each low connection step load it with the run's driver, the scenario's
 * requests and its window (or fixed count), a settle first, then `windows` measured windows.
 * Undefined when the scenario has no low step.
 */
export async function measureLoaderFloor(
  scenario: Scenario,
  ctx: { driver: Driver; pinning: Pinning; signal: AbortSignal; windowSec: number; settleSec: number; est: EstimatorOptions; windows?: number; lowConnections?: number },
): Promise<LoaderFloor | undefined> {
  const steps = lowSteps(scenario, ctx.lowConnections);
  if (!steps.length) return undefined;
  const responder = await startProcess({ command: [process.execPath, responderPath], unsetEnv: [...DEFAULTS.unsetEnv], pin: pinPrefix(ctx.pinning, ctx.pinning.serverCpus), signal: ctx.signal });
  const expectStatus = [200];
  const requests = scenarioRequests(scenario);
  const windowSec = scenario.load.duration ?? ctx.windowSec;
  const threads = ctx.driver.capabilities.threads === 'one' ? 1 : Math.max(1, ctx.pinning.loaderCpus.length);
  try {
    const out: LoaderFloor['steps'] = [];
    for (const [i, connections] of steps.entries()) {
      const base = {
        baseUrl: responder.url,
        requests,
        connections,
        durationSec: windowSec,
        requestCount: scenario.load.requests,
        timeoutSec: scenario.load.timeout,
        expectStatus,
        pin: pinPrefix(ctx.pinning, ctx.pinning.loaderCpus),
        signal: ctx.signal,
      };
      // The first step warms the responder and the loader's path up (a second at least); later ones settle as the run's steps do.
      const rps: number[] = [];
      const histograms: Histogram[] = [];
      let clientBound = false;
      for (let w = 0; w < (ctx.windows ?? DEFAULTS.loaderFloor.windows) && !ctx.signal.aborted; w++) {
        const sampler = new TreeSampler(responder.pid, ctx.pinning.loaderCpus, ctx.pinning.serverCpus, threads);
        try {
          const r = await ctx.driver.run({
            ...base,
            warmupSec: w === 0 ? Math.max(i === 0 ? 1 : 0, ctx.settleSec) : ctx.settleSec,
            onMeasureStart: (pid) => sampler.windowStart(pid),
            onMeasureEnd: () => {
              clientBound ||= isClientBound(sampler.windowEnd());
            },
          });
          if (r.requests > 0 && r.durationSec > 0) {
            rps.push(r.requests / r.durationSec);
            histograms.push(r.histogram);
          }
        } finally {
          sampler.stop();
        }
      }
      if (!rps.length) continue;
      out.push({
        connections,
        rps: estimate([rps], ctx.est, [scenario.name, 'loader-floor', connections], ABSOLUTE_METHOD),
        latency: latencyOf(mergeHistograms(histograms)),
        clientBound,
      });
    }
    return out.length ? { scenario: scenario.name, driver: ctx.driver.name, responder: FLOOR_RESPONDER, steps: out } : undefined;
  } finally {
    await responder.stop(2000);
  }
}
