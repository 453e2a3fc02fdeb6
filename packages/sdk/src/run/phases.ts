import { setTimeout as sleep } from 'node:timers/promises';
import type { Pinning } from '../environment.js';
import type { SuiteEvent } from '../options.js';
import { processTree, pssBytes, readAllStats } from '../procfs.js';
import type { Costs, TargetInfo, VerifyOutcome } from '../result-schema.js';
import { driverLoaded, prepareRequests, type Scenario } from '../scenario.js';
import { lastLines } from '../process.js';
import { targetSupports, TargetUnavailableError, type Target } from '../target.js';
import { send, verifyScenario } from '../verify.js';
import type { RunJournal } from './journal.js';
import { doneRecord, isDone } from './state.js';
import { PhaseError, runtimeOf, type StartedTarget } from './server-process.js';

export interface PhaseContext {
  pinning: Pinning;
  signal: AbortSignal;
  emit: (e: SuiteEvent) => void;
  commands: Map<string, readonly string[]>;
  journal: RunJournal;
}

/** Run a target's setup hook (build, venv…). Unavailable targets resolve with a reason instead of throwing. */
export async function setupTarget(
  target: Target,
  log: (m: string) => void,
  signal: AbortSignal = new AbortController().signal,
): Promise<{ status: 'ok'; command?: string[]; version?: string; metadata?: Record<string, unknown> } | { status: 'skipped' | 'failed'; reason: string }> {
  if (target.kind !== 'process' || !target.setup) return { status: 'ok' };
  try {
    const r = (await target.setup({ log, signal })) ?? {};
    return { status: 'ok', ...r };
  } catch (err) {
    if (err instanceof TargetUnavailableError) return { status: 'skipped', reason: err.message };
    return { status: 'failed', reason: `setup failed: ${(err as Error).message}` };
  }
}

/** Set up every target; unavailable ones are reported with their reason, never silently dropped. */
export async function setupPhase(targets: readonly Target[], ctx: PhaseContext): Promise<Map<string, TargetInfo>> {
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
    if (t.kind === 'process' && t.setup && !ctx.signal.aborted) {
      ctx.emit({ type: 'setup', target: t.name, message: 'setting up' });
      const r = await setupTarget(t, (m) => ctx.emit({ type: 'setup', target: t.name, message: m }), ctx.signal);
      if (r.status === 'ok') {
        if (r.command) {
          ctx.commands.set(t.name, r.command);
          info.command = r.command;
        }
        if (r.version) info.version = r.version;
        if (r.metadata) info.metadata = { ...info.metadata, ...r.metadata };
      } else {
        info.status = r.status;
        info.reason = r.reason;
        ctx.emit({ type: 'target-skipped', target: t.name, reason: r.reason });
      }
    }
    infos.set(t.name, info);
  }
  return infos;
}

/**
 * Send each scenario once to each target (one fresh server per target) and check the answer, before
 * any load; the checks a resumed run journalled are kept, not sent again.
 */
export async function verifyPhase(scenarios: readonly Scenario[], targets: readonly Target[], ctx: PhaseContext): Promise<VerifyOutcome[]> {
  const out: VerifyOutcome[] = [];
  // What the interrupted run checked, as the phase begins.
  const replayed = ctx.journal.state;
  for (const t of targets) {
    if (ctx.signal.aborted) break;
    const todo = scenarios.filter((s) => targetSupports(t, s) && !isDone(replayed, { step: 'verify', scenario: s.name, target: t.name }));
    out.push(...replayed.verify.filter((v) => v.target === t.name && scenarios.some((s) => s.name === v.scenario)));
    if (!todo.length) continue;
    // One server per target for all its scenarios: each sends a request or two, far below any
    // stateful limit (the rate-limit window allows 50), and blocks get fresh servers anyway.
    let started: StartedTarget | undefined;
    let startError: string | undefined;
    let startTail: string | undefined;
    try {
      started = await runtimeOf(t).start({ pinning: ctx.pinning, signal: ctx.signal, command: ctx.commands.get(t.name) });
    } catch (err) {
      startError = `could not verify: ${(err as Error).message}`;
      startTail = err instanceof PhaseError ? err.tail : undefined;
    }
    try {
      for (const s of todo) {
        let outcome: VerifyOutcome;
        if (!started) outcome = { scenario: s.name, target: t.name, ok: false, reason: startError ?? 'could not start', ...(startTail ? { diff: lastLines(startTail, 20) } : {}) };
        else {
          try {
            outcome = await verifyScenario(started.baseUrl, s, await prepareRequests(s, started.baseUrl), t.name);
          } catch (err) {
            outcome = { scenario: s.name, target: t.name, ok: false, reason: `could not verify: ${(err as Error).message}` };
          }
        }
        out.push(outcome);
        ctx.journal.record({ record: 'verify', outcome });
        ctx.emit({ type: 'verify', outcome });
      }
    } finally {
      await started?.stop();
    }
  }
  return out;
}

/** Cost figures of a process target: startup median over cold starts, idle memory of the tree, artifact. */
async function measureCosts(target: Target, scenario: Scenario | undefined, ctx: PhaseContext, startups: number): Promise<Costs | undefined> {
  if (target.kind !== 'process') return undefined;
  const samples: number[] = [];
  let idleRss = 0;
  let idlePss: number | null = null;
  let processCount = 0;
  const runtime = runtimeOf(target);
  for (let i = 0; i < startups; i++) {
    ctx.emit({ type: 'costs', target: target.name, message: `cold start ${i + 1}/${startups}` });
    const started = await runtime.start({ pinning: ctx.pinning, signal: ctx.signal, command: ctx.commands.get(target.name), healthPollMs: 2, forceHealthz: true });
    try {
      samples.push(started.startupMs ?? 0);
      if (i === startups - 1 && started.pid !== undefined) {
        // A short warm-up: the scenario's request (or /healthz) 200 times, then let it settle.
        const requests = scenario ? await prepareRequests(scenario, started.baseUrl) : [{ method: 'GET' as const, path: '/healthz', headers: {} }];
        for (let k = 0; k < 200; k++) await send(started.baseUrl, requests[k % requests.length]!).catch(() => undefined);
        await sleep(500);
        const tree = processTree(started.pid, readAllStats());
        idleRss = tree.reduce((a, p) => a + p.rssBytes, 0);
        idlePss = pssBytes(tree.map((p) => p.pid));
        processCount = tree.length;
      }
    } finally {
      await started.stop();
    }
  }
  const sorted = [...samples].sort((a, b) => a - b);
  const median = sorted.length % 2 ? sorted[(sorted.length - 1) / 2]! : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2;
  let artifact: Costs['artifact'] = null;
  if (target.artifact) {
    try {
      artifact = await target.artifact();
    } catch (err) {
      ctx.emit({ type: 'step-failed', step: 'artifact-size', target: target.name, message: (err as Error).message });
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

/**
 * Cost figures per usable target (startup median of cold starts, idle memory, artifact size), on
 * the first scenario it supports and passed verify; figures a resumed run logged are reused.
 */
export async function costsPhase(
  usable: readonly Target[],
  scenarios: readonly Scenario[],
  verified: (s: Scenario, t: Target) => boolean,
  infos: Map<string, TargetInfo>,
  ctx: PhaseContext,
  startups: number,
): Promise<void> {
  for (const t of usable) {
    if (ctx.signal.aborted) break;
    const done = doneRecord(ctx.journal.state, { step: 'costs', target: t.name });
    if (done) {
      infos.get(t.name)!.costs = done;
      continue;
    }
    try {
      const scenario = scenarios.find((s) => targetSupports(t, s) && driverLoaded(s) && verified(s, t));
      const costs = await measureCosts(t, scenario, ctx, startups);
      if (costs) {
        infos.get(t.name)!.costs = costs;
        ctx.journal.record({ record: 'costs', target: t.name, costs });
      }
    } catch (err) {
      ctx.emit({ type: 'step-failed', step: 'costs', target: t.name, message: (err as Error).message });
    }
  }
}
