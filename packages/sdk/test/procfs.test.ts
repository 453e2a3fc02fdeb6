// CPU time at nanosecond resolution (procfs.ts): schedstat's per-thread run time against a busy loop
// of known length, and the fall-back to clock ticks where a thread's time would be lost.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { cpuDeltaSec, cpuReading, readStat, threadRunNsAvailable, ticksPerSecond, waitDeltaSec } from '../src/procfs.js';

// Spins until its own CPU clock has advanced 300 ms, idles 200 ms (background threads settle),
// prints its whole CPU time (µs, getrusage over every thread), and prints it again when asked.
const spinner = `
const { writeSync } = require('node:fs');
const total = () => { const t = process.cpuUsage(); return t.user + t.system; };
process.stdin.once('data', () => {
  const a = process.cpuUsage();
  for (;;) { const d = process.cpuUsage(a); if (d.user + d.system >= 300000) break; }
  setTimeout(() => {
    writeSync(1, total() + '\\n');
    process.stdin.once('data', () => writeSync(1, total() + '\\n'));
  }, 200);
  setInterval(() => {}, 1000);
});`;

describe('process CPU time', () => {
  it.skipIf(!threadRunNsAvailable())(
    'matches a busy loop of known length to well under a clock tick (schedstat)',
    async () => {
      const child = spawn(process.execPath, ['-e', spinner], { stdio: ['pipe', 'pipe', 'inherit'] });
      try {
        await new Promise((r) => setTimeout(r, 300));
        const out = child.stdout!.setEncoding('utf8');
        const a = cpuReading(readStat(child.pid!)!);
        child.stdin!.write('go\n');
        const [first] = (await once(out, 'data')) as [string];
        const b = cpuReading(readStat(child.pid!)!);
        child.stdin!.write('again\n');
        const [second] = (await once(out, 'data')) as [string];
        // Our reading sits between two of the process's own readings of its CPU clock (µs apart):
        // exact to well under a 10-ms tick.
        const [t1, t2] = [Number(first.trim()) / 1e6, Number(second.trim()) / 1e6];
        const total = cpuDeltaSec(undefined, b);
        expect(total.exact).toBe(true);
        expect(t2 - t1).toBeLessThan(0.003);
        expect(total.sec).toBeGreaterThanOrEqual(t1 - 0.0002);
        expect(total.sec).toBeLessThanOrEqual(t2 + 0.0002);
        // Across the spin: at least its 300 ms, exact.
        const spin = cpuDeltaSec(a, b);
        expect(spin.exact).toBe(true);
        expect(spin.sec).toBeGreaterThanOrEqual(0.3);
      } finally {
        child.kill('SIGKILL');
      }
    },
    20_000,
  );

  it('falls back to ticks when a thread of the first reading is gone, or the ns disagree with the ticks', () => {
    const hz = ticksPerSecond();
    const a = {
      ticks: 100,
      threads: new Map([
        [1, 1e9],
        [2, 0.5e9],
      ]),
    };
    // Thread 2 exited: its time in the window is lost from schedstat, so the ticks decide.
    const gone = cpuDeltaSec(a, { ticks: 100 + 0.3 * hz, threads: new Map([[1, 1.1e9]]) }, hz);
    expect(gone).toEqual({ sec: 0.3, exact: false });
    // Both alive and in agreement: the nanoseconds.
    const both = cpuDeltaSec(
      a,
      {
        ticks: 100 + Math.floor(0.2345 * hz),
        threads: new Map([
          [1, 1.2e9],
          [2, 0.5345e9],
        ]),
      },
      hz,
    );
    expect(both.exact).toBe(true);
    expect(both.sec).toBeCloseTo(0.2345, 9);
    // A thread born and gone inside the window: ticks far above the ns.
    expect(
      cpuDeltaSec(
        a,
        {
          ticks: 100 + hz,
          threads: new Map([
            [1, 1.1e9],
            [2, 0.5e9],
          ]),
        },
        hz,
      ),
    ).toEqual({ sec: 1, exact: false });
    // No schedstat on either side: ticks.
    expect(cpuDeltaSec({ ticks: 5 }, { ticks: 5 + hz / 2 }, hz)).toEqual({ sec: 0.5, exact: false });
  });

  it('the time waited runnable for a core: the live threads’ run delays summed, a thread born in between from 0; unknown without them', () => {
    const a = { ticks: 0, waits: new Map([[1, 2e8]]) };
    const b = {
      ticks: 0,
      waits: new Map([
        [1, 5e8],
        [2, 1e8],
      ]),
    };
    expect(waitDeltaSec(a, b)).toBeCloseTo(0.4, 9);
    expect(waitDeltaSec(undefined, b)).toBeCloseTo(0.6, 9);
    expect(waitDeltaSec({ ticks: 0 }, b)).toBeUndefined();
    expect(waitDeltaSec(a, { ticks: 0 })).toBeUndefined();
    // Read from this process: its threads' run delays, never negative.
    if (threadRunNsAvailable()) expect(cpuReading(readStat(process.pid)!).waits?.size).toBeGreaterThan(0);
  });
});
