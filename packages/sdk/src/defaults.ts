/**
 * Every default and threshold of the measuring design, in one place. The SDK, the CLI (help,
 * flag defaults, README table) and the reports import them from here; nothing restates a number.
 */
/**
 * Requests a fresh process serves before it is measured: the fresh warm-up's least work
 * (`DEFAULTS.warmup.served`) and `--instructions`' uninstrumented warm-up. Counted in callgrind
 * in batches of 1,000 with the young generation fixed (`npm run bench:warmup-instructions`,
 * 2026-11-29; docs/measurements.md has the table), the request path's cost (the least batch
 * outside collections) of the 3,000 requests after a warm-up of 10,000 was within 0.5% of its
 * final level on nine of ten (server, scenario) pairs of contract A's Node servers on baseline and
 * json-post (Express on baseline 7% above, a re-optimisation gone by 14,000); after 5,000 Hono's
 * was still 1.37× it. 20,000 is past all of them.
 */
const STEADY_WORK = 20_000;

export const DEFAULTS = {
  /** Target of the relative figures (throughput and CPU per request) when present in the suite. */
  reference: 'node-http',
  /**
   * Measured seconds of one window (one target, one round). 0.8 s rather than 1 s so that the
   * minimum of the default suite (9 scenarios × 6 targets × 2 blocks × 3 rounds, with warm-ups, on
   * shared processes) fits its 18-minute budget on 2 cores with room for a third block.
   */
  windowSec: 0.8,
  /** Settle seconds before each window of a stepped load (its first step, after the process sat idle); single-step loads use 0. */
  stepSettleSec: 0.3,
  /**
   * Settle seconds before each later step of a stepped window (at most the window's own settle): the
   * previous step has just loaded the process, so only the new connections' transient is left.
   * 0.1 s rather than 0.3 s or none, from `npm run bench:step-settle` on the concurrency ramp (the
   * same processes, modes alternated, steps and rounds pooled): with no settle koa ran 6% slow in
   * both runs (0.94 ± 3% and 0.94 ± 2% of its figure with the full settle), the others within two
   * standard errors; with 0.1 s koa read 0.99 ± 4% and 0.98 ± 1%, all six 1.02 ± 2% and 1.01 ± 1%.
   * The ramp's windows are then 75% measured instead of 60% (86% with none).
   */
  laterStepSettleSec: 0.1,
  /**
   * Block warm-up: `windowSec` windows until the process has served `served` requests, within
   * [minSec, maxSec] (with `served` 0: until per-second req/s changes by less than `tolerance`, the
   * rule before issue 38). By the server's work, not the host's seconds: judged by per-second req/s
   * within ±5% on a host whose seconds move ±15%, every warm-up ran to its maximum, settled or not,
   * and on a host at half speed its 3 s served half the requests (round 1 then read 5.5% low against
   * the block's later rounds in a compact run, 2026-11-28). Each run checks it after the fact
   * (`result.designBias`: round 1 ÷ the later rounds, per pair; a pair found unsteady has its round
   * 1 left out).
   * `served` here is the least; unless a design gives it, a run asks `warmupServedPerScenario` for
   * each scenario whose requests the fresh warm-up sends (`warmupServed`): 21,000 for the 6-minute
   * run's three, 63,000 for the default run's nine, 20,000 for processes that serve one scenario. From
   * 50,000 in 1-s windows whatever the mix (2026-11-29, docs/measurements.md): with the young
   * generation fixed, 10,000 requests served left Fastify and Koa at the level 200,000 did, and
   * warmed on every scenario's requests most warm-ups ran to their 3 s before 50,000. In 6-minute
   * runs (three scenarios), one design each: 50,000 in 1-s windows measured 63% of the wall time,
   * round 1 ÷ later 0.988 [0.970, 1.007]; 20,000 in 0.5-s windows 71% and 0.996 [0.987, 1.005];
   * 10,000 74% and 1.009 [0.980, 1.040] with 4 of 12 pairs' round 1 flagged. But 20,000 over the
   * default run's nine scenarios (about 2,200 each) left node:http's own processes apart: the A/A
   * twin's SD between blocks 0.04–0.13 on 6 of 9 scenarios, against 0.022 or less on 8 of 9 with
   * 50,000, and the median half-width ±9.6% against ±7.0–7.9%. So the work is per scenario: about
   * 7,000 each served well in both (the default run from a fresh clone with it: the twin's SD 0.022
   * or less on 7 of 9). Half-second windows, so a fast target stops within half a second of its
   * work done.
   * At most 3 s, not 4: a fresh process's third second already ran at its block's
   * measured level (0.99, 1.01 and 1.03 of it, medians over 18–24 fresh processes in three default
   * runs, `npm run bench:warmup`).
   * A block's fresh processes warm up together in rotation rounds (every target still warming gets
   * one window per round, in a seeded order), so none sits idle through the others' whole warm-ups.
   * From a scenario's second block on, each starts in the round that makes its windows end with the
   * longest's, by the windows it took in the scenario's block before (`dueInRound`): the fast
   * reference served its 20,000 requests in 1–2 windows and then idled while Express took 6. Round 1
   * ÷ later read 1.010–1.016 in the per-scenario default runs before; on a noisy host a pair's round
   * 1 read +8.2% ± 7.3% where the reference had idled one warm-up round longer than the target and
   * −3.9% ± 7.7% where they idled alike in one run, −2.0% ± 9.3% and −3.2% ± 6.8% in another
   * (docs/measurements.md): mixed, but the asymmetry is there by construction and aligning the ends
   * costs no window. Warming them one after another, then a wake-up round of one window each, was
   * the design until 1f23444 (results without `design.freshWarmup`) and was removed: a server idle for about 15 s
   * runs its next second slow, and the wake-up round that undid it cost 3.2 s of the default suite's
   * 23 s of fresh start per block.
   * At least two windows (`minSec` 1 s), so a warm-up's connections have closed once before it
   * ends: each window is a loader of its own, and a Node server's first connections closing
   * deoptimises its request path. Counted in callgrind (node:http, 8 connections, 10,000 requests
   * on one set of connections, then a new set): the 1,000-request batches after the first close
   * cost 189k, 203k, 133k, 67k and then 57k instructions a request, its floor before the close;
   * after a second close 59–66k. Fastify's first close: 302k, 210k, 280k, 69k, 61k. A target that
   * served its work in one window, as fast ones do on a fast host (node:http 40,000 requests in
   * half a second), met round 1 re-settling: the reference most of all, whose path is all Node's,
   * which fits the ratios' round 1 reading 1.010–1.016 of later rounds in per-scenario runs.
   */
  warmup: { minSec: 1, maxSec: 3, tolerance: 0.05, served: STEADY_WORK, windowSec: 0.5 },
  /** Requests a fresh warm-up asks for each scenario it sends (`warmup` above has why), above `warmup.served`. */
  warmupServedPerScenario: 7_000,
  /**
   * Rounds per block: the dimensioning phase chooses within [min, max]. The minimum is 2, not 3:
   * server processes differ more than windows do, so the budget buys blocks before rounds. With the
   * default suite's own components (between blocks 0.042, within 0.049, 2026-11-28) a block's
   * level has an SD of 0.062 at 3 rounds and 0.067 at 2, while 2 rounds make a block about 30%
   * cheaper (its rotation rounds and start stay): 18 minutes buy 5 blocks instead of 3, and the
   * expected half-width falls from ±15% (t on 2 degrees of freedom) to ±8% (on 4). Not 1: a block
   * of one round has no within-block part to resample, and the design-bias check (round 1 ÷ the
   * later rounds) needs a second round.
   */
  rounds: { min: 2, max: 20 },
  /**
   * How a round loads its targets (a method of the registry `run/methods/index.ts`). `sliced`: all
   * in the same seconds, in alternating slots of 0.4 s or more (`slice` below), with a driver that
   * can (wrk); `sequential`: one window per target after another, in a seeded order. Sliced, because the host's speed moves within a second:
   * on the project's VM a window's throughput log-ratio to the reference had a within-block SD of
   * 0.53 one window after another and 0.145 in slots, in the same hour on the same processes
   * (`npm run bench:slices`, 2026-11-27; docs/measurements.md).
   */
  method: 'sliced' as const,
  /**
   * V8's young generation (semi-space, MB) every Node target runs with: `--min-semi-space-size` and
   * `--max-semi-space-size` both set to it, the reference included; `'default'` leaves the runtime's
   * own sizing. V8 starts a semi-space at 1 MB and grows it with the survival rate: under load a
   * fresh node:http, Fastify or Koa process here read 4–16 MB after 1–4 s and 32 MB from 5–13 s on,
   * where it stayed (Node 20.20, 24 GiB; `v8.getHeapSpaceStatistics()` each second, 2026-11-28).
   * A 3-s warm-up therefore measured each process at a random point of that growth: two fresh
   * processes of one build differed by an SD of 0.05–0.11 in log-ratio between blocks, and with 16 MB
   * fixed that fell 2–4× and Fastify ÷ node:http moved from 0.78 to 0.95 in the same blocks (issue
   * 41). Fixed at the size a long-running server reaches, every process is measured in that state
   * from its first request. `npm run bench:aa` measures each size's A/A spread and level
   * (docs/measurements.md).
   */
  youngGenerationMb: 32 as number | 'default',
  /**
   * V8's memory reducer in every Node target: `'off'` starts each with `--no-memory-reducer`, the
   * reference included; `'default'` leaves the runtime's own. The reducer starts full collections
   * and shrinks the heap when a process allocates little for a while, as each does during the other
   * targets' slots of a sliced round (and between the windows of sequential ones); a server under
   * steady load never looks idle, so with it on a process was measured in a heap state its idle
   * moments drew. Over the default suite's nine scenarios, twins of one build in the same blocks
   * (young generation fixed, processes per scenario, 18 df each) read one process's SD 6.6% → 3.2%
   * with the reducer off for node:http, 8.8% → 1.9% for Fastify, 14.7% → 6.5% for Koa and 13.1% →
   * 8.0% for hono-lean (most of what is left is production-stack), their levels 2–6% higher on the
   * geometric mean over scenarios (`npm run bench:aa`, seed 9201, 2026-12-02; docs/measurements.md). Off, so every process is
   * measured as the loaded server it stands for; `--memory-reducer default` measures the other.
   */
  memoryReducer: 'off' as 'off' | 'default',
  /**
   * The A/A control: in every windowed run the reference also runs as a second, independent process
   * (named `<reference>.twin`), loaded in the same rounds as any target. Its ratio to the reference
   * should be 1; its interval says whether the run's intervals hold, and its spread between blocks
   * is the processes' own noise (the SD of one process's level is that spread ÷ √2).
   */
  control: { kind: 'aa' as 'aa' | 'none', twinSuffix: '.twin' },
  /**
   * Processes of every target in each block (`--replicas k`): each its own slot in a round, a round's
   * figure of the target the geometric mean over its processes (`replicas.ts`). 1, because here a
   * replica costs what a block costs: with shared processes a block's fixed cost is its processes'
   * start and warm-ups (and a rotation round per later scenario), paid per process either way, so k
   * replicas buy the k process samples that k blocks buy, and the blocks bring degrees of freedom
   * (the interval's t has blocks − 1) where replicas bring none (Kalibera & Jones 2013: a level
   * is worth repeating only when it has costs of its own; docs/method.md).
   */
  replicas: 1,
  /**
   * The design-bias check of every run (`analysis/design-bias.ts`): round 1 ÷ the block's later
   * rounds, and a slot's first half ÷ its second, are flagged per pair when their 95% interval
   * excludes 1 and they differ from it by more than `flag` (issue 38's goal: under 1%).
   */
  designBias: { flag: 0.01 },
  /** Blocks (fresh server processes) per scenario. */
  blocks: { min: 2, max: 12 },
  /**
   * Who a block's fresh processes serve: `per-scenario` starts them for each scenario's block;
   * `shared` starts them once per block for every scenario of the suite, in a seeded order drawn
   * afresh per block, so a process is warmed up from cold once per block instead of once per
   * scenario (`npm run bench:carry-over` measured how much of a warm-up carries over).
   * Per-scenario, because a shared process's level in a scenario depends on which of the suite's
   * other routes it served before, in an order drawn per block: that is what set the default run's
   * intervals. Over the default suite, with the young generation fixed and sliced rounds, a pair's
   * SD between blocks read 0.035–0.054 with shared processes (median over 54 pairs; default runs
   * of 2026-11-29 01:20–05:19 UTC, their medians ±7.0–9.6% over 45 ratios, 78–81% of the wall time
   * measured) and 0.011 with processes per scenario (06:19 UTC, seed 39: ±4.2%, with 3–6 blocks
   * per scenario, though only 58% of the wall time was measured: every scenario's block starts and
   * warms its own processes). The figure is then the server's warmed on the route measured, not
   * on a random mix of the suite's others (docs/method.md).
   */
  processes: 'per-scenario' as 'per-scenario' | 'shared',
  /**
   * With shared processes warmed on the first scenario (`warmupRequests: 'first-scenario'`), a
   * process that served an earlier scenario of its block is warmed for the
   * next one with this many unrecorded rotation rounds of warm-up windows (every target once per
   * round, in a seeded order) instead of warming until steady: after 4 s of another scenario a
   * process's first second ran at 0.84–1.00 of its steady figure, and within 5% from its second.
   * One round, not two: with one, round 1's ratios to the reference were no lower than round 2's
   * (docs/method.md has the figures), and 9 more points of the wall time were measured. Not none, even
   * after a fresh warm-up on every scenario's requests at once (tried in 8489025 and removed; the
   * docs/method.md has those figures too, and `npm run bench:mixed-warmup` measures it on its own).
   */
  carriedWarmupRounds: 1,
  /**
   * With shared processes, what a block's fresh processes are warmed on. `all-scenarios`: every
   * scenario's requests of the block at once (each prepared once per process before the warm-up,
   * each connection sending them in turn), so no later scenario meets a cold route, and its part
   * runs no rotation round (`carriedWarmupRounds` applies only to `first-scenario`, the design
   * before: the block's first scenario's requests, a rotation round before each later one). On the
   * default suite with V8's young generation fixed, one default run each (2026-11-29, steal 0.0%,
   * `docs/measurements.md`): warmed on the mix, 80% of the wall time measured, round 1 ÷ the later
   * rounds 0.992 [0.977, 1.007] over the 54 pairs' ratios, ±7.0% over the 45 ratios; with the
   * first scenario and a 0.5-s rotation round 71%, 0.995 [0.975, 1.014], ±8.3%; with a 0.2-s one
   * 74%, 0.987 [0.969, 1.005], ±7.1%; with none 81%, 0.981 [0.963, 0.999] (a carried process's
   * round 1 ran at 0.928 of its later rounds, on the mix 0.980). Tried before the young generation
   * was fixed (commit 8489025) it read round 1 low (ratios 0.966) and was removed.
   */
  warmupRequests: 'all-scenarios' as 'first-scenario' | 'all-scenarios',
  /**
   * Seconds of each rotation window of a carried process's warm-up (above). 0.5 s, not the warm-up's 1 s: on the default suite a 0.5-s rotation
   * window ran at 0.74 of the block's figure (1-s ones at 0.83), yet round 1's ratios to the
   * reference were no lower than round 2's (1.011 ÷ the later rounds, control 1.039; with 1-s
   * windows 0.971 and 0.956; `npm run bench:warmup`, 120 carried pairs of blocks), and the rotation
   * rounds' share of the wall time halved. Not 0.3 s: a 0.3-s window ran at 0.70 of the figure,
   * and round 1's ratios came out low (0.902 ÷ the later rounds, control 1.010, the same 120 pairs;
   * per carried block 0.85 ± 5%, control 1.01 ± 7%), though 83% of the wall time was measured.
   * Nor 0.4 s: round 1 of a carried process ran at 0.961 of the later rounds (control 0.991), its
   * ratios 0.979 (control 0.989), and the run measured no larger share of its wall time (75%).
   */
  carriedWarmupWindowSec: 0.5,
  /**
   * Requests a carried process's rotation windows must have served before its scenario's rounds:
   * with a count, it keeps taking rotation windows after `carriedWarmupRounds`, alone with the others
   * still short of it, until they have or `warmup.maxSec` of them is spent. 0 (off), because 5,000
   * did not remove round 1's bias where it was, on production-stack. In four default runs of
   * 2026-11-28 (C–F pooled, one 0.5-s window) a carried framework's round 1 ran at 0.87–0.93 of
   * its round 2 there (1–10k requests in the window); with 5,000 (2–6 windows; a default run from a
   * fresh clone of 021a306, 18:42) at 1.02–1.27, high instead of low (hono 1.27, Fastify 1.15 after 2
   * windows), the mean over the run's 54 pairs 1.018 [1.004, 1.032] against 0.986–0.995, and each
   * block 12 s longer (5 blocks where such runs ran 5 and a sixth in part; docs/measurements.md).
   * What moves production-stack's rounds is not the requests a window served.
   */
  carriedWarmupServed: 0,
  /** Stop when every relative figure's 95% interval half-width is under this fraction. */
  precision: 0.02,
  /** Wall-clock budget of a run, seconds (the default suite fits 20 minutes on 2 cores). */
  budgetSec: 18 * 60,
  /** A window whose CPU steal exceeds this share is kept in the raw data but left out of estimates. */
  stealThreshold: 0.1,
  /** A pair is labelled `noisy` when its windows' req/s varies more than this (CoV within blocks). */
  noisyWindowCov: 0.1,
  /** A pair is labelled `disturbed` when windows were left out for steal or mean steal exceeds this. */
  disturbedSteal: 0.05,
  /**
   * A window the host disturbed beyond steal: something else used more than `otherShare` of the
   * measured cores' time, or the loader spent more than `loaderSlowdown` times its (scenario,
   * target) median CPU per request (its work per request does not change: the host ran slow).
   * Counted in the report and marked in the HTML's window chart; the windows stay in the estimates.
   */
  hostDisturbance: { otherShare: 0.05, loaderSlowdown: 1.3 },
  /** Differences smaller than this fraction are ties in rankings and no change in `compare`. */
  practicalBand: 0.01,
  /** Bootstrap resamples per interval. */
  bootstrapResamples: 2000,
  /** Confidence level of every interval. */
  confidence: 0.95,
  /** A loader core (or the loader process, per thread it can use) busier than this is the bottleneck. */
  clientBoundBusy: 0.9,
  /** A helper service (e.g. the gateway's stub backend) whose process is busier than this per thread is the bottleneck. */
  backendBoundBusy: 0.9,
  /** A server whose process tree used less than this share of its cores, with the loader not saturated, waits rather than computes. */
  serverSaturatedShare: 0.7,
  /**
   * Concurrency sweeps (a stepped load, `--connections 1,2,4,…`): the knee is the first level past
   * which req/s gains less than `kneeGain` while p99 still grows.
   */
  sweep: { kneeGain: 0.05 },
  /** A process of the server's tree counts as a worker when it used at least this share of the tree's CPU time in a window (a supervisor idles). */
  workerCpuShare: 0.05,
  /**
   * A window is the loader's figure, judged by the server, when the server's process tree used less
   * than `serverShare` of its cores while the busiest loader core (or the loader per thread) was over
   * `loaderBusy`: a server with work waiting would have used its whole core.
   */
  loaderBound: { serverShare: 0.97, loaderBusy: 0.8 },
  /**
   * A pair loader-bound (`loaderBound`) in at least this share of its usable windows is ranked as
   * a lower bound: the server might serve more than the loader sent, so its place is open upward
   * (`rankScenario`). Under it, a few bound windows are the host's moments, not the pair's figure.
   */
  loaderBoundRankShare: 0.5,
  /**
   * CoV verdict bands (upper limits, fractions): under `excellent` is Excellent, under `acceptable`
   * Acceptable, up to `noisy` Noisy, above it Unreliable (the nine-scenario suite's 3/5/10%).
   */
  covBands: { excellent: 0.03, acceptable: 0.05, noisy: 0.1 },
  /** The run's verdict is the band that at least this share of its pairs reach or beat. */
  verdictShare: 0.9,
  /**
   * Streaming scenarios (`kind: 'stream'`): concurrent-stream levels and seconds per level, the
   * warm-up, the SSE events that carry tokens and end a stream, the cancellation phase (disconnects,
   * token events before each, how long an upstream request may run on before it counts as never
   * aborted) and the backpressure phase (a reader of about 1 KiB/s for 10 s, longer while undecided).
   */
  stream: {
    streams: [50, 200],
    durationSec: 5,
    warmupSec: 2,
    deltaEvent: 'content_block_delta',
    endEvent: 'message_stop',
    cancel: { count: 40, afterEvents: 2, waitMs: 2000 },
    /**
     * stallSlackBytes: what the backend may write beyond the reader in the phase's second half and still count as throttled (socket buffers settling).
     * maxDurationFactor: how many times `durationSec` the phase may go on while the backend still streams and writes more than that in the second half
     * (the buffers between it and the reader, ~10 MB on loopback, filled in 0.9 s here, and take longer on a slow or busy host).
     */
    backpressure: { readBytesPerSec: 1024, durationSec: 10, stallSlackBytes: 2 ** 20, maxDurationFactor: 3 },
    /** Seconds the streams still open at a level's end may take before they are cut (from the level's end; their figures go to the level's `drain`). */
    drainSec: 5,
    /**
     * A level's cold start: its streams all open at once, and its measured window starts when every
     * one has ended its first stream, or after this many seconds at most (the level is then marked
     * `coldCapped`: some first streams, slowed by the burst, are still running in its window).
     */
    coldMaxSec: 10,
  },
  /**
   * `--instructions`: user-space instructions per request under valgrind's callgrind, per (scenario,
   * target) on `processes` fresh processes; each is warmed up with `warmupRequests` uninstrumented
   * requests at one connection, then counts `requests` at one connection and `loadedRequests` at the
   * scenario's connections. The runtime flags make the interpreter repeatable (V8: one thread, fixed
   * seeds, GC on a fixed schedule; CPython: a fixed hash seed). `pairSec` is the planner's estimate
   * for one pair on `processes` processes (80–110 s for contract A here with 1,000 requests at one
   * connection; the longer count adds about 10 s).
   * The warm-up is a run's (`STEADY_WORK`): after the 3,000 requests it was until 2026-11-29 a
   * Node server's request path still cost 1.06–2.1× its settled instructions (docs/method.md).
   * A count leaves V8's collections out (the inclusive cost of `Heap::CollectGarbage`): inside
   * callgrind a scavenge of the 32-MB young generation counts as 100–150M instructions, and a
   * 1,000-request count of Fastify caught one or not (118k a request with one, 60k without), where
   * natively its 27–29 scavenges in 8 s took under 1% of the time (`--trace-gc`). A count at the
   * settled path repeats less well than one of a path still settling did: the test server's three
   * processes agreed within 0.29–0.33% (0.01–0.06% before), likely the work of timers that fire during a
   * count (it runs for seconds under valgrind) now a larger part of a smaller count.
   */
  instructions: {
    processes: 3,
    warmupRequests: STEADY_WORK,
    requests: 2000,
    loadedRequests: 1000,
    /**
     * Requests each count's own connections serve, uninstrumented, before the count. A Node
     * server's path deoptimises when connections follow closed ones (the warm-up's) and takes about
     * 4,000 requests to settle again: node:http's count after a warm-up read 193k–296k
     * instructions a request where its settled path costs 56k (`DEFAULTS.warmup` has the batches).
     */
    resettleRequests: 6000,
    /** Pause after the warm-up and after the counted requests, ms: the closed connections are handled on both sides of the count, not inside it by chance. */
    settleMs: 500,
    readyTimeoutMs: 60_000,
    nodeFlags: ['--single-threaded', '--hash-seed=1', '--random-seed=1', '--predictable-gc-schedule'],
    pythonEnv: { PYTHONHASHSEED: '0' },
    pairSec: 110,
  },
  /** How long a server or helper service may take from spawn to ready before its start fails, ms. */
  readyTimeoutMs: 20_000,
  /**
   * Removed from the environment of every process the runner starts (servers by default, helper
   * services, the autocannon worker): NODE_EXTRA_CA_CERTS costs ~50 ms per Node start, and
   * NODE_OPTIONS would change how the runtime runs.
   */
  unsetEnv: ['NODE_EXTRA_CA_CERTS', 'NODE_OPTIONS'],
  /** Default concurrency when a scenario names none. */
  connections: 50,
  /**
   * A load at this many connections or fewer is low: the server waits for the round trip between
   * requests, so the loader's own time per request (and the loopback's) sits in every one. `auto`
   * then prefers the driver with the lowest time per request (h2load), and each such step's loader
   * floor is measured (`loaderFloor`). 2, from `npm run bench:loader-floor` (node:http, the fastest
   * server here, pinned apart from the loader, 2026-11-26): its core was 55% busy at 1 connection
   * and 77% at 2 under h2load (61% and 83% under wrk), but 94% at 4 and 95–97% from 8 on, where
   * req/s is the server's limit and no longer a round trip.
   */
  lowConnections: 2,
  /**
   * The loader's round-trip floor, measured for every step at `lowConnections` or fewer: after a
   * scenario's part of each block, the run's driver against a trivial responder (raw socket, one
   * fixed response) pinned to the server's cores, `windowsPerBlock` windows of the run's length,
   * each after `settleSec` (`firstSettleSec` for the run's first, which warms the responder). Per
   * block, not once: measured once at the start of a run here, a floor caught other work on the
   * loader's core and read 6.2k req/s [5.2k, 8.5k] where node:http alone reaches 10–11k. A pair's
   * loader share is its req/s ÷ the floor's at the same connections (at one connection: the floor's
   * round trip ÷ the pair's); a difference between two targets shows at (1 − share) of its size,
   * so a share above `flagShare` (a tenth of every difference lost) is flagged.
   */
  loaderFloor: { windowsPerBlock: 2, settleSec: 0.3, firstSettleSec: 1, flagShare: 0.1 },
  /** Seconds without a response before a request counts as a timeout. */
  timeoutSec: 10,
  /** Cold starts measured for the startup cost figure. */
  startups: 5,
  /** `--profile`: the profilers' settings. */
  profile: {
    /**
     * V8 sampling interval, µs (V8's own default). Measured on node:http `GET /ping` (server pinned
     * to cpu 0, wrk -t1 -c50 on cpu 1, 2-s windows, 6–7 paired rounds, median ratio to unprofiled):
     * 1000 µs cost 0–8% req/s (within noise), 500 µs ~12%, 250 µs 15–20%, 100 µs ~30% (+40% server
     * CPU per request, and V8 then only managed one sample per ~175 µs). At 1000 µs a busy second
     * gives ~900 samples: enough for shares to ±1–2 points over `windowSec`.
     */
    nodeIntervalUs: 1000,
    /**
     * py-spy samples per second (its default is 100). Blocking sampling at 250/s cost uvicorn +
     * FastAPI `GET /ping` ~9% req/s (5 paired rounds; `--nonblocking` showed no loss).
     */
    pySpyRate: 250,
    /** perf sampling frequency, Hz: 999 rather than 1000 so sampling does not beat with timers (cost ~1% on node:http). */
    perfFrequency: 999,
    /** Recommended length of the profiled window, s: ~3000 V8 samples of a busy server at the default interval. */
    windowSec: 3,
    /** Functions kept in a summary's `top`. */
    topFunctions: 20,
    /** A profiler stops by itself after this long if nobody calls `stop()` (a runner that died). */
    maxDurationSec: 120,
    /** How long `start()` waits for the profiler to confirm it is sampling, ms. */
    startTimeoutMs: 15_000,
    /** How long `stop()` waits for the profile to be written (and, for perf, `perf script`), ms. */
    stopTimeoutMs: 60_000,
  },
  /** Open-loop load (`load.openLoop`, the k6 driver). */
  openLoop: {
    /**
     * Requests in flight at once are allowed up to this many seconds of arrivals (at least the
     * scenario's connections, at most `maxInFlight`), so a server that stalls shows it as latency
     * rather than as sends that never left; sends beyond it are dropped and counted. k6 allocates
     * them all before the window (one JS runtime each, about 1 MB), hence the cap.
     */
    inFlightSec: 1,
    maxInFlight: 1000,
    /** A send that left more than this many ms after its intended time counts as late (k6 scripts read a whole-ms clock). */
    lateSendMs: 2,
  },
  /** `--slo`: the capacity search (offered rate stepped up, then bisected, on a fresh process per target). */
  capacity: {
    /** First offered rate: this share of the closed-loop req/s the block's warm-up reached. */
    startShare: 0.5,
    /** First offered rate, req/s, when the warm-up gives no hint. */
    startRate: 200,
    /** Coarse steps multiply the rate by this until the SLO fails. */
    growth: 2,
    /** Bisection stops when the bracket is narrower than this share of its lower end. */
    resolution: 0.05,
    /** Seconds per probe (one open-loop window at one rate). */
    probeSec: 2,
    /**
     * Most probes per block (coarse + bisection + confirmations), a bound on the search's time: a
     * typical search takes 10–13 (2 coarse, 5 bisections, a confirmation for each failure).
     */
    maxProbes: 20,
    /** Probes of a typical block, for the time a capacity run says it takes before it starts (see `maxProbes`). */
    typicalProbes: 12,
    /** Each probe's cost beside its window, s: the open-loop loader's start and stop. */
    probeOverheadSec: 0.3,
    /** A probe whose achieved req/s is below this share of the offered rate did not keep up (fails the SLO). */
    keptUpShare: 0.95,
    /**
     * Blocks (fresh processes) per target, at least: with 3 the capacity has a 95% interval over
     * processes (Student's t at 2 degrees of freedom, 4.3); `--blocks MIN` above it asks for more.
     */
    minBlocks: 3,
    /**
     * The loader's lateness is material above this share of a probe's sends (late, or failed at the
     * loader): with a busy loader, a failed probe is then loader-bound (`loaderLimited`); under any
     * CPU, so is one that meets the SLO judged from the actual send (`loaderLate`). A p99 term moves
     * only when over 1% of the requests move.
     */
    lateShare: 0.01,
    /**
     * A probe whose CPU steal is over `stealThreshold` is not judged: it is probed again at the same
     * rate, up to this many times; one still over is judged and marked (`probe.steal: 'judged'`).
     */
    stealRepeats: 2,
  },
  /**
   * The budget planner's fixed costs (see analysis/budget.ts), measured on the project's 2-core
   * machine: starting and stopping a block's servers together ~1.5 s; a loader process around a
   * measured step ~80 ms (wrk's stop tick, autocannon's start); verify ~1 s per target; a cold
   * start for the cost figures ~0.5 s. A sliced round's step: its slots plus 0.09–0.11 s (the
   * loaders' lead, their start and stop; 3–5 targets of 0.8 s, 38 rounds of a 6-minute run,
   * 2026-11-29), once each loader stops when its last slot has drained rather than at wrk's stop
   * tick after a fixed drain (0.25 s before); the slots' gaps of 2 latencies (2 ms at contract A's
   * load) are about 1% of them, 2% said for slower servers. `warmupRps`: the forecast prices a
   * fresh warm-up's requests at this rate (within its minimum and maximum), where the minimum design
   * is fitted with every warm-up at its maximum: over contract A's six servers a warm-up of 20,000
   * requests took 1.31 s per process on average (263 of them, 5% at the 3-s maximum; the default
   * run of 2026-11-29 06:19 UTC, seed 39), and one of 21,000 over three scenarios 1.32 s (a
   * 6-minute run, 03:13 UTC): 16,000 req/s. The forecast had priced them at 3 s and said 3 blocks
   * and ±10.3% where the run reached 3–6 blocks and ±4.2%.
   */
  planCosts: { blockStartSec: 1.5, loaderStartSec: 0.08, beforeSec: 0, slicedStepSec: 0.12, slicedGapShare: 0.02, warmupRps: 16_000 },
  /** Costs before the first block, per target: verify, and each cold start of the cost figures. */
  planPerTarget: { verifySec: 1, coldStartSec: 0.5 },
  /** The least the planner fits a design down to: rounds per block (the noise within a block needs a few), blocks. */
  planFloor: { rounds: 2, blocks: 1 },
  /**
   * A window holds at least this many responses per connection: its length is raised from the
   * latency the block's warm-up saw (connections ÷ req/s), so a 200-ms backend is not measured in
   * windows shorter than a response.
   */
  minResponsesPerConnection: 5,
  /**
   * …but never longer than this, s: a target so slow that its latency is seconds (an overloaded
   * pool) still completes responses steadily, and one slow target must not stretch every window.
   */
  maxFittedWindowSec: 2,
  /** `--runtime`: how long a variant's one test start may take before the runtime counts as unable to run it. */
  runtimeSmokeTimeoutMs: 20_000,
  /** Exit code of `run` and `merge` when a `--threshold` fails (k6 uses the same). */
  thresholdExitCode: 99,
  /** `compare`: a regression is a change whose whole 95% interval lies beyond this percentage (see the report's `classifyChange`). */
  compareThresholdPct: 5,
  /**
   * Time-sliced rounds (`design.method: 'sliced'`, a driver with `capabilities.slots`): every target
   * of a round is loaded in the same seconds, in alternating slots, so a ratio compares the same
   * moments of the host. A slot is at least `minSec` and at least `latencies` mean latencies of the
   * round's slowest target (each connection completes that many requests in it); after a target's
   * slot the core is left idle for `gapLatencies` of its own mean latencies (at least `minGapSec`),
   * so its requests still in flight end before the next target starts: no target works in another's
   * time. The loaders start `leadSec` (plus `leadPerConnectionSec` per connection of the round)
   * before the first slot to open their connections.
   */
  /**
   * What a typical pair's per-round log-ratio is expected to carry before a run has measured it
   * (the forecast in the run's header): the SD between blocks (processes), `priorBetween` below, and
   * the robust SD of a round within its block (the host) with each method (`RoundMethod.prior`,
   * `run/methods/`). A run replaces them with its own after its first blocks.
   */
  forecast: {
    /**
     * The SD between blocks of a pair (`analysis/forecast.ts` `priorBetween`): `oneScenario` for
     * processes that serve one scenario, and with shared processes `perScenario` more for each
     * scenario after the first, summed as SDs (the processes' state drifts with the work they have
     * served). With the young generation fixed (`youngGenerationMb`): twins of one build read
     * 0.015–0.018 on one or two scenarios (issue 41), a pair 0–0.023 over four scenarios and about
     * 0.05 over nine (`npm run bench:aa`, 2026-11-28); five default runs (nine scenarios, shared
     * processes, 3–6 blocks) read 0.042, 0.053, 0.064, 0.065 and 0.083 over all their blocks (RMS
     * 0.063 = √(0.015² + (8 × 0.0077)²)), and four 6-minute runs (three scenarios) 0–0.018
     * (docs/measurements.md). It was one figure for every design, 0.025, and a default run's
     * forecast after block 2 leaned on it and read 0.46–0.75 of what the run reached.
     */
    priorBetween: { oneScenario: 0.015, perScenario: 0.0077 },
    /**
     * How much the prior's SD between blocks weighs once the run has measured its own, in degrees of
     * freedom beside the run's (`pooledBetween`; the run's are blocks − 1 per pair, `measuredDf`).
     * The prior is an average over runs, and what it cannot know is how far this run's processes
     * differ from the average: the variances between blocks of the five default runs above have a
     * coefficient of variation of 0.49 from run to run, the spread of a variance read from
     * 2 ÷ 0.49² = 8.3 degrees of freedom: 8. A default run (9 scenarios of 6 pairs) has about 22 after
     * 2 blocks (6 pairs sharing a reference count as 2.7) and still outweighs it; a run of one pair
     * has 1, and keeps most of it. (It was 4, from six runs with Node's own young-generation sizing,
     * CV 0.75; before that 2 counted against blocks − 1 of the whole run.)
     */
    priorDf: 8,
    /**
     * How near the forecast after block 2 comes to the half-width the run reaches (the median over
     * its ratios to the reference): log(forecast ÷ reached) has mean `logBias` and SD `logSd`, and
     * the range the forecast is said with (`likelyRange`) is where `coverage` of such runs'
     * half-widths fall by a normal model of that record; the report says the range's centre first
     * (the forecast corrected by the record), the noise model's own figure after it. Fitted on the
     * ten runs of 2026-12-02 kept on disk (10:59–17:17 UTC, 5 default, 5 of 6 minutes), replayed
     * with the scenarios to come mixed in within blocks as between (`withUnseenScenarios`;
     * `npm run bench:forecast-replay`; docs/measurements.md, *The forecast after block 2 without
     * its floor within blocks*): mean −0.73 (the model's figure reads about half of what is
     * reached: the prior's 0.065 within and 0.015 between price the scenarios to come, which read
     * 0.067–0.138 and 0–0.08 over those runs), SD 0.32; 9 of the ten fall in the range it gives
     * (fitted on them). It was −0.39 and 0.53, fitted on 11 runs of 2026-11-29 to 12-02 with the
     * floor; 7 of the ten above fell in that range, and the next, at 17:37, fell outside it (±19.7%
     * said, ±13.5% reached).
     */
    record: { logBias: -0.73, logSd: 0.32, coverage: 0.8 },
    /**
     * The same record for the forecast said before the run, from the method's priors alone (the
     * header's `expects` line): over the nineteen runs of 2026-12-02 with V8's memory reducer off
     * (03:53–18:32 UTC; 11 default runs, which it said ±7.0%, reached ±5.4–15.7%; 8 of 6 minutes,
     * said ±5.0%, reached ±5.6–14.8%; docs/measurements.md, *CI's backend-bound flag, the forecast
     * before the run with its own record, …*), log(said ÷ reached) had mean −0.60 and SD 0.33 (−0.55
     * and 0.33 over the default runs, −0.68 and 0.33 over the short ones); 15 of the 19 fall in the
     * range it gives (fitted on them). `npm run bench:forecast-replay` prints it for the results
     * given. Said without it,
     * the header promised about half the half-width runs reached, and its budget lines (±5% needs
     * about …) about a third of the budget: they now price the range's centre, as the forecast
     * after block 2's do with `record`.
     */
    priorRecord: { logBias: -0.6, logSd: 0.33, coverage: 0.8 },
    /** The precision goals whose budget the header states. */
    goals: [0.05, 0.02],
  },
  /**
   * Slots of a sliced round: `minSec` at least, or `latencies` mean latencies of the round's slowest
   * target; after each, `gapLatencies` of its target's mean latencies idle (at least `minGapSec`).
   * 0.2 s, not 0.05 s: a server's work does not all end with its slot. Express used 1.20 cores over
   * its active time in 50-ms slots (about 8 ms of its CPU after each slot, in its gap and its
   * neighbour's slot), and read 1.13 of its ratio in 3-s windows one after another while the others
   * read 0.95–0.96 (they paid for it); with 0.2-s slots it used 1.04 (`npm run bench:slices --
   * --slice-sec 0.05|0.2`, 2026-11-28). 0.4 s, not 0.2 s: what is left is a cost every slot pays
   * that is not the same for every server (the caches and predictors another server's slot left
   * behind), and it shrinks with the slot. Over 17 blocks with 0.2-s slots koa read 0.970 [0.952,
   * 0.989] and hono 0.965 [0.944, 0.987] of their ratios in 3-s windows (their CPU per request 3%
   * higher in slots); over 14 blocks with 0.4-s slots, in the same runs where both were measured,
   * every pair of contract A's baseline read 0.978–1.001 (koa 0.998, hono 0.978 [0.948, 1.009]),
   * and the SD of a round's log-ratio within blocks was no larger (0.100 against 0.112 in the same
   * blocks) (`npm run bench:slices -- --methods sliced@0.2,sliced@0.4,long`, 2026-11-28;
   * docs/measurements.md). A window of 0.8 s is then 2 slots. Shorter slots average more of a
   * slot's own noise (0.1-s slots: a round's SD 0.093 and 0.131 against 0.233 and 0.163 with 0.4-s ones,
   * same blocks, a noisy hour) but read the frameworks' ratios 4% high against 3-s windows one after
   * another (1.041 [1.001, 1.082], mean of five over 12 blocks; 0.4-s slots 1.007 [0.954, 1.063];
   * `npm run bench:slices -- --methods sliced@0.1,sliced@0.4,long --long-sec 3`, 2026-12-03), a
   * shift the switch's cost at a slot's start does not explain, so not taken. `leadSec`: the loaders start this
   * long before the first slot (to spawn and connect). 0.06 s, not 0.15 s: seven wrk loaders took
   * every slot of every round with either (8 rounds each, baseline, 2026-11-29), and a round's time
   * beyond its slots fell from 0.32 s to 0.21 s (0.21 s with 0.03 s: the rest is their start and stop).
   */
  slice: { minSec: 0.4, latencies: 10, gapLatencies: 2, minGapSec: 0.002, leadSec: 0.06, leadPerConnectionSec: 0.0001, unknownLatencySec: 0.005 },
  /**
   * The history's change-point rule (`benchsuite history changes`, `check`, the reports' charts):
   * E-Divisive means with a permutation test at `alpha` over `permutations` shuffles (seeded with
   * `seed`, so a series always gets the same answer), then changes under `minMagnitude` merged
   * away. α = 0.01 rather than MongoDB's 0.05: a check judges every figure of every pair at once
   * (8 series for 2 scenarios × 2 targets × 2 figures): on 1,000 simulated 30-run histories without
   * a change on this VM's noise, α = 0.05 found one in 5.7% (quiet) and 5.1% (noisy) of them, about a
   * third of such jobs over 8 series; α = 0.01 in 0.9% and 1.3% (`npm run bench:history -- --alpha
   * 0.05 --models quiet,noisy`, its first table). Only the
   * most recent `maxPoints` runs of a series are analyzed (the statistic costs O(n²) per shuffle).
   * The gate judges a new run against the `gate.window` runs before it, and needs `gate.minRuns`
   * of them: with fewer, no split of the series can reach p ≤ 0.01 (3 runs after a step among 10
   * give C(10, 3) = 120 orders). `gate.sameMachine`: what of the machine must match for an earlier
   * run to count as the same machine (`history check --same-machine`); all of it by default, as a
   * kernel or Node upgrade moves the figures and would otherwise read as the next commit's change.
   * `coverage`: the tool's own check of its intervals across the runs kept, from each run's A/A
   * control (`result.control`): a 95% interval of twin ÷ reference should hold 1 in about
   * `nominal` of runs; a share whose one-sided binomial test gives P(this few or fewer | `nominal`)
   * under `alpha` says the intervals are too narrow on that machine.
   */
  history: {
    alpha: 0.01,
    permutations: 199,
    minMagnitude: 0.01,
    minSegment: 3,
    seed: 1,
    maxPoints: 500,
    gate: { window: 30, minRuns: 10, sameMachine: ['cpu', 'kernel', 'node', 'python'] },
    coverage: { nominal: 0.95, alpha: 0.05 },
  },
} as const;

/** Requests a fresh process serves in its warm-up when it warms on `scenarios` scenarios' requests, unless the design gives a number (`DEFAULTS.warmup` has why). */
export const warmupServed = (scenarios: number): number => Math.max(DEFAULTS.warmup.served, DEFAULTS.warmupServedPerScenario * Math.max(1, scenarios));

/** `--quick`: a smoke run that checks the plumbing in under 2 minutes, not a figure to publish. */
export const QUICK = {
  windowSec: 0.2,
  stepSettleSec: 0.25,
  warmup: { minSec: 0.4, maxSec: 0.4, tolerance: 0.2, served: 0 },
  carriedWarmupWindowSec: 0.2,
  rounds: { min: 2, max: 2 },
  blocks: { min: 1, max: 1 },
} as const;
