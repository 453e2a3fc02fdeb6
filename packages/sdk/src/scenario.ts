import { z } from 'zod';
import { parseOrThrow } from './errors.js';
import { DEFAULTS } from './defaults.js';
import { streamSpecSchema } from './stream/spec.js';

/** HTTP methods a scenario may send. */
const httpMethods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

const requestSpecSchema = z.strictObject({
  method: z.enum(httpMethods).default('GET'),
  path: z.string().startsWith('/', 'must start with "/"'),
  headers: z.record(z.string(), z.string()).default({}),
  body: z.string().optional(),
});
/** One request as sent on the wire (after defaults). */
export type RequestSpec = z.output<typeof requestSpecSchema>;
export type RequestSpecInput = z.input<typeof requestSpecSchema>;

const positiveInt = z.number().int().positive();

const loadProfileSchema = z.strictObject({
  /** Open connections: one number, or a stepped list measured one step after the other. */
  connections: z.union([positiveInt, z.array(positiveInt).min(1)]).default(DEFAULTS.connections),
  /**
   * Settle seconds of traffic before each measured window (its first step), never recorded.
   * Default: none for a fixed load, `DEFAULTS.stepSettleSec` for a stepped one, whose later steps
   * settle for `DEFAULTS.laterStepSettleSec` (or this, when shorter). A fresh server's warm-up is
   * the block's business (until steady), not this.
   */
  warmup: z.number().nonnegative().optional(),
  /** Seconds measured per window (per step for a stepped list). Default: the design's `windowSec`. */
  duration: z.number().positive().optional(),
  /**
   * Send exactly this many requests per measured window (per step of a stepped load) instead of
   * running for `duration`, as h2load `-n` does; with one connection that is a sequential run.
   * Needs a driver with the `fixedRequests` capability; at least as many as the largest step's connections.
   */
  requests: positiveInt.optional(),
  /** Optional cap on offered requests per second (whole suite, not per connection). */
  rate: z.number().positive().optional(),
  /**
   * With `rate`: open loop. Requests are sent on a fixed schedule whatever the server does (a
   * driver with `capabilities.openLoop`, such as k6), and latency is also timed from each request's
   * intended send, so a stalling server cannot hide its stall (coordinated omission).
   */
  openLoop: z.boolean().default(false),
  /** Seconds without a response before a request counts as a timeout. */
  timeout: z.number().positive().default(DEFAULTS.timeoutSec),
});
export type LoadProfile = z.output<typeof loadProfileSchema>;

const expectationSchema = z.strictObject({
  /** Status (or statuses) a correct response may have. */
  status: z.union([positiveInt, z.array(positiveInt).min(1)]),
  /** Exact JSON body expected by the verify step (deep equality after decoding). */
  json: z.unknown().optional(),
  /** Exact body text expected by the verify step (after decoding), when the bytes themselves are the point (HTML, a number's form). */
  text: z.string().optional(),
  /** Headers that must be present with these values (names lower-case). */
  headers: z.record(z.string(), z.string()).optional(),
});
export type Expectation = z.output<typeof expectationSchema>;

/** Context handed to a scenario's `prepare` hook, once per fresh server process (per block), before the warm-up. */
export interface PrepareContext {
  /** Base URL of the server under test, e.g. `http://127.0.0.1:41234`. */
  baseUrl: string;
  /** The scenario's requests before preparation. */
  requests: readonly RequestSpec[];
}
/** What `prepare` may change: headers merged into every request (e.g. a learnt ETag). */
export interface PreparePatch {
  headers?: Record<string, string>;
}

const fnSchema = <T>() => z.custom<T>((v) => typeof v === 'function', 'expected a function');

const scenarioSchema = z
  .strictObject({
    name: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/, 'expected a kebab-case name ([a-z0-9._-])'),
    description: z.string().optional(),
    /**
     * How the scenario is measured (`scenarioKinds` in `scenario-kinds.ts`): `http` (the default) in rounds of
     * paired windows of request/response load; `stream` as server-sent-event streams (`stream`).
     */
    kind: z.enum(['http', 'stream']).default('http'),
    /** What a `kind: 'stream'` scenario measures (levels of concurrent streams, cancellation, backpressure). */
    stream: streamSpecSchema.optional(),
    /** Family of the scenario, e.g. `framework` or `gateway`. */
    group: z.string().optional(),
    request: requestSpecSchema.optional(),
    /** Several requests sent round-robin over each connection. */
    requests: z.array(requestSpecSchema).min(1).optional(),
    expect: expectationSchema,
    load: loadProfileSchema.default(loadProfileSchema.parse({})),
    /** Runs once per block against the fresh server before warm-up (e.g. learn an ETag). */
    prepare: fnSchema<(ctx: PrepareContext) => Promise<PreparePatch> | PreparePatch>().optional(),
    /**
     * The backend behind the targets (a helper service they declare, e.g. a stub LLM), and the
     * request that makes it do the work one scenario request causes. Its own ceiling is measured
     * once per run by loading it directly, and each target's throughput is reported as a share of it.
     */
    backend: z.strictObject({ service: z.string(), request: requestSpecSchema }).optional(),
    /** Verify-only scenarios are checked by parity/verify but never put under load. */
    verifyOnly: z.boolean().default(false),
    /** Absolute pass/fail checks on this scenario's merged figures, e.g. `['p99<50ms', 'errors<0.1%']` (see `--threshold`). */
    thresholds: z.array(z.string()).optional(),
  })
  .superRefine((s, ctx) => {
    if (s.stream && s.kind !== 'stream') ctx.addIssue({ code: 'custom', path: ['stream'], message: 'only a scenario with kind "stream" takes a stream block' });
    if (s.kind === 'stream' && s.requests) ctx.addIssue({ code: 'custom', path: ['requests'], message: 'a stream scenario sends one request: give "request"' });
    if (s.load.openLoop && s.load.rate === undefined) ctx.addIssue({ code: 'custom', path: ['load', 'openLoop'], message: 'open-loop load needs load.rate (requests per second)' });
    if (!s.request === !s.requests) {
      ctx.addIssue({ code: 'custom', path: ['request'], message: 'give exactly one of "request" or "requests"' });
    }
    const most = Math.max(...connectionSteps(s.load));
    if (s.load.requests !== undefined && s.load.requests < most) {
      ctx.addIssue({ code: 'custom', path: ['load', 'requests'], message: `${s.load.requests} requests cannot keep ${most} connections busy; give at least ${most}` });
    }
  });

export type ScenarioInput = z.input<typeof scenarioSchema>;
export type Scenario = z.output<typeof scenarioSchema>;

/**
 * Declare a scenario: what to send, what a correct answer is, and the load profile.
 * Identity at the type level; validated (with field names in errors) by `runSuite`.
 *
 * @example
 * defineScenario({ name: 'baseline', request: { path: '/ping' }, expect: { status: 200 } })
 */
export function defineScenario<const T extends ScenarioInput>(scenario: T): T {
  return scenario;
}

/** Validate a scenario, throwing a `BenchsuiteConfigError` that names the field. */
export function parseScenario(input: unknown, path = 'scenario'): Scenario {
  return parseOrThrow(scenarioSchema, input, path);
}

/** The requests of a scenario as a list (one or many). */
/** Whether the load driver runs this scenario in windows: not verify-only, and of the `http` kind (other kinds measure themselves, `scenario-kinds.ts`). */
export function driverLoaded(s: Pick<Scenario, 'verifyOnly' | 'kind'>): boolean {
  return !s.verifyOnly && s.kind === 'http';
}

export function scenarioRequests(s: Pick<Scenario, 'request' | 'requests'>): RequestSpec[] {
  return s.requests ?? (s.request ? [s.request] : []);
}

/** Connection counts of the load profile as a list of steps. */
export function connectionSteps(load: LoadProfile): number[] {
  return Array.isArray(load.connections) ? load.connections : [load.connections];
}

/** The scenario's requests against a fresh server, after its `prepare` hook (e.g. a learnt ETag header). */
export async function prepareRequests(scenario: Scenario, baseUrl: string): Promise<RequestSpec[]> {
  const requests = scenarioRequests(scenario);
  if (!scenario.prepare) return requests;
  const patch = await scenario.prepare({ baseUrl, requests });
  return requests.map((r) => ({ ...r, headers: { ...r.headers, ...patch.headers } }));
}
