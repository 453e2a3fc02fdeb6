import { readdirSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

/**
 * Linux /proc readers for process-tree CPU and memory. Hand-written on purpose: libraries such as
 * pidusage/pidtree spawn `ps` on every call, which would cost a process per ~100 ms sample on the
 * very cores being measured; reading /proc/<pid>/stat is a few µs per process.
 */

let clkTck: number | undefined;
let pageSize: number | undefined;
function sysconf(name: string, fallback: number): number {
  try {
    return Number(execFileSync('getconf', [name], { encoding: 'utf8' }).trim()) || fallback;
  } catch {
    return fallback;
  }
}
export function ticksPerSecond(): number {
  clkTck ??= sysconf('CLK_TCK', 100);
  return clkTck;
}
function pageBytes(): number {
  pageSize ??= sysconf('PAGESIZE', 4096);
  return pageSize;
}

export interface ProcStat {
  pid: number;
  ppid: number;
  pgrp: number;
  /** utime + stime in clock ticks. */
  cpuTicks: number;
  rssBytes: number;
}

/** Parse /proc/<pid>/stat; the command name may contain spaces and parentheses, so split after the last ')'. */
function parseStat(text: string, pid: number): ProcStat | undefined {
  const close = text.lastIndexOf(')');
  if (close < 0) return undefined;
  const f = text.slice(close + 2).split(' ');
  // f[0] is field 3 (state); field n is f[n - 3].
  const ppid = Number(f[1]);
  const pgrp = Number(f[2]);
  const cpuTicks = Number(f[11]) + Number(f[12]);
  const rssBytes = Number(f[21]) * pageBytes();
  return { pid, ppid, pgrp, cpuTicks, rssBytes };
}

export function readStat(pid: number): ProcStat | undefined {
  try {
    return parseStat(readFileSync(`/proc/${pid}/stat`, 'utf8'), pid);
  } catch {
    return undefined;
  }
}

/**
 * Nanoseconds each live thread of `pid` has run, from `/proc/<pid>/task/<tid>/schedstat` (its first
 * field, the scheduler's exact run time, user and system), tid → ns, and the nanoseconds it was
 * runnable but waited for a core (its second field, the run delay); undefined where the kernel
 * does not keep them (no CONFIG_SCHED_INFO) or the process is gone. Threads that already exited are
 * not in it: `cpuDeltaSec` checks the sum against the tick count, which keeps them.
 */
function threadRunNs(pid: number): { run: Map<number, number>; wait: Map<number, number> } | undefined {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return undefined;
  }
  const run = new Map<number, number>();
  const wait = new Map<number, number>();
  for (const t of tids) {
    try {
      const [ns, delay] = readFileSync(`/proc/${pid}/task/${t}/schedstat`, 'utf8').split(' ').map(Number);
      if (!Number.isFinite(ns)) return undefined;
      run.set(Number(t), ns!);
      if (Number.isFinite(delay)) wait.set(Number(t), delay!);
    } catch (err) {
      // A thread that exited between the listing and the read is simply not counted; no file at all is no schedstat.
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' && run.size === 0 && !threadRunNsAvailable()) return undefined;
    }
  }
  return { run, wait };
}

let schedstat: boolean | undefined;
/** Whether this kernel keeps per-thread run time in nanoseconds (`/proc/self/schedstat`). */
export function threadRunNsAvailable(): boolean {
  if (schedstat === undefined) {
    try {
      schedstat = Number.isFinite(Number(readFileSync('/proc/self/schedstat', 'utf8').split(' ')[0]));
    } catch {
      schedstat = false;
    }
  }
  return schedstat;
}

/** Where process CPU time comes from on this machine: nanoseconds per thread, or clock ticks. */
export function cpuClock(): 'schedstat' | 'ticks' {
  return threadRunNsAvailable() ? 'schedstat' : 'ticks';
}

/**
 * One process's CPU counters at one instant: ticks (utime + stime, dead threads included) and, where
 * kept, ns run per live thread and ns each waited runnable for a core (`waits`).
 */
export interface CpuReading {
  ticks: number;
  threads?: Map<number, number> | undefined;
  waits?: Map<number, number> | undefined;
}

export function cpuReading(s: ProcStat): CpuReading {
  const ns = threadRunNsAvailable() ? threadRunNs(s.pid) : undefined;
  return { ticks: s.cpuTicks, threads: ns?.run, waits: ns?.wait };
}

/**
 * Seconds the live threads of a process waited runnable for a core between two readings (threads
 * born in between from 0); undefined without the run delays.
 */
export function waitDeltaSec(a: CpuReading | undefined, b: CpuReading): number | undefined {
  if (!b.waits || (a && !a.waits)) return undefined;
  let ns = 0;
  for (const [tid, v] of b.waits) ns += v - (a?.waits?.get(tid) ?? 0);
  return Math.max(0, ns) / 1e9;
}

/**
 * CPU seconds a process used between two readings (`a` undefined: it started in between). Exact
 * (ns from schedstat) when every thread of `a` still ran at `b` and the ns sum agrees with the
 * ticks within their quantization, i.e. no thread's time was lost with its exit; else the ticks.
 */
export function cpuDeltaSec(a: CpuReading | undefined, b: CpuReading, hz = ticksPerSecond()): { sec: number; exact: boolean } {
  const ticksSec = Math.max(0, b.ticks - (a?.ticks ?? 0)) / hz;
  if (!b.threads || (a && !a.threads)) return { sec: ticksSec, exact: false };
  let ns = 0;
  for (const [tid, v] of b.threads) ns += v - (a?.threads?.get(tid) ?? 0);
  const allAlive = !a || [...a.threads!.keys()].every((tid) => b.threads!.has(tid));
  const sec = Math.max(0, ns) / 1e9;
  // Two tick edges of quantization, plus the reads' own spacing (a tick).
  if (allAlive && Math.abs(sec - ticksSec) <= 3 / hz) return { sec, exact: true };
  return { sec: ticksSec, exact: false };
}

/** CPU ticks of this process's waited-for children (cutime + cstime, fields 16–17). */
export function reapedChildTicks(): number {
  try {
    const text = readFileSync('/proc/self/stat', 'utf8');
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    return Number(f[13]) + Number(f[14]);
  } catch {
    return 0;
  }
}

/** Every process on the machine (pid → stat). */
export function readAllStats(): Map<number, ProcStat> {
  const out = new Map<number, ProcStat>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return out;
  }
  for (const e of entries) {
    const c = e.charCodeAt(0);
    if (c < 48 || c > 57) continue;
    const pid = Number(e);
    const s = readStat(pid);
    if (s) out.set(pid, s);
  }
  return out;
}

/** The process `root` and all its descendants (by parent pid), plus anything left in its process group. */
export function processTree(root: number, all: Map<number, ProcStat> = readAllStats()): ProcStat[] {
  const children = new Map<number, number[]>();
  for (const s of all.values()) {
    const list = children.get(s.ppid);
    if (list) list.push(s.pid);
    else children.set(s.ppid, [s.pid]);
  }
  const seen = new Set<number>();
  const stack = [root];
  while (stack.length) {
    const pid = stack.pop()!;
    if (seen.has(pid) || !all.has(pid)) continue;
    seen.add(pid);
    for (const c of children.get(pid) ?? []) stack.push(c);
  }
  for (const s of all.values()) if (s.pgrp === root) seen.add(s.pid);
  return [...seen].map((p) => all.get(p)!).filter(Boolean);
}

/** Sum of PSS (proportional set size) over pids, bytes; null when smaps_rollup is unreadable. */
export function pssBytes(pids: readonly number[]): number | null {
  let total = 0;
  for (const pid of pids) {
    try {
      const m = /^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
      if (!m) return null;
      total += Number(m[1]) * 1024;
    } catch {
      return null;
    }
  }
  return total;
}

export interface CpuJiffies {
  busy: number;
  steal: number;
  total: number;
}

/** Busy, stolen (by the hypervisor) and total jiffies per CPU (all CPUs when none given), from /proc/stat. */
export function cpuTimesByCpu(cpus: readonly number[]): Map<number, CpuJiffies> {
  const out = new Map<number, CpuJiffies>();
  let text = '';
  try {
    text = readFileSync('/proc/stat', 'utf8');
  } catch {
    return out;
  }
  for (const line of text.split('\n')) {
    const m = /^cpu(\d+) (.*)$/.exec(line);
    if (!m || (cpus.length > 0 && !cpus.includes(Number(m[1])))) continue; // [] = every CPU
    const v = m[2]!.trim().split(/\s+/).map(Number);
    const sum = v.slice(0, 8).reduce((a, b) => a + b, 0); // user..steal; guest is inside user
    const idle = (v[3] ?? 0) + (v[4] ?? 0); // idle + iowait
    out.set(Number(m[1]), { busy: sum - idle, steal: v[7] ?? 0, total: sum });
  }
  return out;
}

/** Busy, stolen and total jiffies summed over the given CPUs (all when none given). */
export function cpuTimes(cpus: readonly number[]): CpuJiffies {
  const sum = { busy: 0, steal: 0, total: 0 };
  for (const c of cpuTimesByCpu(cpus).values()) {
    sum.busy += c.busy;
    sum.steal += c.steal;
    sum.total += c.total;
  }
  return sum;
}
