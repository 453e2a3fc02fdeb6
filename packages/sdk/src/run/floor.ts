import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DEFAULTS } from '../defaults.js';
import type { Driver } from '../driver.js';
import { pinPrefix, type Pinning } from '../environment.js';
import { encodeHistogram } from '../histogram.js';
import { startProcess, type RunningProcess } from '../process.js';
import type { FloorWindow } from '../result-schema.js';
import { connectionSteps, scenarioRequests, type Scenario } from '../scenario.js';
import { isClientBound } from '../window-resources.js';
import { loadOnce } from './load.js';

// From dist this sits beside us; when the SDK runs from source (vitest), use the built responder.
const builtResponder = fileURLToPath(new URL('../floor/_responder.js', import.meta.url));
export const responderPath = existsSync(builtResponder) ? builtResponder : fileURLToPath(new URL('../../dist/floor/_responder.js', import.meta.url));

/** What answers the floor's requests, as the result records it. */
export const FLOOR_RESPONDER = 'raw socket (node:net, no HTTP parser), one fixed 11-byte JSON response, pinned to the server cores';

/** The scenario's connection steps at or below `lowConnections`: those where the loader floor is measured. */
export const lowSteps = (scenario: Pick<Scenario, 'load'>, lowConnections: number = DEFAULTS.lowConnections): number[] => connectionSteps(scenario.load).filter((c) => c <= lowConnections);

/** The loader floor's windows of a run: one responder, started at the first and kept until `close`. */
export interface FloorSession {
  /** The floor windows of a scenario after its part of block `block`: `windowsPerBlock` per low step. */
  windows(scenario: Scenario, block: number): Promise<FloorWindow[]>;
  close(): Promise<void>;
}

/**
 * The loader's round-trip floor, measured in every block: after a scenario's part of a block, the
 * run's driver loads the trivial responder (pinned where the servers run) at each of the
 * scenario's low connection steps, with its requests and window (or fixed count), a settle first
 * (a second for the run's first window, which warms the responder). Spread over the run as the
 * targets' windows are, the floor meets the same host as they do, and no single disturbed moment
 * sets it.
 */
export function floorSession(ctx: { driver: Driver; pinning: Pinning; signal: AbortSignal; windowSec: number; lowConnections: number }): FloorSession {
  let responder: Promise<RunningProcess> | undefined;
  let first = true;
  return {
    async windows(scenario, block) {
      const steps = lowSteps(scenario, ctx.lowConnections);
      if (!steps.length) return [];
      responder ??= startProcess({ command: [process.execPath, responderPath], unsetEnv: [...DEFAULTS.unsetEnv], pin: pinPrefix(ctx.pinning, ctx.pinning.serverCpus), signal: ctx.signal });
      const srv = await responder;
      const out: FloorWindow[] = [];
      for (const connections of steps) {
        for (let w = 0; w < DEFAULTS.loaderFloor.windowsPerBlock && !ctx.signal.aborted; w++) {
          const { res: r, resources } = await loadOnce(ctx, {
            server: { baseUrl: srv.url, pid: srv.pid },
            send: {
              requests: scenarioRequests(scenario),
              connections,
              warmupSec: first ? DEFAULTS.loaderFloor.firstSettleSec : DEFAULTS.loaderFloor.settleSec,
              durationSec: scenario.load.duration ?? ctx.windowSec,
              requestCount: scenario.load.requests,
              timeoutSec: scenario.load.timeout,
              expectStatus: [200],
            },
            failures: 'as-thrown',
            sample: {},
          });
          first = false;
          if (r.requests > 0 && r.durationSec > 0)
            out.push({
              scenario: scenario.name,
              block,
              connections,
              requests: r.requests,
              durationSec: r.durationSec,
              rps: r.requests / r.durationSec,
              histogram: encodeHistogram(r.histogram),
              clientBound: resources ? isClientBound(resources) : false,
            });
        }
      }
      return out;
    },
    async close() {
      if (!responder) return;
      const srv = await responder.catch(() => undefined);
      await srv?.stop(2000);
    },
  };
}
