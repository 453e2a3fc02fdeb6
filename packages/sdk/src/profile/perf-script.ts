import { addStack, type CollapsedProfile, type CollapsedStacks } from './collapsed.js';

export interface PerfScriptOptions {
  /**
   * Put the thread's command name at the root of each stack, as `[comm]` (stackcollapse-perf
   * does this); off by default, since `-p` already names the process.
   */
  includeComm?: boolean;
}

// `comm pid[/tid] [cpu] time: period event:` — comm may contain spaces ("V8 WorkerThread").
const HEADER = /^(\S.*?)\s+(\d+)(?:\/\d+)?\s+(?:\[\d+\]\s+)?(\d+\.\d+):/;
// `<tab>   addr sym+0xoff (dso)`; sym may contain spaces and parentheses (demangled C++).
const FRAME = /^\s+([0-9a-fA-F]+)\s+(.*?)\s*$/;

/** `sym+0x1a (dso)` → `sym (dso)`: the offset would split one function into many frames. */
function frameName(rest: string): string {
  let sym = rest;
  let dso = '';
  if (rest.endsWith(')')) {
    const open = rest.lastIndexOf(' (');
    if (open >= 0) {
      sym = rest.slice(0, open);
      dso = rest.slice(open + 2, -1);
    }
  }
  sym = sym.replace(/\+0x[0-9a-fA-F]+$/, '') || '[unknown]';
  return dso ? `${sym} (${dso})` : sym;
}

/**
 * `perf script` text (from `perf record -g`) → collapsed stacks, one sample per stack block.
 * perf prints the leaf first; collapsed stacks are root first, so each block is reversed.
 */
export function perfScriptToCollapsed(text: string, options: PerfScriptOptions = {}): CollapsedProfile {
  const stacks: CollapsedStacks = new Map();
  let samples = 0;
  let first: number | undefined;
  let last: number | undefined;
  let comm: string | undefined;
  let frames: string[] | undefined;
  const flush = () => {
    if (frames) {
      // A sample perf could not unwind at all still took CPU: keep it as an unknown frame.
      const rootFirst = frames.length > 0 ? frames.reverse() : ['[unknown] ([unknown])'];
      if (options.includeComm && comm !== undefined) rootFirst.unshift(`[${comm}]`);
      addStack(stacks, rootFirst, 1);
      samples++;
    }
    frames = undefined;
  };
  for (const line of text.split('\n')) {
    if (line.trim() === '') {
      flush();
      continue;
    }
    if (line.startsWith('#')) continue;
    if (/^\s/.test(line)) {
      const m = FRAME.exec(line);
      if (m && frames) frames.push(frameName(m[2]!));
      continue;
    }
    const h = HEADER.exec(line);
    if (!h) continue;
    flush();
    comm = h[1]!;
    const t = Number(h[3]);
    first ??= t;
    last = t;
    frames = [];
  }
  flush();
  return { stacks, unit: 'samples', samples, durationSec: first !== undefined && last !== undefined && last > first ? last - first : undefined };
}
