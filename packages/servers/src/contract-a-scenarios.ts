import { DEFAULTS, defineScenario, type PrepareContext, type PreparePatch, type ScenarioInput } from '@benchsuite/sdk';
import { contractA, type ContractScenario } from './contract/index.js';

/** Names of the nine Contract A scenarios, in the contract's order. */
export type ContractAScenarioName = 'baseline' | 'param' | 'auth' | 'json-post' | 'full-pipeline' | 'concurrency-ramp' | 'production-stack' | 'conditional-get' | 'rate-limit-flood';

/**
 * Learns the current ETag with one GET before the load, so that every measured request is a
 * conditional GET answered 304.
 */
export function learnEtag(path: string): (ctx: PrepareContext) => Promise<PreparePatch> {
  return async ({ baseUrl }) => {
    const res = await fetch(new URL(path, baseUrl));
    await res.arrayBuffer();
    const etag = res.headers.get('etag');
    if (!res.ok || !etag) throw new Error(`GET ${path} answered ${res.status} without an etag; cannot prepare conditional-get`);
    return { headers: { 'if-none-match': etag } };
  };
}

/**
 * The ramp's window: its five steps are measured one after the other in every window, so each
 * step is kept short: 0.5 s, each after 0.1 s at its connection count (the first too, and the later
 * ones at `DEFAULTS.laterStepSettleSec`). Shorter steps (0.3 s after 0.2 s) were tried: a slow
 * server at 500 connections then sometimes answered nothing inside the step, which is a failed
 * window. A first settle of 0.1 s rather than 0.3 s: `npm run bench:step-settle -- --rounds 8
 * --modes short,lead --order modes --seed 14` (every window after the other targets' windows, as in
 * a run) read all six at 1.007 ± 1.6% of the 0.3-s settles' figure (0.3 s first and 0.1 s later:
 * 0.984 ± 1.8%), and the windows 79% measured instead of 74%.
 * Fixed loads use the design's window (`DEFAULTS.windowSec`).
 */
const RAMP_WINDOW = { warmup: 0.1, duration: 0.5 } as const;

function toScenario(s: ContractScenario): ScenarioInput {
  return defineScenario({
    name: s.name,
    description: s.description,
    group: 'framework',
    request: { method: s.request.method, path: s.request.path, headers: { ...s.request.headers }, ...(s.request.body === undefined ? {} : { body: s.request.body }) },
    expect: { status: s.expect.status, ...(s.expect.json === undefined ? {} : { json: s.expect.json }), ...(s.expect.headers ? { headers: { ...s.expect.headers } } : {}) },
    load: s.load ? { connections: s.load.connections, ...(Array.isArray(s.load.connections) ? RAMP_WINDOW : {}) } : { connections: DEFAULTS.connections },
    ...(s.prepare ? { prepare: learnEtag(s.prepare.learnEtagFrom) } : {}),
  });
}

/**
 * The nine Contract A scenarios (group `framework`), built from `contract/contract-a.json` so
 * that requests, expected bodies and load steps are written once for every language.
 *
 * @example
 * contractAScenarios.map((s) => s.name) // ['baseline', 'param', …, 'rate-limit-flood']
 */
export const contractAScenarios: ScenarioInput[] = contractA.scenarios.map(toScenario);

/** The scenarios keyed by name. */
export const contractAScenariosByName = Object.fromEntries(contractAScenarios.map((s) => [s.name, s])) as Record<ContractAScenarioName, ScenarioInput>;
