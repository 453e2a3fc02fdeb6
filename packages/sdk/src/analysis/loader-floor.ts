import { decodeHistogram, latencyOf, mergeHistograms } from '../histogram.js';
import type { FloorWindow, LoaderFloor } from '../result-schema.js';
import { ABSOLUTE_METHOD, estimate, type EstimatorOptions } from './summarize.js';

/**
 * Each scenario's loader floor from its windows (measured after its part of every block): per
 * connection step the median req/s with its interval (blocks, then windows within them), the
 * merged latency and the windows whose loader was saturated. Pure.
 */
export function loaderFloorsOf(windows: readonly FloorWindow[], o: { driver: string; responder: string; est: EstimatorOptions }): LoaderFloor[] {
  const scenarios = [...new Set(windows.map((w) => w.scenario))];
  return scenarios.map((scenario) => {
    const mine = windows.filter((w) => w.scenario === scenario);
    const steps = [...new Set(mine.map((w) => w.connections))].sort((a, b) => a - b);
    return {
      scenario,
      driver: o.driver,
      responder: o.responder,
      steps: steps.map((connections) => {
        const at = mine.filter((w) => w.connections === connections);
        const blocks = [...new Set(at.map((w) => w.block))];
        return {
          connections,
          rps: estimate(
            blocks.map((b) => at.filter((w) => w.block === b).map((w) => w.rps)),
            o.est,
            [scenario, 'loader-floor', connections],
            ABSOLUTE_METHOD,
          ),
          latency: latencyOf(mergeHistograms(at.map((w) => decodeHistogram(w.histogram)))),
          clientBoundWindows: at.filter((w) => w.clientBound).length,
        };
      }),
      windows: mine.map(({ histogram: _h, scenario: _s, ...w }) => w),
    };
  });
}
