/**
 * Collapsed stacks (Brendan Gregg's folded format): one line per distinct stack, frames from the
 * root to the leaf joined by `;`, then a space and the stack's weight — `main;handle;burn 42`.
 * Every profiler's output is turned into this one shape, and everything downstream (summaries,
 * flame graphs, the files stored next to `results.json`) reads only this.
 */

/** Stack (root first, frames joined by `;`) → weight. */
export type CollapsedStacks = Map<string, number>;

/** One profile window in collapsed form, whatever profiler took it. */
export interface CollapsedProfile {
  stacks: CollapsedStacks;
  /** What a weight counts: samples, or microseconds of sampled time (V8 profiles, weighted by `timeDeltas`). */
  unit: 'samples' | 'us';
  /** Samples taken, idle ones included where the profiler records idle. */
  samples: number;
  /** Wall-clock length of the profiled window, when the profiler says. */
  durationSec?: number | undefined;
  /** Nominal sampling interval, µs. */
  intervalUs?: number | undefined;
}

/**
 * Make a frame name safe for the folded format: `;` separates frames and a newline separates
 * stacks, so neither may appear inside one (`;` becomes `:`, line breaks a space).
 */
export function cleanFrame(name: string): string {
  return name.replace(/;/g, ':').replace(/[\r\n]+/g, ' ');
}

/** Add `weight` to `stack` (frames root first); empty stacks and non-positive weights are ignored. */
export function addStack(stacks: CollapsedStacks, frames: readonly string[], weight: number): void {
  if (frames.length === 0 || !(weight > 0)) return;
  const key = frames.map(cleanFrame).join(';');
  stacks.set(key, (stacks.get(key) ?? 0) + weight);
}

/**
 * Parse folded text (`a;b;c 12` per line). The weight is whatever follows the last space, so
 * frames may contain spaces (`handler (/srv/app.js:3)`); lines without a numeric weight are
 * skipped, and repeated stacks are summed.
 */
export function parseCollapsed(text: string): CollapsedStacks {
  const stacks: CollapsedStacks = new Map();
  for (const raw of text.split('\n')) {
    const line = raw.trimEnd();
    const cut = line.lastIndexOf(' ');
    if (cut <= 0) continue;
    const weight = Number(line.slice(cut + 1));
    const key = line.slice(0, cut);
    if (!Number.isFinite(weight) || weight <= 0 || key.length === 0) continue;
    stacks.set(key, (stacks.get(key) ?? 0) + weight);
  }
  return stacks;
}

/** Folded text, one stack per line, sorted by stack so the same profile always gives the same bytes. */
export function formatCollapsed(stacks: CollapsedStacks): string {
  const keys = [...stacks.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return keys.map((k) => `${k} ${stacks.get(k)!}\n`).join('');
}

/** Sum of all weights. */
export function totalWeight(stacks: CollapsedStacks): number {
  let sum = 0;
  for (const w of stacks.values()) sum += w;
  return sum;
}

/** Split a folded stack into frames (root first). */
export function splitStack(stack: string): string[] {
  return stack.split(';');
}
