import { DEFAULTS } from './defaults.js';
import { workerCount } from './analysis/per-process.js';
import type { DesignThresholds } from './design-thresholds.js';
import { cpuDeltaSec, cpuReading, cpuTimesByCpu, waitDeltaSec, processTree, readAllStats, readStat, reapedChildTicks, ticksPerSecond, type CpuJiffies, type CpuReading } from './procfs.js';

export interface WindowResources {
  serverCpuSeconds: number;
  serverPeakRssBytes: number;
  serverProcesses: number;
  /** Processes of the tree that did the work (see `workerCount`). */
  serverWorkers?: number;
  loaderCpuSeconds: number;
  loaderCoreBusy: number;
  loaderBusiestCore: number;
  loaderThreadBusy: number;
  /** Seconds the loader's threads waited runnable for a core ÷ window seconds, per thread it can use; absent without schedstat. */
  loaderThreadWait?: number;
  /** Share of the server's and loader's cores' time the hypervisor took (steal). */
  cpuSteal: number;
  /** The same for the server's cores alone and for the loader's: the busy shares here are of the time the hypervisor left (`availableSec`). */
  serverCoreSteal?: number;
  loaderCoreSteal?: number;
  serverCoreShare: number;
  /** The server tree's busiest thread: its CPU seconds ÷ window seconds (see `busiestThreadShare`); absent without schedstat. */
  serverBusiestThread?: number;
  serviceCpuSeconds: number;
  serviceBusy: number;
  samples: number;
  /** The server's CPU seconds came from schedstat's nanoseconds for every process (else clock ticks for some). */
  serverCpuExact?: boolean;
  /**
   * Share (0..1) of the server's and loader's cores' time that went to something else: their busy
   * time less the server's tree, the loader, helper services and this runner (clock ticks of 10 ms,
   * so a coarse figure). A process sharing the cores disturbs the window even without steal.
   */
  otherCpuShare?: number;
}

/**
 * Whether a window's server CPU time is exact (schedstat): when every step that sampled the server
 * was; undefined when none did. Windows record it; a version-2 result written before they did has it
 * on its steps only, and `upgradeResult` asks this of them.
 */
export function serverCpuExactOf(steps: ReadonlyArray<{ resources: { serverCpuExact?: boolean } }>): boolean | undefined {
  const said = steps.flatMap((s) => (s.resources.serverCpuExact === undefined ? [] : [s.resources.serverCpuExact]));
  return said.length ? said.every(Boolean) : undefined;
}

/**
 * The busiest thread of a process tree between two readings (pid → reading): its CPU seconds ÷ the
 * window's seconds, 0..1 (1: a thread that ran the whole window). Undefined where the kernel keeps
 * no per-thread nanoseconds (schedstat), or the tree ran no thread. A thread born in the window
 * counts from 0.
 */
export function busiestThreadShare(start: ReadonlyMap<number, CpuReading>, end: ReadonlyMap<number, CpuReading>, wallSec: number): number | undefined {
  if (wallSec <= 0) return undefined;
  let busiest: number | undefined;
  for (const [pid, b] of end) {
    const a = start.get(pid);
    if (!b.threads || (a && !a.threads)) return undefined;
    for (const [tid, ns] of b.threads) busiest = Math.max(busiest ?? 0, Math.max(0, ns - (a?.threads?.get(tid) ?? 0)));
  }
  return busiest === undefined ? undefined : busiest / 1e9 / wallSec;
}

/**
 * How full the server was, per thread it can use: the larger of its tree's share of its cores
 * (`serverCoreShare`) and its busiest thread's share (`serverBusiestThread`). The cores' mean alone
 * hides a server that runs on one thread: given two cores, node:http with its event loop saturated
 * reads 50% busy, and would always seem to have room. Results and windows without the thread figure
 * (no schedstat, older results) read the cores' share.
 */
export function serverFullShare(r: Pick<WindowResources, 'serverCoreShare' | 'serverBusiestThread'>): number {
  return Math.max(r.serverCoreShare, r.serverBusiestThread ?? 0);
}

/**
 * Is the loader the bottleneck of a window? Judged per loader process, not over all loader cores:
 * by its own CPU time per thread it can use, or by the busiest loader core, unless a helper
 * service used more of those cores than the loader did (then the backend is the bottleneck). A
 * single-threaded loader (autocannon) on one core of four leaves the cores' mean at 25% while its
 * own core is saturated; either measure catches it.
 */
export function isClientBound(
  r: Pick<WindowResources, 'loaderBusiestCore' | 'loaderThreadBusy'> & Partial<Pick<WindowResources, 'loaderCpuSeconds' | 'serviceCpuSeconds'>>,
  threshold: number = DEFAULTS.clientBoundBusy,
): boolean {
  const serviceLeads = (r.serviceCpuSeconds ?? 0) > (r.loaderCpuSeconds ?? 0);
  return r.loaderThreadBusy > threshold || (r.loaderBusiestCore > threshold && !serviceLeads);
}

/**
 * What a window's resources say about its bottleneck, beside client-bound (thresholds in
 * `DEFAULTS`): backend-bound when a helper service kept a core busy on its own, or was the larger
 * user of a saturated loader core it shares with the load generator while the server had room (a
 * server that used its whole core, `loaderBound.serverShare`, set the rate itself: a cheap backend
 * behind a saturated proxy fills the loader's core as well, and is not the limit); server not
 * saturated when the server's cores were far from busy while the loader had room.
 */
export function bottlenecks(
  r: WindowResources,
  o: { sampledServer: boolean; clientBound: boolean },
  t: Pick<DesignThresholds, 'backendBoundBusy' | 'serverSaturatedShare' | 'loaderBound'> = DEFAULTS,
): { backendBound: boolean; serverNotSaturated: boolean; loaderBound: boolean } {
  const serviceLeads = r.serviceCpuSeconds > r.loaderCpuSeconds;
  const serverFull = o.sampledServer && serverFullShare(r) >= t.loaderBound.serverShare;
  const backendBound = r.serviceBusy > t.backendBoundBusy || (serviceLeads && !serverFull && r.loaderBusiestCore > t.backendBoundBusy);
  const loaderBusy = Math.max(r.loaderBusiestCore, r.loaderThreadBusy);
  return {
    backendBound,
    serverNotSaturated: o.sampledServer && !o.clientBound && serverFullShare(r) < t.serverSaturatedShare,
    // Judged by the server: cores left idle while the loader's core was busy mean the server waited for requests.
    loaderBound: o.sampledServer && !backendBound && !serviceLeads && serverFullShare(r) < t.loaderBound.serverShare && loaderBusy > t.loaderBound.loaderBusy,
  };
}

/**
 * The seconds of `sec` that the hypervisor left a core group whose time it took `steal` (0..1) of:
 * a stolen second runs no process, so a busy share is CPU time ÷ these, not ÷ the wall time (a
 * saturated server under 30% steal used 0.7 of the wall time, all it was given). Floored at a tenth
 * of `sec`, so a window almost wholly stolen (left out for steal anyway) reads no share above 10×.
 */
export const availableSec = (sec: number, steal: number | undefined): number => sec * Math.max(0.1, 1 - (steal ?? 0));

/** A core's (or core group's) busy share of the time the hypervisor left it: /proc/stat counts steal as busy. */
export const busyShare = (d: CpuJiffies): number => {
  const left = d.total - d.steal;
  return left > 0 ? Math.max(0, d.busy - d.steal) / left : 0;
};

/** Steal's share of a core group's time. */
const stealShare = (d: CpuJiffies): number => (d.total > 0 ? d.steal / d.total : 0);

/** This process's CPU seconds (user + system). */
const runnerCpuSec = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
};

/** What else used the measured cores: busy time less what is known to have run there, as a share of their time (never below 0). */
export const otherShare = (c: { busySec: number; capacitySec: number; knownSec: number }): number => (c.capacitySec > 0 ? Math.max(0, c.busySec - c.knownSec) / c.capacitySec : 0);

interface Snapshot {
  at: number;
  server: Map<number, CpuReading>;
  /** Per helper service: its tree's readings by pid. */
  services: Array<Map<number, CpuReading>>;
  loader: CpuReading | undefined;
  /** The runner's reaped-children CPU (cutime + cstime): where a loader's CPU goes once it exited. */
  reapedTicks: number;
  cores: Map<number, CpuJiffies>;
  /** This runner's own CPU seconds so far. */
  runnerSec: number;
}

const diff = (a: CpuJiffies | undefined, b: CpuJiffies | undefined): CpuJiffies => ({
  busy: (b?.busy ?? 0) - (a?.busy ?? 0),
  steal: (b?.steal ?? 0) - (a?.steal ?? 0),
  total: (b?.total ?? 0) - (a?.total ?? 0),
});

/**
 * Measures one window: samples the server's process tree every ~100 ms while the window runs
 * (peak RSS, process count) and snapshots CPU counters at its edges. Runs in the runner, which is
 * pinned to the loader's cores, so the sampling never takes CPU from the server.
 */
export class TreeSampler {
  private timer: NodeJS.Timeout | undefined;
  private peak = 0;
  private procs = 0;
  private samples = 0;
  private start: Snapshot | undefined;
  private loaderPid = 0;

  /**
   * `serverPid` undefined: a server this runner did not start (a URL target); only the loader side is measured.
   * `loaderThreads`: how many cores the loader process can keep busy at once (1 for autocannon).
   */
  constructor(
    private readonly serverPid: number | undefined,
    private readonly loaderCpus: number[],
    private readonly serverCpus: number[] = [],
    private readonly loaderThreads = 1,
    private readonly servicePids: readonly number[] = [],
    private readonly intervalMs = 100,
  ) {}

  private sample(): void {
    if (this.serverPid === undefined) return;
    const tree = processTree(this.serverPid);
    let rss = 0;
    for (const p of tree) rss += p.rssBytes;
    this.peak = Math.max(this.peak, rss);
    this.procs = Math.max(this.procs, tree.length);
    this.samples++;
  }

  private snapshot(): Snapshot {
    const all = readAllStats();
    const readingsOf = (root: number) => new Map(processTree(root, all).map((p) => [p.pid, cpuReading(p)] as const));
    const loader = readStat(this.loaderPid);
    return {
      at: performance.now(),
      server: this.serverPid !== undefined ? readingsOf(this.serverPid) : new Map(),
      services: this.servicePids.map(readingsOf),
      loader: loader ? cpuReading(loader) : undefined,
      reapedTicks: reapedChildTicks(),
      cores: cpuTimesByCpu([...this.serverCpus, ...this.loaderCpus]),
      runnerSec: runnerCpuSec(),
    };
  }

  windowStart(loaderPid: number): void {
    this.loaderPid = loaderPid;
    this.peak = 0;
    this.procs = 0;
    this.samples = 0;
    this.start = this.snapshot();
    this.sample();
    clearInterval(this.timer);
    this.timer = setInterval(() => this.sample(), this.intervalMs);
    this.timer.unref();
  }

  windowEnd(): WindowResources {
    clearInterval(this.timer);
    this.timer = undefined;
    this.sample();
    const end = this.snapshot();
    const start = this.start ?? end;
    this.start = undefined;
    const hz = ticksPerSecond();
    // Per process of a tree, its CPU seconds in the window (exact where schedstat allowed).
    const perPid = (a: Map<number, CpuReading> | undefined, b: Map<number, CpuReading>) => [...b].map(([pid, r]) => cpuDeltaSec(a?.get(pid), r, hz));
    const sumSec = (xs: Array<{ sec: number }>) => xs.reduce((acc, x) => acc + x.sec, 0);
    const serverDeltas = perPid(start.server, end.server);
    const perProcess = serverDeltas.map((d) => d.sec);
    const serviceSec = end.services.map((m, i) => sumSec(perPid(start.services[i], m)));
    const wallSec = (end.at - start.at) / 1000;
    // A loader that already exited (wrk stops at the window's end) was reaped by us: its whole CPU
    // moved into our cutime/cstime (ticks), so subtract what it had used before the window.
    const loaderCpuSeconds = end.loader ? cpuDeltaSec(start.loader, end.loader, hz).sec : Math.max(0, end.reapedTicks - start.reapedTicks - (start.loader?.ticks ?? 0)) / hz;
    const coreDiff = (c: number) => diff(start.cores.get(c), end.cores.get(c));
    const sum = (ds: CpuJiffies[]) => ds.reduce((a, d) => ({ busy: a.busy + d.busy, steal: a.steal + d.steal, total: a.total + d.total }), { busy: 0, steal: 0, total: 0 });
    const loaderCores = this.loaderCpus.map(coreDiff);
    const sumAll = sum([...end.cores.keys()].map(coreDiff));
    const loaderSum = sum(loaderCores);
    // Each side's steal, for its busy shares (unpinned: all the cores'); stolen seconds are neither busy nor idle.
    const serverSteal = stealShare(this.serverCpus.length ? sum(this.serverCpus.map(coreDiff)) : sumAll);
    const loaderSteal = stealShare(loaderCores.length ? loaderSum : sumAll);
    const serverSec = availableSec(wallSec, serverSteal);
    const loaderSec = availableSec(wallSec, loaderSteal);
    const threads = Math.max(1, Math.min(this.loaderThreads, this.loaderCpus.length || this.loaderThreads));
    const threadBusy = wallSec > 0 ? loaderCpuSeconds / loaderSec / threads : 0;
    const loaderWaitSec = end.loader ? waitDeltaSec(start.loader, end.loader) : undefined;
    const serverCpuSeconds = sumSec(serverDeltas);
    const busiestThread = busiestThreadShare(start.server, end.server, serverSec);
    const known = serverCpuSeconds + loaderCpuSeconds + serviceSec.reduce((a, t) => a + t, 0) + (end.runnerSec - start.runnerSec);
    this.last = { busySec: Math.max(0, sumAll.busy - sumAll.steal) / hz, capacitySec: (sumAll.total - sumAll.steal) / hz, knownSec: known, wallSec };
    return {
      serverCpuSeconds,
      serverPeakRssBytes: this.peak,
      serverProcesses: this.procs,
      serverWorkers: workerCount(perProcess),
      loaderCpuSeconds,
      // Without pinned loader cores, fall back to the loader process's share of one core.
      loaderCoreBusy: loaderCores.length ? busyShare(loaderSum) : threadBusy,
      loaderBusiestCore: loaderCores.length ? Math.max(...loaderCores.map(busyShare)) : threadBusy,
      loaderThreadBusy: threadBusy,
      ...(loaderWaitSec !== undefined && wallSec > 0 ? { loaderThreadWait: loaderWaitSec / wallSec / threads } : {}),
      cpuSteal: stealShare(sumAll),
      serverCoreSteal: serverSteal,
      loaderCoreSteal: loaderSteal,
      serverCoreShare: wallSec > 0 ? serverCpuSeconds / serverSec / Math.max(1, this.serverCpus.length) : 0,
      ...(busiestThread !== undefined ? { serverBusiestThread: busiestThread } : {}),
      serviceCpuSeconds: serviceSec.reduce((a, t) => a + t, 0),
      serviceBusy: wallSec > 0 && serviceSec.length ? Math.max(...serviceSec) / loaderSec : 0,
      samples: this.samples,
      ...(serverDeltas.length ? { serverCpuExact: serverDeltas.every((d) => d.exact) } : {}),
      ...(sumAll.total > 0 ? { otherCpuShare: otherShare(this.last) } : {}),
    };
  }

  /** The measured cores' busy and total seconds of the last window, the CPU seconds of what this sampler knows ran there, and the window's wall seconds. */
  last: { busySec: number; capacitySec: number; knownSec: number; wallSec: number } | undefined;

  stop(): void {
    clearInterval(this.timer);
  }
}
