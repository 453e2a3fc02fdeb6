import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Driver } from './driver.js';
import { resolveDriver } from './drivers/index.js';
import { captureEnvironment, decidePinning, pinPrefix, pinSelf, type Pinning } from './environment.js';
import { BenchsuiteConfigError, parseOrThrow } from './errors.js';
import { encodeHistogram, latencyOf, mergeHistograms, decodeHistogram, type Histogram } from './histogram.js';
import { suiteOptionsSchema, type RunSuiteOptions, type SuiteEvent } from './options.js';
import { describeExit, ProcessStartError, startProcess, type RunningProcess } from './process.js';
import { processTree, pssBytes, readAllStats } from './proc.js';
import { seededShuffle } from './random.js';
import {
  RESULT_SCHEMA_VERSION,
  resultSchema,
  type BenchResult,
  type Costs,
  type FailedTrial,
  type OkTrial,
  type PairSummary,
  type Ranking,
  type StepResult,
  type TargetInfo,
  type Trial,
  type VerifyOutcome,
} from './result-schema.js';
import { TreeSampler, type WindowResources } from './sampler.js';
import { connectionSteps, parseScenario, scenarioRequests, type RequestSpec, type Scenario } from './scenario.js';
import { pairVerdict, rankingMethod, rankWithTies, sampleStats, suiteVerdict } from './stats.js';
import { parseTarget, targetSupports, TargetUnavailableError, type ProcessTarget, type ServiceSpec, type Target } from './target.js';
import { send, verifyScenario } from './verify.js';

/** A loader whose cores are busier than this during a window is the bottleneck (`clientBound`). */
export const CLIENT_BOUND_BUSY = 0.9;

interface PlannedTrial {
  scenario: Scenario;
  target: Target;
  trial: number;
  order: number;
}

interface RunContext {
  driver: Driver;
  pinning: Pinning;
  signal: AbortSignal;
  emit: (e: SuiteEvent) => void;
  commands: Map<string, string[]>;
}

class TrialFailure extends Error {
  constructor(readonly phase: FailedTrial['failure']['phase'], message: string, readonly tail?: string, readonly exit?: { code: number | null; signal: string | null }) {
    super(message);
  }
}

/** Replace `${services.<name>.url}` in a target's environment. */
function substitute(env: Record<string, string>, services: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    out[k] = v.replace(/\$\{services\.([a-z0-9._-]+)\.url\}/g, (_, name: string) => {
      const url = services[name];
      if (url === undefined) throw new TrialFailure('start', `env ${k} refers to unknown service "${name}"`);
      return url;
    });
  }
  return out;
}

/** Start a target's services (pinned with the loader) and then its server (pinned apart). */
async function startTarget(
  target: ProcessTarget,
  ctx: Pick<RunContext, 'pinning' | 'signal' | 'commands'>,
  extra: { healthPollMs?: number; forceHealthz?: boolean } = {},
): Promise<{ server: RunningProcess; services: RunningProcess[] }> {
  const services: RunningProcess[] = [];
  const urls: Record<string, string> = {};
  try {
    for (const [name, svc] of Object.entries(target.services) as Array<[string, ServiceSpec]>) {
      try {
        const s = await startProcess({ ...svc, unsetEnv: ['NODE_EXTRA_CA_CERTS'], pin: pinPrefix(ctx.pinning, ctx.pinning.loaderCpus), signal: ctx.signal });
        services.push(s);
        urls[name] = s.url;
      } catch (err) {
        if (err instanceof ProcessStartError) throw new TrialFailure('start', `service ${name}: ${err.message}`, err.tail);
        throw err;
      }
    }
    const server = await startProcess({
      command: ctx.commands.get(target.name) ?? target.command,
      cwd: target.cwd,
      env: substitute(target.env, urls),
      unsetEnv: target.unsetEnv,
      ready: extra.forceHealthz ? { type: 'healthz', path: '/healthz' } : target.ready,
      readyTimeoutMs: target.readyTimeoutMs,
      pin: pinPrefix(ctx.pinning, ctx.pinning.serverCpus),
      signal: ctx.signal,
      healthPollMs: extra.healthPollMs,
    });
    return { server, services };
  } catch (err) {
    await Promise.all(services.map((s) => s.stop(2000)));
    throw err;
  }
}

async function stopAll(server: RunningProcess | undefined, services: RunningProcess[]): Promise<void> {
  await server?.stop();
  await Promise.all(services.map((s) => s.stop(2000)));
}

async function preparedRequests(scenario: Scenario, baseUrl: string): Promise<RequestSpec[]> {
  const requests = scenarioRequests(scenario);
  if (!scenario.prepare) return requests;
  const patch = await scenario.prepare({ baseUrl, requests });
  return requests.map((r) => ({ ...r, headers: { ...r.headers, ...patch.headers } }));
}

function emptyResources(): WindowResources {
  return { serverCpuSeconds: 0, serverPeakRssBytes: 0, serverProcesses: 0, loaderCpuSeconds: 0, loaderCoreBusy: 0, cpuSteal: 0, samples: 0 };
}

function perCpu(rps: number, durationSec: number, cpu: number): number | null {
  return cpu > 0 ? (rps * durationSec) / cpu : null;
}

/** One trial: fresh server, prepare, warm-up + measured window per connection step, stop. */
async function runTrial(p: PlannedTrial, ctx: RunContext, index: number): Promise<Trial> {
  const startedAt = new Date().toISOString();
  const t0 = performance.now();
  const base = { id: `${p.scenario.name}/${p.target.name}/${p.trial}`, scenario: p.scenario.name, target: p.target.name, trial: p.trial, order: p.order, startedAt };
  const trialAbort = new AbortController();
  const onAbort = () => trialAbort.abort();
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  let server: RunningProcess | undefined;
  let services: RunningProcess[] = [];
  let sampler: TreeSampler | undefined;
  let crashed: string | undefined;
  let stopping = false;
  try {
    ctx.emit({ type: 'trial-phase', index, phase: 'starting' });
    let baseUrl: string;
    if (p.target.kind === 'process') {
      ({ server, services } = await startTarget(p.target, ctx));
      baseUrl = server.url;
      const srv = server;
      void srv.exited.then((e) => {
        if (!stopping) {
          crashed = `server exited during the trial (${describeExit(e)})`;
          trialAbort.abort();
        }
      });
    } else {
      baseUrl = p.target.url.replace(/\/$/, '');
    }
    let requests: RequestSpec[];
    try {
      requests = await preparedRequests(p.scenario, baseUrl);
    } catch (err) {
      throw new TrialFailure('prepare', `prepare hook failed: ${(err as Error).message}`);
    }
    sampler = new TreeSampler(server?.pid, ctx.pinning.loaderCpus, 100, ctx.pinning.serverCpus);
    sampler.begin();
    const load = p.scenario.load;
    const expectStatus = Array.isArray(p.scenario.expect.status) ? p.scenario.expect.status : [p.scenario.expect.status];
    const steps: StepResult[] = [];
    const histograms: Histogram[] = [];
    for (const connections of connectionSteps(load)) {
      ctx.emit({ type: 'trial-phase', index, phase: 'measure', connections, seconds: load.warmup + load.duration });
      let resources: WindowResources | undefined;
      const windowSampler = sampler;
      const res = await ctx.driver
        .run({
          baseUrl,
          requests,
          connections,
          warmupSec: load.warmup,
          durationSec: load.duration,
          rate: load.rate,
          timeoutSec: load.timeout,
          expectStatus,
          pin: pinPrefix(ctx.pinning, ctx.pinning.loaderCpus),
          signal: trialAbort.signal,
          onMeasureStart: (pid) => windowSampler.windowStart(pid),
          onMeasureEnd: () => {
            resources = windowSampler.windowEnd();
          },
        })
        .catch((err: Error) => {
          if (crashed) throw new TrialFailure('crash', crashed);
          if (ctx.signal.aborted) throw new TrialFailure('interrupted', 'interrupted');
          throw new TrialFailure('load', err.message);
        });
      if (crashed) throw new TrialFailure('crash', crashed);
      if (res.requests === 0) {
        throw new TrialFailure('load', `no response in the measured window at ${connections} connections (${res.errors} errors, ${res.timeouts} timeouts): is the server reachable at ${baseUrl}?`);
      }
      const r = resources ?? emptyResources();
      const rps = res.durationSec > 0 ? res.requests / res.durationSec : 0;
      histograms.push(res.histogram);
      steps.push({
        connections,
        durationSec: res.durationSec,
        rps,
        requests: res.requests,
        statusCounts: res.statusCounts,
        errors: res.errors,
        timeouts: res.timeouts,
        non2xx: res.non2xx,
        unexpected: res.unexpected,
        latency: latencyOf(res.histogram),
        histogram: encodeHistogram(res.histogram),
        resources: r,
        clientBound: r.loaderCoreBusy > CLIENT_BOUND_BUSY,
        rpsPerCpuSecond: perCpu(rps, res.durationSec, r.serverCpuSeconds),
      });
    }
    // A single-step trial's figures are its step's: reuse them instead of merging and encoding again.
    const only = steps.length === 1 ? steps[0]! : undefined;
    const merged = only ? undefined : mergeHistograms(histograms);
    const sum = (f: (s: StepResult) => number) => steps.reduce((a, s) => a + f(s), 0);
    const durationSec = sum((s) => s.durationSec);
    const requestsTotal = sum((s) => s.requests);
    const statusCounts: Record<string, number> = {};
    for (const s of steps) for (const [k, v] of Object.entries(s.statusCounts)) statusCounts[k] = (statusCounts[k] ?? 0) + v;
    const cpu = sum((s) => s.resources.serverCpuSeconds);
    const rps = durationSec > 0 ? requestsTotal / durationSec : 0;
    stopping = true;
    ctx.emit({ type: 'trial-phase', index, phase: 'stopping' });
    const trial: OkTrial = {
      ...base,
      wallSec: 0,
      status: 'ok',
      durationSec,
      rps,
      requests: requestsTotal,
      statusCounts,
      errors: sum((s) => s.errors),
      timeouts: sum((s) => s.timeouts),
      non2xx: sum((s) => s.non2xx),
      unexpected: sum((s) => s.unexpected),
      latency: only ? only.latency : latencyOf(merged!),
      histogram: only ? only.histogram : encodeHistogram(merged!),
      resources: {
        serverCpuSeconds: cpu,
        serverPeakRssBytes: Math.max(...steps.map((s) => s.resources.serverPeakRssBytes)),
        serverProcesses: Math.max(...steps.map((s) => s.resources.serverProcesses)),
        loaderCpuSeconds: sum((s) => s.resources.loaderCpuSeconds),
        loaderCoreBusy: durationSec > 0 ? sum((s) => s.resources.loaderCoreBusy * s.durationSec) / durationSec : 0,
        cpuSteal: durationSec > 0 ? sum((s) => (s.resources.cpuSteal ?? 0) * s.durationSec) / durationSec : 0,
        samples: sum((s) => s.resources.samples),
      },
      clientBound: steps.some((s) => s.clientBound),
      rpsPerCpuSecond: perCpu(rps, durationSec, cpu),
      steps,
      ...(server ? { startupMs: server.readyMs } : {}),
    };
    return trial;
  } catch (err) {
    stopping = true;
    const f =
      err instanceof TrialFailure
        ? err
        : err instanceof ProcessStartError
          ? new TrialFailure(err.phase, err.message, err.tail, err.exit)
          : new TrialFailure(ctx.signal.aborted ? 'interrupted' : 'load', (err as Error).message ?? String(err));
    const exit = server?.exitInfo() ?? f.exit;
    const tail = f.tail ?? server?.tail();
    return {
      ...base,
      wallSec: 0,
      status: 'failed',
      failure: {
        phase: ctx.signal.aborted && f.phase !== 'crash' ? 'interrupted' : f.phase,
        message: f.message,
        ...(exit ? { exitCode: exit.code, signal: exit.signal } : {}),
        ...(tail ? { stderrTail: lastLines(tail, 30) } : {}),
      },
    };
  } finally {
    stopping = true;
    sampler?.stop();
    ctx.signal.removeEventListener('abort', onAbort);
    await stopAll(server, services);
  }
}

function lastLines(text: string, n: number): string {
  return text.trimEnd().split('\n').slice(-n).join('\n');
}

/** Cost figures of a process target: startup median over cold starts, idle memory of the tree, artifact. */
async function measureCosts(target: ProcessTarget, scenario: Scenario | undefined, ctx: RunContext, startups: number): Promise<Costs> {
  const samples: number[] = [];
  let idleRss = 0;
  let idlePss: number | null = null;
  let processCount = 0;
  for (let i = 0; i < startups; i++) {
    ctx.emit({ type: 'costs', target: target.name, message: `cold start ${i + 1}/${startups}` });
    const { server, services } = await startTarget(target, ctx, { healthPollMs: 2, forceHealthz: true });
    try {
      samples.push(server.readyMs);
      if (i === startups - 1) {
        // A short warm-up: the scenario's request (or /healthz) 200 times, then let it settle.
        const requests = scenario ? await preparedRequests(scenario, server.url) : [{ method: 'GET' as const, path: '/healthz', headers: {} }];
        for (let k = 0; k < 200; k++) await send(server.url, requests[k % requests.length]!).catch(() => undefined);
        await sleep(500);
        const tree = processTree(server.pid, readAllStats());
        idleRss = tree.reduce((a, p) => a + p.rssBytes, 0);
        idlePss = pssBytes(tree.map((p) => p.pid));
        processCount = tree.length;
      }
    } finally {
      await stopAll(server, services);
    }
  }
  const sorted = [...samples].sort((a, b) => a - b);
  const median = sorted.length % 2 ? sorted[(sorted.length - 1) / 2]! : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2;
  let artifact: Costs['artifact'] = null;
  if (target.artifact) {
    try {
      artifact = await target.artifact();
    } catch (err) {
      ctx.emit({ type: 'log', level: 'warn', message: `${target.name}: artifact size unavailable: ${(err as Error).message}` });
    }
  }
  return {
    startupMs: { median, samples, method: `spawn → first 200 on /healthz (polled every 2 ms), median of ${startups} cold starts, server pinned, ${target.unsetEnv.join(', ') || 'nothing'} unset` },
    idleRssBytes: idleRss,
    idlePssBytes: idlePss,
    processCount,
    peakRssBytes: null,
    artifact,
  };
}

function summarize(scenario: Scenario, target: string, trials: Trial[]): PairSummary {
  const ok = trials.filter((t): t is OkTrial => t.status === 'ok');
  const rps = sampleStats(ok.map((t) => t.rps));
  const p99 = sampleStats(ok.map((t) => t.latency.p99));
  const merged = mergeHistograms(ok.map((t) => decodeHistogram(t.histogram)));
  const latency = latencyOf(merged);
  const connections = connectionSteps(scenario.load);
  const steps = connections.map((conn, i) => {
    const st = ok.map((t) => t.steps[i]).filter((s): s is StepResult => s !== undefined);
    return {
      connections: conn,
      rps: sampleStats(st.map((s) => s.rps)),
      p99: sampleStats(st.map((s) => s.latency.p99)),
      // One step: its merged histogram is the pair's, already computed.
      latency: connections.length === 1 ? latency : latencyOf(mergeHistograms(st.map((s) => decodeHistogram(s.histogram)))),
      clientBoundTrials: st.filter((s) => s.clientBound).length,
    };
  });
  const total = (f: (t: OkTrial) => number) => ok.reduce((a, t) => a + f(t), 0);
  return {
    scenario: scenario.name,
    target,
    trials: trials.length,
    okTrials: ok.length,
    failedTrials: trials.length - ok.length,
    rps,
    p99,
    latency,
    histogram: encodeHistogram(merged),
    verdict: pairVerdict(rps.cov, p99.cov),
    clientBoundTrials: ok.filter((t) => t.clientBound).length,
    errors: total((t) => t.errors),
    timeouts: total((t) => t.timeouts),
    non2xx: total((t) => t.non2xx),
    unexpected: total((t) => t.unexpected),
    requests: total((t) => t.requests),
    serverCpuSeconds: sampleStats(ok.map((t) => t.resources.serverCpuSeconds)),
    rpsPerCpuSecond: sampleStats(ok.map((t) => t.rpsPerCpuSecond).filter((v): v is number => v !== null)),
    peakRssBytes: Math.max(0, ...ok.map((t) => t.resources.serverPeakRssBytes)),
    steps,
  };
}

/** Validate every definition up front: nothing starts when one is invalid. */
export function validateSuite(input: RunSuiteOptions) {
  const opts = parseOrThrow(suiteOptionsSchema, input, '');
  const errors: string[] = [];
  const scenarios: Scenario[] = [];
  const targets: Target[] = [];
  opts.scenarios.forEach((s, i) => {
    try {
      scenarios.push(parseScenario(s, `scenarios[${i}]`));
    } catch (err) {
      errors.push(...((err as BenchsuiteConfigError).issues ?? [(err as Error).message]));
    }
  });
  opts.targets.forEach((t, i) => {
    try {
      targets.push(parseTarget(t, `targets[${i}]`));
    } catch (err) {
      errors.push(...((err as BenchsuiteConfigError).issues ?? [(err as Error).message]));
    }
  });
  const dup = (names: string[], what: string) => {
    const seen = new Set<string>();
    names.forEach((n, i) => {
      if (seen.has(n)) errors.push(`${what}[${i}].name: duplicate name "${n}"`);
      seen.add(n);
    });
  };
  dup(scenarios.map((s) => s.name), 'scenarios');
  dup(targets.map((t) => t.name), 'targets');
  if (errors.length) throw new BenchsuiteConfigError(errors.join('\n'), errors);
  const o = opts.overrides;
  for (const s of scenarios) {
    if (o.duration !== undefined) s.load.duration = o.duration;
    if (o.warmup !== undefined) s.load.warmup = o.warmup;
    if (o.connections !== undefined) s.load.connections = o.connections;
  }
  return { opts, scenarios, targets };
}

/** Run a target's setup hook (build, venv…). Unavailable targets resolve with a reason instead of throwing. */
export async function setupTarget(target: Target, log: (m: string) => void, signal: AbortSignal = new AbortController().signal): Promise<{ status: 'ok'; command?: string[]; version?: string } | { status: 'skipped' | 'failed'; reason: string }> {
  if (target.kind !== 'process' || !target.setup) return { status: 'ok' };
  try {
    const r = (await target.setup({ log, signal })) ?? {};
    return { status: 'ok', ...r };
  } catch (err) {
    if (err instanceof TargetUnavailableError) return { status: 'skipped', reason: err.message };
    return { status: 'failed', reason: `setup failed: ${(err as Error).message}` };
  }
}

/**
 * Run scenarios × targets × trials and return one validated result document.
 * Each trial gets a fresh server process pinned apart from the load generator; trials of all
 * pairs run interleaved in a seeded random order; warm-up traffic is never recorded. Never prints:
 * progress goes to `onEvent`. Invalid definitions throw `BenchsuiteConfigError` before anything starts.
 *
 * @example
 * const result = await runSuite({ scenarios: [baseline], targets: [myServer], trials: 3 });
 */
export async function runSuite(input: RunSuiteOptions): Promise<BenchResult> {
  const { opts, scenarios, targets } = validateSuite(input);
  const emit = (e: SuiteEvent) => opts.onEvent?.(e);
  const signal = opts.signal ?? new AbortController().signal;
  const startedAt = new Date();
  const wall0 = performance.now();
  const seed = opts.seed ?? Math.floor(Math.random() * 2 ** 31);
  const needsRate = scenarios.some((s) => s.load.rate !== undefined && !s.verifyOnly);
  const driver = await resolveDriver(opts.driver, needsRate).catch((err: Error) => {
    throw new BenchsuiteConfigError(`driver: ${err.message}`);
  });
  const pinning = decidePinning(opts.pinning);
  const unpin = pinSelf(pinning);
  const ctx: RunContext = { driver, pinning, signal, emit, commands: new Map() };
  if (!pinning.enabled) emit({ type: 'log', level: 'warn', message: `not pinned: ${pinning.reason}` });

  const trialsFile = opts.outDir ? join(opts.outDir, 'trials.jsonl') : undefined;
  if (opts.outDir) mkdirSync(opts.outDir, { recursive: true });

  try {
    // 1. Set up targets (build, venv); unavailable ones are reported, never silently dropped.
    const infos = new Map<string, TargetInfo>();
    for (const t of targets) {
      const info: TargetInfo = {
        name: t.name,
        kind: t.kind,
        status: 'ok',
        metadata: t.metadata,
        ...(t.version ? { version: t.version } : {}),
        ...(t.language ? { language: t.language } : {}),
        ...(t.framework ? { framework: t.framework } : {}),
        ...(t.kind === 'process' ? { command: t.command } : { url: t.url }),
      };
      if (t.kind === 'process' && t.setup && !signal.aborted) {
        emit({ type: 'setup', target: t.name, message: 'setting up' });
        const r = await setupTarget(t, (m) => emit({ type: 'setup', target: t.name, message: m }), signal);
        if (r.status === 'ok') {
          if (r.command) {
            ctx.commands.set(t.name, r.command);
            info.command = r.command;
          }
          if (r.version) info.version = r.version;
        } else {
          info.status = r.status;
          info.reason = r.reason;
          emit({ type: 'target-skipped', target: t.name, reason: r.reason });
        }
      }
      infos.set(t.name, info);
    }
    const usable = targets.filter((t) => infos.get(t.name)!.status === 'ok');

    // 2. Verify every (scenario, target) pair before any load.
    const verify: VerifyOutcome[] = [];
    if (opts.verify) {
      for (const t of usable) {
        if (signal.aborted) break;
        const supported = scenarios.filter((s) => targetSupports(t, s));
        if (!supported.length) continue;
        // One server per target for all its scenarios: each sends a request or two, far below any
        // stateful limit (the rate-limit window allows 50), and trials get fresh servers anyway.
        let started: { server: RunningProcess; services: RunningProcess[] } | undefined;
        let startError: string | undefined;
        let startTail: string | undefined;
        try {
          if (t.kind === 'process') started = await startTarget(t, ctx);
        } catch (err) {
          startError = `could not verify: ${(err as Error).message}`;
          startTail = err instanceof ProcessStartError || err instanceof TrialFailure ? err.tail : undefined;
        }
        try {
          for (const s of supported) {
            let outcome: VerifyOutcome;
            if (startError) outcome = { scenario: s.name, target: t.name, ok: false, reason: startError, ...(startTail ? { diff: lastLines(startTail, 20) } : {}) };
            else {
              const url = started ? started.server.url : (t as Extract<Target, { kind: 'url' }>).url.replace(/\/$/, '');
              try {
                outcome = await verifyScenario(url, s, await preparedRequests(s, url), t.name);
              } catch (err) {
                outcome = { scenario: s.name, target: t.name, ok: false, reason: `could not verify: ${(err as Error).message}` };
              }
            }
            verify.push(outcome);
            emit({ type: 'verify', outcome });
          }
        } finally {
          if (started) await stopAll(started.server, started.services);
        }
      }
    }
    const verified = (s: Scenario, t: Target) => !opts.verify || verify.some((v) => v.scenario === s.name && v.target === t.name && v.ok);

    // 3. Cost figures (startup, idle memory, artifact) per process target.
    if (opts.costs && !signal.aborted) {
      const startups = typeof opts.costs === 'object' ? opts.costs.startups : 5;
      for (const t of usable) {
        if (t.kind !== 'process' || signal.aborted) continue;
        try {
          const scenario = scenarios.find((s) => targetSupports(t, s) && !s.verifyOnly && verified(s, t));
          infos.get(t.name)!.costs = await measureCosts(t, scenario, ctx, startups);
        } catch (err) {
          emit({ type: 'log', level: 'warn', message: `${t.name}: cost figures failed: ${(err as Error).message}` });
        }
      }
    }

    // 4. Plan: every supported, verified pair × trials, shuffled with the seed.
    const pairs: Array<[Scenario, Target]> = [];
    for (const s of scenarios) for (const t of usable) if (!s.verifyOnly && targetSupports(t, s) && verified(s, t)) pairs.push([s, t]);
    const unnumbered = seededShuffle(
      pairs.flatMap(([s, t]) => Array.from({ length: opts.trials }, () => ({ scenario: s, target: t }))),
      seed,
    );
    const counters = new Map<string, number>();
    const plan: PlannedTrial[] = unnumbered.map((p, order) => {
      const key = `${p.scenario.name}\0${p.target.name}`;
      const trial = (counters.get(key) ?? 0) + 1;
      counters.set(key, trial);
      return { ...p, trial, order };
    });

    // 5. Run.
    const trials: Trial[] = [];
    const windowSec = (s: Scenario) => connectionSteps(s.load).length * (s.load.warmup + s.load.duration);
    let overheadSum = 0;
    let loadSec = 0;
    let measuredSec = 0;
    for (const [i, p] of plan.entries()) {
      if (signal.aborted) break;
      const remaining = plan.slice(i).reduce((a, q) => a + windowSec(q.scenario), 0);
      const etaSec = remaining + (i ? (overheadSum / i) * (plan.length - i) : 0);
      emit({ type: 'trial-start', index: i, total: plan.length, scenario: p.scenario.name, target: p.target.name, trial: p.trial, etaSec });
      const t0 = performance.now();
      const trial = await runTrial(p, ctx, i);
      trial.wallSec = (performance.now() - t0) / 1000;
      if (trial.status === 'failed' && trial.failure.phase === 'interrupted') break;
      overheadSum += Math.max(0, trial.wallSec - windowSec(p.scenario));
      if (trial.status === 'ok') {
        loadSec += trial.steps.length * p.scenario.load.warmup + trial.durationSec;
        measuredSec += trial.durationSec;
      }
      trials.push(trial);
      if (trialsFile) appendFileSync(trialsFile, JSON.stringify(trial) + '\n');
      emit({ type: 'trial-end', index: i, total: plan.length, trial });
    }

    // 6. Summaries, rankings, verdicts.
    const summaries: PairSummary[] = pairs
      .map(([s, t]) => summarize(s, t.name, trials.filter((x) => x.scenario === s.name && x.target === t.name)))
      .filter((s) => s.trials > 0);
    const rankings: Ranking[] = scenarios
      .filter((s) => !s.verifyOnly)
      .map((s) => ({
        scenario: s.name,
        places: rankWithTies(summaries.filter((x) => x.scenario === s.name && x.okTrials > 0).map((x) => ({ name: x.target, values: x.rps.values }))),
        method: rankingMethod(),
      }))
      .filter((r) => r.places.length > 0);
    for (const info of infos.values()) {
      if (!info.costs) continue;
      const peaks = trials.filter((t): t is OkTrial => t.status === 'ok' && t.target === info.name).map((t) => t.resources.serverPeakRssBytes);
      info.costs.peakRssBytes = peaks.length ? Math.max(...peaks) : null;
    }
    const sv = suiteVerdict(summaries.map((s) => s.verdict));
    const wallSec = (performance.now() - wall0) / 1000;
    const firstScenario = scenarios.find((s) => !s.verifyOnly) ?? scenarios[0]!;
    const result: BenchResult = {
      schemaVersion: RESULT_SCHEMA_VERSION,
      suite: opts.suite,
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      interrupted: signal.aborted,
      seed,
      trialsPerPair: opts.trials,
      environment: captureEnvironment({
        driver: {
          name: driver.name,
          version: await driver.version(),
          flags: driver.flags({ connections: connectionSteps(firstScenario.load)[0]!, durationSec: firstScenario.load.duration, warmupSec: firstScenario.load.warmup, timeoutSec: firstScenario.load.timeout, rate: firstScenario.load.rate }),
          ...(driver.note ? { ceilingNote: driver.note } : {}),
        },
        pinning: { enabled: pinning.enabled, tool: pinning.tool, serverCpus: pinning.serverCpus, loaderCpus: pinning.loaderCpus, ...(pinning.reason ? { reason: pinning.reason } : {}) },
        serverEnv: { unset: [...new Set(targets.flatMap((t) => (t.kind === 'process' ? t.unsetEnv : [])))], set: { PORT: '0 (any free port) unless a target sets it' } },
      }),
      scenarios: scenarios.map((s) => ({
        name: s.name,
        ...(s.description ? { description: s.description } : {}),
        ...(s.group ? { group: s.group } : {}),
        requests: scenarioRequests(s),
        expect: { status: Array.isArray(s.expect.status) ? s.expect.status : [s.expect.status] },
        load: { connections: connectionSteps(s.load), warmupSec: s.load.warmup, durationSec: s.load.duration, ...(s.load.rate ? { rate: s.load.rate } : {}), timeoutSec: s.load.timeout },
      })),
      targets: [...infos.values()],
      verify,
      trials,
      summaries,
      rankings,
      runner: { peakRssBytes: process.resourceUsage().maxRSS * 1024, wallSec, loadSec, measuredSec },
      verdict: { overall: sv.overall, counts: sv.counts, overhead: loadSec > 0 ? wallSec / loadSec : null },
    };
    const checked = resultSchema.safeParse(result);
    if (!checked.success) throw new Error(`internal error: result does not match its schema: ${checked.error.issues.slice(0, 3).map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    return checked.data;
  } finally {
    unpin();
  }
}
