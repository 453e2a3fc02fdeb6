import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pinPrefix } from '../environment.js';
import { formatCollapsed } from '../profile/collapsed.js';
import { PROFILE_DEFAULTS } from '../profile/defaults.js';
import { resolveProfiler } from '../profile/index.js';
import type { Profiler, ProfileSession } from '../profile/profiler.js';
import { summarizeProfile } from '../profile/summarize.js';
import type { ProfileRecord } from '../result-schema.js';
import { prepareRequests, type Scenario } from '../scenario.js';
import type { Target } from '../target.js';
import { median } from '../analysis/bootstrap.js';
import { windowSpec } from './block.js';
import type { RunContext } from './context.js';
import { runtimeOf, type StartedTarget } from './server-process.js';
import { measureWindow } from './window.js';
import { warmUp } from './warmup.js';

const fileSafe = (s: string) => s.replace(/[^a-z0-9._-]+/gi, '_');

/**
 * Profile one (scenario, target): a fresh server started for its profiler (Node: a preload hook),
 * warmed up, then three windows — unprofiled, profiled, unprofiled — so the profiler's throughput
 * cost is measured on the same process. The collapsed stacks go to `<outDir>/profiles/`; the
 * summary (top functions, time by package) goes into the result. None of it reaches an estimate.
 */
export async function profileTarget(ctx: RunContext, scenario: Scenario, target: Target, outDir: string | undefined, stepSettleSec: number): Promise<ProfileRecord> {
  const base = { scenario: scenario.name, target: target.name };
  if (target.kind !== 'process') return { ...base, status: 'unavailable', profiler: 'none', reason: "a URL target: its process is not this runner's to profile" };
  const command = ctx.commands.get(target.name) ?? target.command;
  let profiler: Profiler;
  try {
    profiler = resolveProfiler(target.profile?.profiler ?? 'auto', command);
  } catch (err) {
    return { ...base, status: 'unavailable', profiler: 'none', reason: (err as Error).message };
  }
  const ok = await profiler.available();
  if (ok !== true) return { ...base, status: 'unavailable', profiler: profiler.name, reason: ok };
  let started: StartedTarget | undefined;
  let session: ProfileSession | undefined;
  const dir = outDir ? join(outDir, 'profiles') : undefined;
  const stem = `${fileSafe(scenario.name)}--${fileSafe(target.name)}`;
  try {
    started = await runtimeOf(target).start({
      pinning: ctx.pinning,
      signal: ctx.signal,
      command,
      ...(profiler.prepareCommand ? { prepare: (c: readonly string[], e: Readonly<Record<string, string>>) => profiler.prepareCommand!(c, e) } : {}),
    });
    // Profiled windows are longer than the design's: a few thousand samples make the shares
    // stable to a point or two. The unprofiled windows around it have the same length.
    const spec = windowSpec(scenario, await prepareRequests(scenario, started.baseUrl), { windowSec: Math.max(ctx.design.windowSec, PROFILE_DEFAULTS.windowSec) }, stepSettleSec);
    await warmUp(ctx, started, spec, ctx.design.warmup);
    const before = await measureWindow(ctx, started, spec);
    if (dir) mkdirSync(dir, { recursive: true });
    const raw = join(dir ?? started.env?.BENCHSUITE_PROFILE_DIR ?? '/tmp', `${stem}.raw`);
    session = await profiler.start(started.pid!, raw, { env: started.env, pin: pinPrefix(ctx.pinning, ctx.pinning.loaderCpus), maxDurationSec: PROFILE_DEFAULTS.maxDurationSec });
    const during = await measureWindow(ctx, started, spec);
    const stacks = await session.stop();
    session = undefined;
    const after = await measureWindow(ctx, started, spec);
    const unprofiled = median([before.rps, after.rps]);
    const stacksFile = dir ? `profiles/${stem}.collapsed` : undefined;
    if (dir) writeFileSync(join(dir, `${stem}.collapsed`), formatCollapsed(stacks.stacks));
    const summary = summarizeProfile(stacks, {
      profiler: profiler.name,
      ...(target.profile?.own ? { own: target.profile.own } : {}),
      ...(target.profile?.contract ? { contract: target.profile.contract } : {}),
      ...(stacksFile ? { stacksFile } : {}),
    });
    return { ...base, status: 'ok', profiler: profiler.name, rps: { profiled: during.rps, unprofiled }, costRatio: unprofiled > 0 ? during.rps / unprofiled : null, summary };
  } catch (err) {
    return { ...base, status: 'failed', profiler: profiler.name, reason: (err as Error).message };
  } finally {
    await session?.stop().catch(() => undefined);
    await started?.stop();
  }
}
