import { z } from 'zod';

/**
 * The result document: the single source of truth for what a run produced.
 * `schema/result.schema.json` is generated from it at build time for other tools.
 * Bump `RESULT_SCHEMA_VERSION` on any incompatible change.
 */
export const RESULT_SCHEMA_VERSION = 1 as const;

const num = z.number();
const nonneg = z.number().nonnegative();
const int = z.number().int().nonnegative();

/** Latency percentiles in microseconds, from an HDR histogram (µs resolution). */
export const latencySchema = z.strictObject({
  p50: nonneg, p90: nonneg, p99: nonneg, p999: nonneg,
  min: nonneg, max: nonneg, mean: nonneg, stdev: nonneg,
  count: int,
});
export type Latency = z.infer<typeof latencySchema>;

/** Counts of responses by status code, e.g. `{ "200": 1234 }`. */
export const statusCountsSchema = z.record(z.string(), int);

/** Correctness counters kept beside every latency figure. */
const countersShape = {
  requests: int,
  statusCounts: statusCountsSchema,
  /** Socket or protocol errors (no response). */
  errors: int,
  timeouts: int,
  /** Responses whose status is not 2xx (304 counts as non-2xx here too). */
  non2xx: int,
  /** Responses whose status is not among the scenario's expected statuses. */
  unexpected: int,
};

export const resourceSchema = z.strictObject({
  /** CPU seconds (user+system) of the server's whole process tree during the measured window. */
  serverCpuSeconds: nonneg,
  /** Peak RSS summed over the server's process tree, bytes, from ~100 ms samples. */
  serverPeakRssBytes: int,
  serverProcesses: int,
  /** CPU seconds of the load generator process during the measured window. */
  loaderCpuSeconds: nonneg,
  /** Busy fraction (0..1) of the loader's cores during the window, from /proc/stat. */
  loaderCoreBusy: nonneg,
  /** Share (0..1) of the server's and loader's cores' time taken by the hypervisor (steal) in the window. */
  cpuSteal: nonneg.optional(),
  samples: int,
});

export const stepResultSchema = z.strictObject({
  connections: z.number().int().positive(),
  /** Seconds actually measured. */
  durationSec: nonneg,
  rps: nonneg,
  ...countersShape,
  latency: latencySchema,
  /** HDR histogram of latencies in µs, compressed base64 (mergeable across trials). */
  histogram: z.string(),
  resources: resourceSchema,
  /** The loader's core was saturated: RPS here is the loader's ceiling, not the server's. */
  clientBound: z.boolean(),
  /** RPS per server CPU-second (null when the server used no measurable CPU). */
  rpsPerCpuSecond: num.nullable(),
});
export type StepResult = z.infer<typeof stepResultSchema>;

export const failureSchema = z.strictObject({
  phase: z.enum(['setup', 'start', 'ready', 'prepare', 'load', 'crash', 'interrupted']),
  message: z.string(),
  exitCode: z.number().int().nullable().optional(),
  signal: z.string().nullable().optional(),
  /** Last lines the server wrote on stderr/stdout. */
  stderrTail: z.string().optional(),
});

const trialBase = {
  id: z.string(),
  scenario: z.string(),
  target: z.string(),
  /** 1-based trial number within the (scenario, target) pair. */
  trial: z.number().int().positive(),
  /** Position in the (seeded, interleaved) run order, 0-based. */
  order: int,
  startedAt: z.iso.datetime(),
  /** Wall time of the whole trial (start of server to its stop), seconds. */
  wallSec: nonneg,
};

export const okTrialSchema = z.strictObject({
  ...trialBase,
  status: z.literal('ok'),
  durationSec: nonneg,
  rps: nonneg,
  ...countersShape,
  latency: latencySchema,
  histogram: z.string(),
  resources: resourceSchema,
  clientBound: z.boolean(),
  rpsPerCpuSecond: num.nullable(),
  /** One entry per connection step (a single entry for a fixed load). */
  steps: z.array(stepResultSchema).min(1),
  /** Startup of the server for this trial: spawn to ready, ms. */
  startupMs: nonneg.optional(),
});
export const failedTrialSchema = z.strictObject({
  ...trialBase,
  status: z.literal('failed'),
  failure: failureSchema,
});
export const trialSchema = z.discriminatedUnion('status', [okTrialSchema, failedTrialSchema]);
export type Trial = z.infer<typeof trialSchema>;
export type OkTrial = z.infer<typeof okTrialSchema>;
export type FailedTrial = z.infer<typeof failedTrialSchema>;

export const verdictSchema = z.enum(['excellent', 'acceptable', 'noisy', 'unreliable', 'insufficient']);
export type Verdict = z.infer<typeof verdictSchema>;

/** Mean, sample SD (n−1), CoV and 95% CI (Student t) of one figure across trials. */
export const sampleStatsSchema = z.strictObject({
  n: int,
  mean: num,
  sd: num.nullable(),
  /** sd / mean, as a fraction (0.031 = 3.1%). */
  cov: num.nullable(),
  ci95: z.tuple([num, num]).nullable(),
  values: z.array(num),
});
export type SampleStats = z.infer<typeof sampleStatsSchema>;

export const stepSummarySchema = z.strictObject({
  connections: z.number().int().positive(),
  rps: sampleStatsSchema,
  p99: sampleStatsSchema,
  /** Percentiles of the histogram merged over trials (never averages of percentiles). */
  latency: latencySchema,
  clientBoundTrials: int,
});

export const pairSummarySchema = z.strictObject({
  scenario: z.string(),
  target: z.string(),
  trials: int,
  okTrials: int,
  failedTrials: int,
  rps: sampleStatsSchema,
  /** p99 of each trial, µs. */
  p99: sampleStatsSchema,
  latency: latencySchema,
  histogram: z.string(),
  /** max(CoV of RPS, CoV of p99) → verdict; `insufficient` with fewer than 2 ok trials. */
  verdict: verdictSchema,
  clientBoundTrials: int,
  errors: int,
  timeouts: int,
  non2xx: int,
  unexpected: int,
  requests: int,
  serverCpuSeconds: sampleStatsSchema,
  rpsPerCpuSecond: sampleStatsSchema,
  peakRssBytes: int,
  steps: z.array(stepSummarySchema),
});
export type PairSummary = z.infer<typeof pairSummarySchema>;

export const rankingSchema = z.strictObject({
  scenario: z.string(),
  /** Places in descending mean RPS; targets in one place are not significantly different. */
  places: z.array(z.strictObject({ place: z.number().int().positive(), targets: z.array(z.string()), meanRps: z.array(num) })),
  method: z.string(),
});
export type Ranking = z.infer<typeof rankingSchema>;

export const verifyOutcomeSchema = z.strictObject({
  scenario: z.string(),
  target: z.string(),
  ok: z.boolean(),
  reason: z.string().optional(),
  /** Readable diff between the expectation and what the target answered. */
  diff: z.string().optional(),
});
export type VerifyOutcome = z.infer<typeof verifyOutcomeSchema>;

export const costsSchema = z.strictObject({
  /** Spawn → first 200 on the health path, ms, each cold start; median reported. */
  startupMs: z.strictObject({ median: nonneg, samples: z.array(nonneg), method: z.string() }),
  idleRssBytes: int,
  idlePssBytes: int.nullable(),
  processCount: int,
  /** Peak RSS under load over all trials of this target, bytes. */
  peakRssBytes: int.nullable(),
  artifact: z.strictObject({ bytes: int, method: z.string() }).nullable(),
});
export type Costs = z.infer<typeof costsSchema>;

export const targetInfoSchema = z.strictObject({
  name: z.string(),
  kind: z.enum(['process', 'url']),
  status: z.enum(['ok', 'skipped', 'failed']),
  /** Why the target was skipped or failed to set up. */
  reason: z.string().optional(),
  version: z.string().optional(),
  language: z.string().optional(),
  framework: z.string().optional(),
  command: z.array(z.string()).optional(),
  url: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()),
  costs: costsSchema.optional(),
});
export type TargetInfo = z.infer<typeof targetInfoSchema>;

export const scenarioInfoSchema = z.strictObject({
  name: z.string(),
  description: z.string().optional(),
  group: z.string().optional(),
  requests: z.array(z.strictObject({
    method: z.string(), path: z.string(), headers: z.record(z.string(), z.string()), body: z.string().optional(),
  })),
  expect: z.strictObject({ status: z.array(z.number().int()) }),
  load: z.strictObject({
    connections: z.array(z.number().int().positive()),
    warmupSec: nonneg,
    durationSec: nonneg,
    rate: num.optional(),
    timeoutSec: nonneg,
  }),
});

export const environmentSchema = z.strictObject({
  os: z.string(),
  kernel: z.string(),
  arch: z.string(),
  cpuModel: z.string(),
  cores: z.number().int().positive(),
  memoryBytes: int,
  hostname: z.string().optional(),
  node: z.string(),
  python: z.string().nullable(),
  benchsuite: z.string(),
  git: z.strictObject({ commit: z.string(), dirty: z.boolean() }).nullable(),
  driver: z.strictObject({ name: z.string(), version: z.string(), flags: z.array(z.string()), ceilingNote: z.string().optional() }),
  pinning: z.strictObject({
    enabled: z.boolean(),
    tool: z.string().nullable(),
    serverCpus: z.array(z.number().int().nonnegative()),
    loaderCpus: z.array(z.number().int().nonnegative()),
    /** Why pinning is off, when it is. */
    reason: z.string().optional(),
  }),
  /** Environment variables removed from or set for server processes. */
  serverEnv: z.strictObject({ unset: z.array(z.string()), set: z.record(z.string(), z.string()) }),
  loadavgAtStart: z.array(num),
});
export type Environment = z.infer<typeof environmentSchema>;

export const resultSchema = z.strictObject({
  schemaVersion: z.literal(RESULT_SCHEMA_VERSION),
  suite: z.string(),
  startedAt: z.iso.datetime(),
  finishedAt: z.iso.datetime(),
  /** Stopped early (SIGINT/SIGTERM): trials not run are absent. */
  interrupted: z.boolean(),
  seed: z.number().int(),
  trialsPerPair: z.number().int().positive(),
  environment: environmentSchema,
  scenarios: z.array(scenarioInfoSchema),
  targets: z.array(targetInfoSchema),
  verify: z.array(verifyOutcomeSchema),
  trials: z.array(trialSchema),
  summaries: z.array(pairSummarySchema),
  rankings: z.array(rankingSchema),
  /** The runner itself: its peak RSS and where the wall time went. */
  runner: z
    .strictObject({
      peakRssBytes: int,
      wallSec: nonneg,
      /** Σ (warm-up + measured) seconds of ok trials. */
      loadSec: nonneg,
      /** Σ measured seconds of ok trials. */
      measuredSec: nonneg,
    })
    .optional(),
  verdict: z.strictObject({
    overall: z.enum(['clean', 'acceptable', 'noisy', 'unreliable', 'insufficient']),
    counts: z.record(verdictSchema, int),
    /** Wall time of the run ÷ the time under load (warm-up + measured windows of ok trials). */
    overhead: num.nullable(),
  }),
});
export type BenchResult = z.infer<typeof resultSchema>;
