import { DEFAULTS } from '../defaults.js';
import type { Design } from '../design-options.js';
import type { StreamResult } from '../result-schema.js';
import { prepareRequests, type Scenario } from '../scenario.js';
import type { Target } from '../target.js';
import { roundOrder } from '../run/block.js';
import type { RunContext } from '../run/context.js';
import { runtimeOf } from '../run/server-process.js';
import { isDone } from '../run/state.js';
import { streamSpecSchema, type StreamSpec } from './spec.js';
import { backpressure, cancellations, configureObserver, streamLevel, type StreamPhaseContext } from './measure.js';

type StreamBlock = StreamResult['blocks'][number];

/**
 * The scenario's streaming plan, scaled down for a short design (`--quick` windows): every
 * duration and the count of disconnects shrink by windowSec ÷ the default window, never grow.
 */
export function streamPlan(scenario: Scenario, design: Pick<Design, 'windowSec'>): StreamSpec {
  const spec = streamSpecSchema.parse(scenario.stream ?? {});
  const f = Math.min(1, design.windowSec / DEFAULTS.windowSec);
  if (f === 1) return spec;
  return {
    ...spec,
    durationSec: spec.durationSec * f,
    warmupSec: spec.warmupSec * f,
    ...(spec.cancel ? { cancel: { ...spec.cancel, count: Math.max(3, Math.round(spec.cancel.count * f)) } } : {}),
    ...(spec.backpressure ? { backpressure: { ...spec.backpressure, durationSec: Math.max(2, spec.backpressure.durationSec * f) } } : {}),
  };
}

/**
 * Seconds one target takes per block (start-up and stop included), for the budget planner. A level
 * takes its seconds, plus about one for its cold start (the first streams; up to
 * `DEFAULTS.stream.coldMaxSec` on a slow target) and one for its drain.
 */
export function streamBlockSec(spec: StreamSpec): number {
  const start = 3;
  const levels = spec.warmupSec + spec.streams.length * (spec.durationSec + 2);
  const cancel = spec.cancel ? spec.cancel.count * 0.5 : 0;
  const bp = spec.backpressure ? spec.backpressure.durationSec + 1 : 0;
  return start + levels + cancel + bp;
}

/**
 * A streaming scenario (`kind: 'stream'`): per block, one fresh process per target in a seeded
 * order, each warmed up, then every level of concurrent streams, the cancellation phase and the
 * backpressure phase, on that process alone (the others are stopped: stream load is long, and one
 * target at a time keeps the loader's core for the one measured). Blocks are the design's minimum;
 * blocks a resumed run's journal holds (`isDone`) are kept, not measured again.
 */
export async function runStreamScenario(ctx: RunContext, scenario: Scenario, members: readonly Target[]): Promise<StreamResult[]> {
  const spec = streamPlan(scenario, ctx.design);
  const logged = ctx.journal.state.streams;
  const results = new Map<string, StreamResult>(
    members.map((t) => [t.name, { scenario: scenario.name, target: t.name, blocks: [...(logged.find((r) => r.scenario === scenario.name && r.target === t.name)?.blocks ?? [])] }]),
  );
  for (let block = 1; block <= ctx.design.blocks.min; block++) {
    for (const t of roundOrder(members, ctx.seed, scenario.name, block, 0)) {
      if (ctx.signal.aborted) break;
      const result = results.get(t.name)!;
      if (isDone(ctx.journal.state, { step: 'stream', scenario: scenario.name, target: t.name, block })) continue;
      const b = await streamBlock(ctx, scenario, spec, t, block);
      if (ctx.signal.aborted && b.status === 'failed') break;
      result.blocks.push(b);
      ctx.journal.record({ record: 'stream', scenario: scenario.name, target: t.name, block: b });
    }
  }
  return [...results.values()];
}

async function streamBlock(ctx: RunContext, scenario: Scenario, spec: StreamSpec, target: Target, block: number): Promise<StreamBlock> {
  const t0 = performance.now();
  const out: StreamBlock = { block, status: 'ok', levels: [], cancel: null, backpressure: null, wallSec: 0 };
  const emit = (phase: 'start' | 'level' | 'cancel' | 'backpressure' | 'failed', extra: Record<string, unknown> = {}) =>
    ctx.emit({ type: 'stream', scenario: scenario.name, target: target.name, block, phase, ...extra });
  emit('start');
  const started = await runtimeOf(target)
    .start({ pinning: ctx.pinning, signal: ctx.signal, command: ctx.commands.get(target.name) })
    .catch((err: Error) => err);
  if (started instanceof Error) {
    emit('failed', { message: started.message });
    return { ...out, status: 'failed', failure: started.message, wallSec: (performance.now() - t0) / 1000 };
  }
  try {
    const [request] = await prepareRequests(scenario, started.baseUrl);
    const observerUrl = spec.observer ? started.serviceUrls?.[spec.observer.service] : undefined;
    if (spec.observer && !observerUrl) throw new Error(`stream.observer names service "${spec.observer.service}", which ${target.name} does not start`);
    const phase: StreamPhaseContext = {
      baseUrl: started.baseUrl,
      request: request!,
      pid: started.pid,
      cpus: ctx.pinning.enabled ? [...ctx.pinning.serverCpus, ...ctx.pinning.loaderCpus] : [],
      signal: ctx.signal,
      observerUrl,
      deltaEvent: spec.deltaEvent,
      endEvent: spec.endEvent,
    };
    if (observerUrl) await configureObserver(observerUrl, spec.observer?.configure.load);
    if (spec.warmupSec > 0) {
      await streamLevel(phase, spec.streams[0]!, spec.warmupSec, DEFAULTS.stream.drainSec);
      ctx.addLoad(spec.warmupSec);
    }
    for (const streams of spec.streams) {
      if (ctx.signal.aborted) break;
      const level = await streamLevel(phase, streams, spec.durationSec, DEFAULTS.stream.drainSec);
      ctx.addLoad(spec.durationSec);
      out.levels.push(level);
      emit('level', { level });
    }
    if (spec.cancel && observerUrl && !ctx.signal.aborted) {
      await configureObserver(observerUrl, spec.observer?.configure.cancel);
      const c0 = performance.now();
      out.cancel = await cancellations(phase, spec.cancel);
      ctx.addLoad((performance.now() - c0) / 1000);
      emit('cancel', { cancel: out.cancel });
    }
    if (spec.backpressure && observerUrl && !ctx.signal.aborted) {
      await configureObserver(observerUrl, spec.observer?.configure.backpressure);
      out.backpressure = await backpressure(phase, spec.backpressure);
      ctx.addLoad(out.backpressure.durationSec);
      emit('backpressure', { backpressure: out.backpressure });
    }
  } catch (err) {
    const message = (err as Error).message;
    out.status = 'failed';
    out.failure = message;
    emit('failed', { message });
  } finally {
    await started.stop();
  }
  out.wallSec = (performance.now() - t0) / 1000;
  return out;
}
