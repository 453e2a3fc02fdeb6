import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { BenchResult } from '@benchsuite/sdk';
import { scratch } from '@benchsuite/testkit';
import { checkRun, HistoryStore, recordOf, sameMachine, withHistory } from '../src/index.js';
import { commitOf, syntheticResults } from './_synthetic.js';

/*
 * A machine whose kernel (and once Node) is updated under the gate: by default the runs before an
 * update are another machine's, and the check says what changed; `sameMachine: ['cpu']` judges
 * across the update. The fixture's machine: AMD EPYC 7763, 2 cores, kernel 6.1.0-31-amd64, Node v20.20.2.
 */
const OLD_KERNEL = '6.1.0-18-amd64';
const NEW_KERNEL = '6.1.0-21-amd64';
const on = (r: BenchResult, env: Partial<BenchResult['environment']>) => ({ ...r, environment: { ...r.environment, ...env } });

let dir: string;
beforeAll(() => {
  dir = scratch('benchsuite-same-machine');
});

async function historyOf(name: string, results: BenchResult[]): Promise<string> {
  const file = join(dir, name);
  await withHistory(file, (store) => {
    for (const r of results) store.add(recordOf(r));
  });
  return file;
}

async function check(file: string, r: BenchResult, o: Parameters<typeof checkRun>[2] = {}) {
  const store = await HistoryStore.open(file);
  try {
    return checkRun(store, recordOf(r), o);
  } finally {
    store.close();
  }
}

describe('the same machine', () => {
  it('is the same hardware and, by default, the same kernel, Node and Python', () => {
    const m = { cpuModel: 'AMD EPYC 7763', cores: 2, arch: 'x64', kernel: OLD_KERNEL, node: 'v20.20.2', python: '3.11.7', memoryGiB: 24 };
    const all = ['cpu', 'kernel', 'node', 'python'] as const;
    expect(sameMachine(m, { ...m, kernel: NEW_KERNEL }, all)).toBe(false);
    expect(sameMachine(m, { ...m, kernel: NEW_KERNEL }, ['cpu', 'node'])).toBe(true);
    expect(sameMachine(m, { ...m, node: 'v22.3.0' }, ['cpu', 'kernel'])).toBe(true);
    // The hardware always counts, whatever the list says.
    expect(sameMachine(m, { ...m, cores: 4 }, ['kernel'])).toBe(false);
    expect(sameMachine(m, { ...m, memoryGiB: 32 }, [])).toBe(false);
  });
});

describe('history check after a kernel update', () => {
  // 20 runs on the old kernel, 3 on the new one, then the new run (the fourth on the new kernel).
  const runs = syntheticResults({ runs: 24, seed: 31 }).map((r, i) => on(r, { kernel: i < 20 ? OLD_KERNEL : NEW_KERNEL }));
  const newest = runs[23]!;
  let file: string;
  beforeAll(async () => {
    file = await historyOf('kernel.sqlite', runs.slice(0, 23));
  });

  it('by default: the runs before the update are another machine, too few are left, and it says the kernel changed and when', async () => {
    const out = await check(file, newest);
    expect(out.sameMachine).toEqual(['cpu', 'kernel', 'node', 'python']);
    expect(out.checks.every((c) => c.verdict.status === 'too-short')).toBe(true);
    expect(out.checks[0]!.verdict).toEqual({ status: 'too-short', have: 3, need: 10 });
    expect(out.machineChanges).toEqual([{ part: 'kernel', from: OLD_KERNEL, to: NEW_KERNEL, lastBefore: expect.objectContaining({ commit: commitOf(19, 31) }), runsSince: 3, counted: true }]);
  });

  it('with --same-machine cpu: judged against all 23 earlier runs, the kernel change said and not counted', async () => {
    const out = await check(file, newest, { sameMachine: ['cpu'] });
    expect(out.sameMachine).toEqual(['cpu']);
    expect(out.checks.every((c) => c.verdict.status === 'pass')).toBe(true);
    expect(out.checks.every((c) => c.history.length === 24)).toBe(true);
    expect(out.machineChanges).toEqual([expect.objectContaining({ part: 'kernel', runsSince: 3, counted: false })]);
  });

  it('the first run after the update: changed "since the last run" (none after it); Node named too when it changed', async () => {
    const first = on(runs[20]!, { node: 'v22.3.0' });
    const small = await historyOf('first-after.sqlite', runs.slice(0, 20));
    const out = await check(small, first, { sameMachine: ['cpu', 'kernel'] });
    expect(out.machineChanges.map((c) => [c.part, c.from, c.to, c.runsSince, c.counted])).toEqual([
      ['kernel', OLD_KERNEL, NEW_KERNEL, 0, true],
      ['node', 'v20.20.2', 'v22.3.0', 0, false],
    ]);
  });

  it('says nothing about the machine when nothing changed within the window', async () => {
    const out = await check(file, newest, { window: 3 });
    expect(out.machineChanges).toEqual([]);
  });
});

describe('history check across a kernel update with a regression before it', () => {
  // 15% worse from run 12 on; the kernel changed after run 24; the new run is run 30 (the sixth on the new kernel).
  const runs = syntheticResults({ runs: 31, stepAt: 12, step: 0.15, seed: 41 }).map((r, i) => on(r, { kernel: i < 25 ? OLD_KERNEL : NEW_KERNEL }));
  // A run of other hardware with the new kernel and a far better figure: never counted as this machine.
  const other = on(syntheticResults({ runs: 1, seed: 42, startHour: 27 })[0]!, { kernel: NEW_KERNEL, cores: 8 });

  it('the update hides it by default (too short); --same-machine cpu judges across it and finds it', async () => {
    const file = await historyOf('step.sqlite', [...runs.slice(0, 30), other]);
    const byDefault = await check(file, runs[30]!);
    expect(byDefault.regressions).toEqual([]);
    expect(byDefault.need).toBe(5);
    const across = await check(file, runs[30]!, { sameMachine: ['cpu'] });
    expect(across.regressions.map((c) => c.figure).sort()).toEqual(['cpu', 'instructions', 'rps']);
    for (const c of across.regressions) {
      expect(c.history).toHaveLength(31);
      if (c.verdict.status === 'regression') expect(c.verdict.change.firstAfter.commit).toBe(commitOf(12, 41));
    }
  });
});
