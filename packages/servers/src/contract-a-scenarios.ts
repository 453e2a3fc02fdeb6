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
 * step is kept short: 0.5 s, the first after 0.3 s at its connection count and each later one after
 * `DEFAULTS.laterStepSettleSec`. Shorter steps (0.3 s after 0.2 s) were tried: a slow server at
 * 500 connections then sometimes answered nothing inside the step, which is a failed window.
 * Fixed loads use the design's window (`DEFAULTS.windowSec`).
 */
const RAMP_WINDOW = { warmup: 0.3, duration: 0.5 } as const;

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
