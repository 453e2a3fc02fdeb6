import { fileURLToPath } from 'node:url';
import { addStack, type CollapsedProfile, type CollapsedStacks } from './collapsed.js';

/** The parts of a V8 `.cpuprofile` (DevTools protocol `Profiler.Profile`) this module reads. */
export interface CpuProfile {
  nodes: CpuProfileNode[];
  /** µs, V8's monotonic clock. */
  startTime: number;
  endTime: number;
  /** Node id of each sample. */
  samples?: number[];
  /** µs between consecutive samples; the first is from `startTime`. */
  timeDeltas?: number[];
}

export interface CpuProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber?: number; scriptId?: string | number };
  hitCount?: number;
  children?: number[];
}

export interface CpuProfileToCollapsedOptions {
  /**
   * `time` (default) weighs each sample by the µs until the next one, as DevTools does, so a
   * sampler that fell behind (a busy core, CPU steal) does not under-count what ran meanwhile;
   * `samples` counts samples.
   */
  weight?: 'time' | 'samples';
}

/**
 * The frame name used everywhere: `function (path:line)`, 1-based line of the function's start.
 * File URLs become paths (so `node_modules/…` and prefixes match); `node:` URLs stay as they are;
 * frames without a URL (V8's `(program)`, `(garbage collector)`, `(idle)`, native functions) are
 * the bare name.
 */
export function v8FrameName(frame: CpuProfileNode['callFrame']): string {
  const name = frame.functionName || '(anonymous)';
  if (!frame.url) return name;
  let where = frame.url;
  if (where.startsWith('file://')) {
    try {
      where = fileURLToPath(where);
    } catch {
      // keep the URL as written
    }
  }
  return frame.lineNumber >= 0 ? `${name} (${where}:${frame.lineNumber + 1})` : `${name} (${where})`;
}

/**
 * V8 CPU profile → collapsed stacks. The synthetic `(root)` frame is dropped; `(idle)`,
 * `(program)` and `(garbage collector)` stay as frames of their own (the summary decides what
 * they mean). Profiles without `samples` (very old V8) fall back to each node's `hitCount`.
 */
export function cpuProfileToCollapsed(profile: CpuProfile, options: CpuProfileToCollapsedOptions = {}): CollapsedProfile {
  const byId = new Map<number, CpuProfileNode>();
  const parent = new Map<number, number>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const c of node.children ?? []) parent.set(c, node.id);
  }
  const names = new Map<number, string>();
  const nameOf = (node: CpuProfileNode) => {
    let n = names.get(node.id);
    if (n === undefined) {
      n = v8FrameName(node.callFrame);
      names.set(node.id, n);
    }
    return n;
  };
  /** Frames from the root to `id`, walked up iteratively (deep recursion in the profiled code must not overflow ours). */
  const pathOf = (id: number): string[] => {
    const frames: string[] = [];
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const node = byId.get(cur);
      if (!node) break;
      const isRoot = !parent.has(cur) && node.callFrame.functionName === '(root)' && !node.callFrame.url;
      if (!isRoot) frames.push(nameOf(node));
    }
    return frames.reverse();
  };

  const weights = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  const byTime = (options.weight ?? 'time') === 'time' && deltas.length === samples.length && samples.length > 0;
  if (samples.length > 0) {
    let t = profile.startTime;
    const times = deltas.map((d) => (t += d));
    for (let i = 0; i < samples.length; i++) {
      const id = samples[i]!;
      // The stack seen at sample i stands for the time until the next sample; the last one runs to
      // endTime. V8 can emit out-of-order timestamps (negative deltas): those count zero.
      const w = byTime ? Math.max(0, (i + 1 < times.length ? times[i + 1]! : profile.endTime) - times[i]!) : 1;
      weights.set(id, (weights.get(id) ?? 0) + w);
    }
  } else {
    for (const node of profile.nodes) if (node.hitCount) weights.set(node.id, node.hitCount);
  }

  const stacks: CollapsedStacks = new Map();
  for (const [id, w] of weights) addStack(stacks, pathOf(id), byTime ? Math.round(w) : w);
  const sampleCount = samples.length > 0 ? samples.length : [...weights.values()].reduce((a, b) => a + b, 0);
  const durationUs = profile.endTime - profile.startTime;
  return {
    stacks,
    unit: byTime ? 'us' : 'samples',
    samples: sampleCount,
    durationSec: durationUs > 0 ? durationUs / 1e6 : undefined,
  };
}
