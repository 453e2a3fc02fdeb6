import { DEFAULTS } from '../defaults.js';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Driver } from '../driver.js';
import { pinPrefix, type Pinning } from '../environment.js';
import { startProcess } from '../process.js';
import type { Ceiling } from '../result-schema.js';
import { connectionSteps, type Scenario } from '../scenario.js';
import type { ServiceSpec, Target } from '../target.js';
import { isClientBound } from '../window-resources.js';
import { loadOnce } from './load.js';
import { estimate, ABSOLUTE_METHOD, type EstimatorOptions } from '../analysis/summarize.js';

/**
 * A backend's own ceiling: start the helper service alone (pinned as in the run, beside the
 * loader), warm it up, then load it directly with the request that stands for one scenario request,
 * for `windows` windows at the scenario's connections. If a gateway reaches close to this, the
 * backend is its limit, whatever the framework.
 */
export async function measureCeiling(
  scenario: Scenario,
  members: readonly Target[],
  ctx: { driver: Driver; pinning: Pinning; signal: AbortSignal; windowSec: number; est: EstimatorOptions; windows?: number },
): Promise<Ceiling | undefined> {
  const backend = scenario.backend;
  if (!backend) return undefined;
  const from = members.find((t) => t.kind === 'process' && backend.service in t.services);
  if (from?.kind !== 'process') return undefined;
  const spec = from.services[backend.service] as ServiceSpec;
  const svc = await startProcess({ ...spec, unsetEnv: [...DEFAULTS.unsetEnv], pin: pinPrefix(ctx.pinning, ctx.pinning.loaderCpus), signal: ctx.signal });
  const connections = Math.max(...connectionSteps(scenario.load));
  const server = { baseUrl: svc.url, pid: svc.pid };
  const send = { requests: [backend.request], connections, warmupSec: 0, timeoutSec: scenario.load.timeout, expectStatus: [200] };
  let clientBound = false;
  try {
    await loadOnce(ctx, { server, send: { ...send, durationSec: Math.min(1, ctx.windowSec * 2) }, failures: 'as-thrown' });
    const rps: number[] = [];
    for (let i = 0; i < (ctx.windows ?? 5) && !ctx.signal.aborted; i++) {
      const { res: r, resources } = await loadOnce(ctx, { server, send: { ...send, durationSec: ctx.windowSec }, failures: 'as-thrown', sample: {} });
      if (resources) clientBound ||= isClientBound(resources);
      if (r.durationSec > 0) rps.push(r.requests / r.durationSec);
      await sleep(10);
    }
    if (!rps.length) return undefined;
    return { scenario: scenario.name, service: backend.service, from: from.name, connections, rps: estimate([rps], ctx.est, [scenario.name, 'ceiling'], ABSOLUTE_METHOD), clientBound };
  } finally {
    await svc.stop(2000);
  }
}
