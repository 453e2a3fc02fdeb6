import { classifyFrame, type ClassifyOptions, type FrameClass } from './classify.js';
import { splitStack, type CollapsedProfile } from './collapsed.js';
import { PROFILE_DEFAULTS } from './defaults.js';
import type { ProfileGroup, ProfileSummary } from './schema.js';

export interface SummarizeProfileOptions extends ClassifyOptions {
  /** Profiler name recorded in the summary. */
  profiler: string;
  /** How many functions to keep in `top`; default `PROFILE_DEFAULTS.topFunctions`. */
  top?: number;
  /** Collapsed-stacks file, relative to `results.json`. */
  stacksFile?: string;
}

/** Shares are stored to 4 decimals (0.01%): enough for any table, and the JSON stays small. */
const round = (x: number) => Math.round(x * 1e4) / 1e4;
const byShareThenName = <T extends { self: number; name: string }>(a: T, b: T) => b.self - a.self || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * Summarize one profile: top functions by self time and time by package. Self time goes to the
 * stack's top frame (skipping synthetic `meta` frames); `total` counts a function or group once
 * per sample wherever it is on the stack. Stacks whose top frame is `(idle)` are idle: counted in
 * `idle` and `weight`, and in no share.
 *
 * @example
 * summarizeProfile(cpuProfileToCollapsed(json), { profiler: 'node', own: ['/srv/app/'] }).top[0]
 * // { name: 'burnCpuHot (/srv/app/server.js:3)', group: 'own', self: 0.93, total: 0.93 }
 */
export function summarizeProfile(profile: CollapsedProfile, options: SummarizeProfileOptions): ProfileSummary {
  const cache = new Map<string, FrameClass>();
  const classOf = (frame: string) => {
    let c = cache.get(frame);
    if (!c) {
      c = classifyFrame(frame, options);
      cache.set(frame, c);
    }
    return c;
  };
  let weight = 0;
  let idle = 0;
  const fnSelf = new Map<string, number>();
  const fnTotal = new Map<string, number>();
  const groupSelf = new Map<string, number>();
  const groupTotal = new Map<string, number>();
  // Keyed by kind and name: an npm package called `runtime` is not the runtime.
  const groupKey = (c: FrameClass) => `${c.kind}\u0000${c.group}`;
  const add = (m: Map<string, number>, k: string, w: number) => m.set(k, (m.get(k) ?? 0) + w);

  for (const [stack, w] of profile.stacks) {
    weight += w;
    const frames = splitStack(stack).filter((f) => classOf(f).kind !== 'meta');
    const leaf = frames[frames.length - 1];
    if (leaf === undefined || classOf(leaf).kind === 'idle') {
      // A stack of nothing but synthetic frames is a profiler artefact, not CPU spent anywhere.
      if (leaf !== undefined) idle += w;
      else weight -= w;
      continue;
    }
    add(fnSelf, leaf, w);
    const leafClass = classOf(leaf);
    add(groupSelf, groupKey(leafClass), w);
    const seenFns = new Set<string>();
    const seenGroups = new Set<string>();
    for (const f of frames) {
      const c = classOf(f);
      if (c.kind === 'idle' || c.kind === 'meta') continue;
      if (!seenFns.has(f)) {
        seenFns.add(f);
        add(fnTotal, f, w);
      }
      const key = groupKey(c);
      if (!seenGroups.has(key)) {
        seenGroups.add(key);
        add(groupTotal, key, w);
      }
    }
  }

  const busy = weight - idle;
  const share = (x: number) => (busy > 0 ? round(x / busy) : 0);
  const top = [...fnSelf]
    .map(([name, self]) => ({ name, self, group: classOf(name).group }))
    .sort(byShareThenName)
    .slice(0, options.top ?? PROFILE_DEFAULTS.topFunctions)
    .map((f) => ({ name: f.name, group: f.group, self: share(f.self), total: share(fnTotal.get(f.name) ?? f.self) }));
  const byPackage: ProfileGroup[] = [...groupTotal]
    .map(([key, total]) => {
      const [kind, name] = key.split('\u0000') as [ProfileGroup['kind'], string];
      return { key, kind, name, total, self: groupSelf.get(key) ?? 0 };
    })
    .sort((a, b) => byShareThenName(a, b) || (a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0))
    .map((g) => ({ name: g.name, kind: g.kind, self: share(g.self), total: share(g.total) }));
  const summary: ProfileSummary = {
    profiler: options.profiler,
    unit: profile.unit,
    samples: profile.samples,
    weight,
    idle: weight > 0 ? round(idle / weight) : 0,
    top,
    byPackage,
  };
  if (profile.durationSec !== undefined) summary.durationSec = profile.durationSec;
  if (profile.intervalUs !== undefined) summary.intervalUs = profile.intervalUs;
  if (options.stacksFile !== undefined) summary.stacksFile = options.stacksFile;
  return summary;
}
