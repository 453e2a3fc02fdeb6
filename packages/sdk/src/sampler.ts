import { DEFAULTS } from './defaults.js';
import { workerCount } from './analysis/per-process.js';
import type { DesignThresholds } from './design-thresholds.js';
import { cpuTimesByCpu, processTree, readAllStats, readStat, reapedChildTicks, ticksPerSecond, type CpuJiffies } from './proc.js';

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
  /** Share of the server's and loader's cores' time the hypervisor took (steal). */
  cpuSteal: number;
  serverCoreShare: number;
  serviceCpuSeconds: number;
  serviceBusy: number;
  samples: number;
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
 * `DEFAULTS`): backend-bound when a helper service kept a core busy, on its own or as the larger
 * user of a saturated loader core it shares with the load generator; server not saturated when
 * the server's cores were far from busy while the loader had room.
 */
export function bottlenecks(
  r: WindowResources,
  o: { sampledServer: boolean; clientBound: boolean },
  t: Pick<DesignThresholds, 'backendBoundBusy' | 'serverSaturatedShare' | 'loaderBound'> = DEFAULTS,
): { backendBound: boolean; serverNotSaturated: boolean; loaderBound: boolean } {
  const serviceLeads = r.serviceCpuSeconds > r.loaderCpuSeconds;
  const backendBound = r.serviceBusy > t.backendBoundBusy || (serviceLeads && r.loaderBusiestCore > t.backendBoundBusy);
  const loaderBusy = Math.max(r.loaderBusiestCore, r.loaderThreadBusy);
  return {
    backendBound,
    serverNotSaturated: o.sampledServer && !o.clientBound && r.serverCoreShare < t.serverSaturatedShare,
    // Judged by the server: cores left idle while the loader's core was busy mean the server waited for requests.
    loaderBound: o.sampledServer && !backendBound && !serviceLeads && r.serverCoreShare < t.loaderBound.serverShare && loaderBusy > t.loaderBound.loaderBusy,
  };
}

interface Snapshot {
  at: number;
  serverTicks: Map<number, number>;
  /** Per helper service: its tree's ticks by pid. */
  serviceTicks: Array<Map<number, number>>;
  loaderTicks: number | undefined;
  /** The runner's reaped-children CPU (cutime + cstime): where a loader's CPU goes once it exited. */
  reapedTicks: number;
  cores: Map<number, CpuJiffies>;
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
    const ticksOf = (root: number) => new Map(processTree(root, all).map((p) => [p.pid, p.cpuTicks] as const));
    return {
      at: performance.now(),
      serverTicks: this.serverPid !== undefined ? ticksOf(this.serverPid) : new Map(),
      serviceTicks: this.servicePids.map(ticksOf),
      loaderTicks: readStat(this.loaderPid)?.cpuTicks,
      reapedTicks: reapedChildTicks(),
      cores: cpuTimesByCpu([...this.serverCpus, ...this.loaderCpus]),
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
    const delta = (a: Map<number, number> | undefined, b: Map<number, number> | undefined) => {
      let sum = 0;
      for (const [pid, t] of b ?? []) sum += t - (a?.get(pid) ?? 0);
      return Math.max(0, sum);
    };
    const serverTicks = delta(start.serverTicks, end.serverTicks);
    const perProcess = [...end.serverTicks].map(([pid, t]) => Math.max(0, t - (start.serverTicks.get(pid) ?? 0)));
    const serviceTicks = end.serviceTicks.map((m, i) => delta(start.serviceTicks[i], m));
    const hz = ticksPerSecond();
    const wallSec = (end.at - start.at) / 1000;
    // A loader that already exited (wrk stops at the window's end) was reaped by us: its whole CPU
    // moved into our cutime/cstime, so subtract what it had used before the window.
    const loaderTicks = end.loaderTicks !== undefined ? end.loaderTicks - (start.loaderTicks ?? 0) : end.reapedTicks - start.reapedTicks - (start.loaderTicks ?? 0);
    const loaderCpuSeconds = Math.max(0, loaderTicks) / hz;
    const loaderCores = this.loaderCpus.map((c) => diff(start.cores.get(c), end.cores.get(c)));
    const busy = (d: CpuJiffies) => (d.total > 0 ? d.busy / d.total : 0);
    const sumAll = [...end.cores.keys()]
      .map((c) => diff(start.cores.get(c), end.cores.get(c)))
      .reduce((a, d) => ({ busy: a.busy + d.busy, steal: a.steal + d.steal, total: a.total + d.total }), { busy: 0, steal: 0, total: 0 });
    const loaderSum = loaderCores.reduce((a, d) => ({ busy: a.busy + d.busy, steal: a.steal + d.steal, total: a.total + d.total }), { busy: 0, steal: 0, total: 0 });
    const threads = Math.max(1, Math.min(this.loaderThreads, this.loaderCpus.length || this.loaderThreads));
    const threadBusy = wallSec > 0 ? loaderCpuSeconds / wallSec / threads : 0;
    const serverCpuSeconds = serverTicks / hz;
    return {
      serverCpuSeconds,
      serverPeakRssBytes: this.peak,
      serverProcesses: this.procs,
      serverWorkers: workerCount(perProcess),
      loaderCpuSeconds,
      // Without pinned loader cores, fall back to the loader process's share of one core.
      loaderCoreBusy: loaderCores.length ? busy(loaderSum) : threadBusy,
      loaderBusiestCore: loaderCores.length ? Math.max(...loaderCores.map(busy)) : threadBusy,
      loaderThreadBusy: threadBusy,
      cpuSteal: sumAll.total > 0 ? sumAll.steal / sumAll.total : 0,
      serverCoreShare: wallSec > 0 ? serverCpuSeconds / wallSec / Math.max(1, this.serverCpus.length) : 0,
      serviceCpuSeconds: serviceTicks.reduce((a, t) => a + t, 0) / hz,
      serviceBusy: wallSec > 0 && serviceTicks.length ? Math.max(...serviceTicks) / hz / wallSec : 0,
      samples: this.samples,
    };
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
