// The client-bound guard judges the loader per process, not over all its cores: a single-threaded
// loader saturating one core of several must be flagged although the cores' mean stays low.
// Burns a core for a second or two: run under the shared lock. CPUs come from this process's
// affinity mask (allowedCpus), never hard-coded.
import { spawn, type ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { allowedCpus, hasCommand } from '../src/environment.js';
import { cpuTimesByCpu } from '../src/procfs.js';
import { TreeSampler } from '../src/window-resources.js';
import { isClientBound, runSuite, type OkWindow } from '../src/index.js';
import { tiny } from './_helpers.js';

const cpus = allowedCpus();
const skipReason = !hasCommand('taskset') ? 'taskset not on PATH' : cpus.length < 2 ? `only ${cpus.length} usable CPU` : '';
const named = (title: string) => (skipReason ? `${title} (skipped: ${skipReason})` : title);
const children: ChildProcess[] = [];

/** A process spinning on one CPU, pinned there, for at most 20 s. */
function burner(cpu: number): ChildProcess {
  const c = spawn('taskset', ['-c', String(cpu), process.execPath, '-e', 'const end = Date.now() + 20000; while (Date.now() < end) {}'], { stdio: 'ignore' });
  children.push(c);
  return c;
}
/** An idle process: a "loader" that uses no CPU of its own. */
function idler(): ChildProcess {
  const c = spawn('sleep', ['30'], { stdio: 'ignore' });
  children.push(c);
  return c;
}

afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

/** Busy share of each CPU between two /proc/stat readings. */
function busyShares(a: ReturnType<typeof cpuTimesByCpu>, b: ReturnType<typeof cpuTimesByCpu>): Map<number, number> {
  const out = new Map<number, number>();
  for (const [cpu, end] of b) {
    const start = a.get(cpu)!;
    // Of the time the hypervisor left the core, as the sampler takes it (/proc/stat counts steal as busy).
    const steal = end.steal - start.steal;
    out.set(cpu, Math.max(0, end.busy - start.busy - steal) / Math.max(1, end.total - start.total - steal));
  }
  return out;
}

describe.skipIf(skipReason !== '')('client-bound guard on one loader core of several', () => {
  const hot = cpus.at(-1)!;

  it(named('flags the busiest loader core over 90%, which the mean over the loader cores dilutes'), async () => {
    burner(hot);
    const loader = idler();
    await sleep(300); // the burner is spinning
    // loaderThreads = every core: the loader's own CPU (none: it sleeps) cannot flag it; only the busiest core can.
    const sampler = new TreeSampler(undefined, cpus, [], cpus.length);
    const before = cpuTimesByCpu(cpus);
    sampler.windowStart(loader.pid!);
    await sleep(1000);
    const r = sampler.windowEnd();
    const shares = busyShares(before, cpuTimesByCpu(cpus));
    sampler.stop();

    expect(r.loaderBusiestCore).toBeGreaterThan(0.9);
    expect(r.loaderThreadBusy).toBeLessThan(0.05);
    expect(isClientBound(r)).toBe(true);
    // The mean is the mean of the cores (checked against our own reading of /proc/stat) …
    const mean = [...shares.values()].reduce((a, b) => a + b, 0) / shares.size;
    expect(r.loaderCoreBusy).toBeCloseTo(mean, 1);
    // The mean alone (the old guard) is diluted by the idle cores; the busiest core is not.
    expect(r.loaderBusiestCore).toBeGreaterThan(r.loaderCoreBusy);
  });

  it(named('flags a one-thread loader by its own CPU time, judged per thread it can use'), async () => {
    const loader = burner(hot);
    await sleep(300);
    const one = new TreeSampler(undefined, cpus, [], 1);
    const all = new TreeSampler(undefined, cpus, [], cpus.length);
    one.windowStart(loader.pid!);
    all.windowStart(loader.pid!);
    await sleep(1000);
    const r1 = one.windowEnd();
    const rAll = all.windowEnd();
    // The same process: a whole core of CPU time. For a one-thread loader that is saturation;
    // for a loader with a thread per core it is 1/n of what it could use.
    // Of the time the hypervisor left its cores (a stolen second stops a spinning process's clock
    // too: a 38% burst read 0.62 of the wall time before the shares were taken net of steal). The
    // loader cores' mean steal stands for its own core's, so a burst on one core of n still moves
    // it by up to (n − 1) × that: the bounds leave room for it.
    const slack = (cpus.length - 1) * (r1.loaderCoreSteal ?? 0);
    expect(r1.loaderThreadBusy).toBeGreaterThan(0.9 - slack);
    expect(r1.loaderThreadBusy).toBeLessThan(1.1 + slack);
    expect(isClientBound({ ...r1, loaderBusiestCore: 0 }, 0.9 - slack)).toBe(true);
    // 1/n of the one-thread reading of the same window, whatever the host took (a missing division reads n times it).
    expect(rAll.loaderThreadBusy).toBeCloseTo(r1.loaderThreadBusy / cpus.length, 1);
  });

  it(named('end to end: windows measured while the loader core is saturated are flagged in the result'), async () => {
    burner(hot);
    const server = cpus.find((c) => c !== hot)!;
    const r = await runSuite({
      scenarios: [{ name: 'ping', request: { path: '/ping' }, expect: { status: 200 }, load: { connections: 5 } }],
      targets: [tiny('t')],
      // No window left out for steal (`stealThreshold: 1`): a burst would add rounds or leave the target without a summary step; the flag is what is tested.
      design: { windowSec: 0.5, rounds: { min: 2, max: 2 }, blocks: { min: 1, max: 1 }, warmup: { minSec: 0, maxSec: 0 }, control: 'none', stealThreshold: 1 },
      driver: 'autocannon',
      pinning: { server: [server], loader: [hot] },
      verify: false,
    });
    const ok = r.windows.filter((w): w is OkWindow => w.status === 'ok');
    expect(ok.length).toBeGreaterThan(0);
    for (const w of ok) {
      expect(w.resources.loaderBusiestCore).toBeGreaterThan(0.9);
      expect(w.clientBound).toBe(true);
    }
    expect(r.summaries[0]!.windows.clientBound).toBe(ok.length);
    expect(r.summaries[0]!.steps[0]!.clientBoundWindows).toBe(ok.filter((w) => w.excluded === null).length);
  });
});
