import { cpuTimes, processTree, readAllStats, readStat, reapedChildTicks, ticksPerSecond } from './proc.js';

export interface WindowResources {
  serverCpuSeconds: number;
  serverPeakRssBytes: number;
  serverProcesses: number;
  loaderCpuSeconds: number;
  loaderCoreBusy: number;
  /** Share of the server's and loader's cores' time the hypervisor took (steal). */
  cpuSteal: number;
  samples: number;
}

interface Snapshot {
  at: number;
  serverTicks: Map<number, number>;
  loaderTicks: number | undefined;
  /** The runner's reaped-children CPU (cutime + cstime): where a loader's CPU goes once it exited. */
  reapedTicks: number;
  core: { busy: number; steal: number; total: number };
  /** Server and loader cores together, for steal. */
  all: { busy: number; steal: number; total: number };
}

/**
 * Samples the server's process tree every ~100 ms (peak RSS, process count) and snapshots CPU
 * counters at the edges of each measured window. Runs in the runner, which is pinned to the
 * loader's cores, so the sampling itself never takes CPU from the server.
 */
export class TreeSampler {
  private timer: NodeJS.Timeout | undefined;
  private peak = 0;
  private procs = 0;
  private samples = 0;
  private start: Snapshot | undefined;
  private loaderPid = 0;
  /** Peak RSS over the sampler's whole life (for cost figures). */
  lifetimePeak = 0;

  /** `serverPid` undefined: a server this runner did not start (a URL target); only the loader side is measured. */
  constructor(private readonly serverPid: number | undefined, private readonly loaderCpus: number[], private readonly intervalMs = 100, private readonly serverCpus: number[] = []) {}

  begin(): void {
    if (this.serverPid === undefined) return;
    this.timer = setInterval(() => this.sample(), this.intervalMs);
    this.timer.unref();
  }

  private sample(): void {
    if (this.serverPid === undefined) return;
    const tree = processTree(this.serverPid);
    let rss = 0;
    for (const p of tree) rss += p.rssBytes;
    this.lifetimePeak = Math.max(this.lifetimePeak, rss);
    if (this.start) {
      this.peak = Math.max(this.peak, rss);
      this.procs = Math.max(this.procs, tree.length);
      this.samples++;
    }
  }

  private snapshot(): Snapshot {
    const all = readAllStats();
    const serverTicks = new Map<number, number>();
    if (this.serverPid !== undefined) for (const p of processTree(this.serverPid, all)) serverTicks.set(p.pid, p.cpuTicks);
    return { at: performance.now(), serverTicks, loaderTicks: readStat(this.loaderPid)?.cpuTicks, reapedTicks: reapedChildTicks(), core: cpuTimes(this.loaderCpus), all: cpuTimes([...this.serverCpus, ...this.loaderCpus]) };
  }

  windowStart(loaderPid: number): void {
    this.loaderPid = loaderPid;
    this.peak = 0;
    this.procs = 0;
    this.samples = 0;
    this.start = this.snapshot();
    this.sample();
  }

  windowEnd(): WindowResources {
    this.sample();
    const end = this.snapshot();
    const start = this.start ?? end;
    this.start = undefined;
    let serverTicks = 0;
    for (const [pid, t] of end.serverTicks) serverTicks += t - (start.serverTicks.get(pid) ?? 0);
    const hz = ticksPerSecond();
    const coreTotal = end.core.total - start.core.total;
    const wallSec = (end.at - start.at) / 1000;
    // A loader that already exited (wrk stops at the window's end) was reaped by us: its whole CPU
    // moved into our cutime/cstime, so subtract what it had used before the window.
    const loaderTicks =
      end.loaderTicks !== undefined ? end.loaderTicks - (start.loaderTicks ?? 0) : end.reapedTicks - start.reapedTicks - (start.loaderTicks ?? 0);
    const loaderCpuSeconds = Math.max(0, loaderTicks) / hz;
    return {
      serverCpuSeconds: Math.max(0, serverTicks) / hz,
      serverPeakRssBytes: this.peak,
      serverProcesses: this.procs,
      loaderCpuSeconds,
      // Without pinned loader cores, fall back to the loader process's share of one core.
      loaderCoreBusy: this.loaderCpus.length && coreTotal > 0 ? (end.core.busy - start.core.busy) / coreTotal : wallSec > 0 ? loaderCpuSeconds / wallSec : 0,
      cpuSteal: end.all.total > start.all.total ? (end.all.steal - start.all.steal) / (end.all.total - start.all.total) : 0,
      samples: this.samples,
    };
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
