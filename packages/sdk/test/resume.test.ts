// Resume: a run killed partway (SIGKILL, no chance to clean up) is continued from the windows file
// it appended, with the same seed and plan, and nothing that finished runs again.
//
// The interrupted run is a child Node process that imports the SDK from packages/sdk/dist, so this
// test depends on the SDK being built (`cd packages/sdk && npx tsc -p tsconfig.json`; turbo's `test`
// builds first). The resumed run here uses the sources: the windows file one wrote, the other reads.
// Loads the machine: run under the shared lock.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { BenchsuiteConfigError, resultSchema, runSuite, type SuiteEvent, type WindowRecord } from '../src/index.js';
import { tinyServer } from './_helpers.js';
import { scratch } from '@benchsuite/testkit';

const distIndex = fileURLToPath(new URL('../dist/index.js', import.meta.url));
const tag = `bs-resume-${process.pid}-${Date.now()}`;
const ping = { name: 'ping', request: { path: '/ping' }, expect: { status: 200, json: { ok: true } }, load: { connections: 5 } };
// The tag is an argument the tiny server ignores: it lets the test find the child's servers in /proc.
const targets = ['a', 'b'].map((name) => ({ kind: 'process' as const, name, command: [process.execPath, tinyServer, tag] }));
// No window left out for steal (`stealThreshold: 1`): a burst on a shared VM would add rounds, and the kill below would land in another block or scenario than the one planned.
const design = { windowSec: 0.2, rounds: { min: 2, max: 2 }, blocks: { min: 3, max: 3 }, warmup: { minSec: 0.2, maxSec: 0.4 }, control: 'none' as const, stealThreshold: 1 };
const SEED = 4242;
/** Kill the first run once this many windows are in its file: partway through block 2 (a block holds 2 rounds × 2 targets). */
const KILL_AFTER = 5;

const key = (w: WindowRecord) => `${w.scenario}/${w.block}/${w.round}/${w.target}`;

/**
 * Every window the log held is in the result as measured. The result adds the whole run's judgement
 * of a window, which only the run's end can give: round 1 of a pair the design-bias check flags is
 * left out (`excluded: 'unsteady'`), so that field alone may differ, and only so.
 */
function expectAsLogged(logged: readonly WindowRecord[], result: readonly WindowRecord[]): void {
  for (const w of logged) {
    const found = result.find((x) => key(x) === key(w));
    const judged = found && 'excluded' in found ? found.excluded : undefined;
    const before = 'excluded' in w ? w.excluded : undefined;
    expect(found && { ...found, ...(before === undefined ? {} : { excluded: before }) }).toEqual(w);
    if (judged !== before) expect([judged, found?.round]).toEqual(['unsteady', 1]);
  }
}

/** Window records of a run's windows file (a line cut short by the kill is skipped). */
function loggedWindows(dir: string): WindowRecord[] {
  const file = join(dir, 'windows.jsonl');
  if (!existsSync(file)) return [];
  const out: WindowRecord[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    try {
      const rec = JSON.parse(line) as { record: string; window?: WindowRecord };
      if (rec.record === 'window') out.push(rec.window!);
    } catch {
      /* empty or partial line */
    }
  }
  return out;
}

/** Pids of live processes whose command line carries the tag (the child's servers). */
function tagged(): number[] {
  const pids: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (readFileSync(`/proc/${d}/cmdline`, 'utf8').includes(tag)) pids.push(Number(d));
    } catch {
      /* gone */
    }
  }
  return pids;
}

afterAll(() => {
  for (const pid of tagged()) process.kill(pid, 'SIGKILL');
});

describe('resume', () => {
  it('continues a run killed partway: every window exactly once, the earlier ones unchanged, same seed and plan', async () => {
    expect(existsSync(distIndex), `the SDK's dist is missing: cd packages/sdk && npx tsc -p tsconfig.json`).toBe(true);
    const work = scratch('bs-resume');
    const outDir = join(work, 'run');
    const script = join(work, 'first-run.mjs');
    writeFileSync(
      script,
      `import { runSuite } from ${JSON.stringify(pathToFileURL(distIndex).href)};
await runSuite(${JSON.stringify({ scenarios: [ping], targets, design, driver: 'autocannon', seed: SEED, outDir })});
console.log('finished');`,
    );
    const child = spawn(process.execPath, [script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += String(d)));
    child.stderr.on('data', (d) => (output += String(d)));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    let gone = false;
    void exited.then(() => (gone = true));
    while (!gone && loggedWindows(outDir).length < KILL_AFTER) await sleep(20);
    expect(gone, `the first run ended before it could be killed: ${output}`).toBe(false);
    child.kill('SIGKILL');
    await exited;

    const before = loggedWindows(outDir);
    expect(before.length).toBeGreaterThanOrEqual(KILL_AFTER);
    const plan = JSON.parse(readFileSync(join(outDir, 'run.json'), 'utf8')) as { seed: number };
    expect(plan.seed).toBe(SEED);
    // The watcher kills the dead runner's servers: none of them outlives it for long.
    for (let i = 0; i < 100 && tagged().length; i++) await sleep(50);
    expect(tagged()).toEqual([]);

    // Resume with another seed and design: both must come from the interrupted run's plan.
    const events: SuiteEvent[] = [];
    const r = await runSuite({ scenarios: [ping], targets, driver: 'autocannon', seed: 1, design: { blocks: { min: 1, max: 1 } }, outDir, resume: true, onEvent: (e) => events.push(e) });

    expect(resultSchema.safeParse(r).success).toBe(true);
    expect(r.resumed).toBe(true);
    expect(r.interrupted).toBe(false);
    expect(r.seed).toBe(SEED);
    expect(r.design).toMatchObject(design);

    // Every window exactly once: unique places and unique sequence numbers.
    expect(new Set(r.windows.map(key)).size).toBe(r.windows.length);
    expect(new Set(r.windows.map((w) => w.index)).size).toBe(r.windows.length);
    // Every window recorded before the kill is in the result, unchanged.
    expectAsLogged(before, r.windows);
    // Nothing that finished ran again: no verify, and new windows only after the logged ones.
    expect(events.filter((e) => e.type === 'verify')).toEqual([]);
    expect(r.verify.map((v) => [v.target, v.ok])).toEqual([
      ['a', true],
      ['b', true],
    ]);
    const maxBefore = Math.max(...before.map((w) => w.index));
    const added = r.windows.filter((w) => !before.some((b) => key(b) === key(w)));
    expect(added.length).toBeGreaterThan(0);
    expect(added.every((w) => w.index > maxBefore)).toBe(true);

    // The same shape as an uninterrupted run: as many complete blocks as planned (the block the
    // kill cut short keeps its windows but does not count), each block once; summaries and a stop.
    expect(r.blocks.map((b) => b.block)).toEqual(r.blocks.map((_, i) => i + 1));
    const complete = r.blocks.filter((b) => b.complete);
    expect(complete).toHaveLength(design.blocks.max);
    for (const b of complete) expect(r.windows.filter((w) => w.block === b.block)).toHaveLength(2 * b.rounds);
    const cut = r.blocks.filter((b) => !b.complete).map((b) => b.block);
    expect(cut.every((b) => before.some((w) => w.block === b))).toBe(true);
    expect(r.stops).toEqual([expect.objectContaining({ scenario: 'ping', blocks: r.blocks.length })]);
    expect(r.summaries.map((s) => s.target).sort()).toEqual(['a', 'b']);

    // Time under load and wall time both count the interrupted part: the overhead is theirs, and
    // every measured window was under load (a resume once counted only its own load).
    expect(r.runner.loadSec).toBeGreaterThanOrEqual(r.runner.measuredSec);
    expect(r.runner.wallSec).toBeGreaterThanOrEqual(r.runner.loadSec);
    expect(r.overall.overhead).toBeCloseTo(r.runner.wallSec / r.runner.loadSec, 6);

    // The windows file itself holds every window once: a second resume would read the same run.
    const after = loggedWindows(outDir);
    expect(after.map(key).sort()).toEqual(r.windows.map(key).sort());
  }, 120_000);

  it('continues a shared-process run killed inside a block: the scenario cut short is completed in a later block, every window once', async () => {
    const work = scratch('bs-resume-shared');
    const outDir = join(work, 'run');
    const script = join(work, 'first-run.mjs');
    const other = { ...ping, name: 'other', request: { path: '/other' } };
    const shared = { ...design, blocks: { min: 2, max: 2 }, processes: 'shared' as const };
    writeFileSync(
      script,
      `import { runSuite } from ${JSON.stringify(pathToFileURL(distIndex).href)};
await runSuite(${JSON.stringify({ scenarios: [ping, other], targets, design: shared, driver: 'autocannon', seed: SEED, outDir })});`,
    );
    const child = spawn(process.execPath, [script], { stdio: 'ignore' });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    let gone = false;
    void exited.then(() => (gone = true));
    // Block 1 holds 4 windows of its first scenario, then 4 of its second: kill inside the second.
    while (!gone && loggedWindows(outDir).length < KILL_AFTER) await sleep(20);
    expect(gone, 'the first run ended before it could be killed').toBe(false);
    child.kill('SIGKILL');
    await exited;
    const before = loggedWindows(outDir);
    for (let i = 0; i < 100 && tagged().length; i++) await sleep(50);

    const r = await runSuite({ scenarios: [ping, other], targets, driver: 'autocannon', seed: 1, design: { blocks: { min: 1, max: 1 } }, outDir, resume: true });
    expect(resultSchema.safeParse(r).success).toBe(true);
    expect(r.design).toMatchObject(shared);
    expect(new Set(r.windows.map(key)).size).toBe(r.windows.length);
    expectAsLogged(before, r.windows);
    const cutShort = before.at(-1)!.scenario;
    expect(r.blocks.filter((b) => b.scenario === cutShort && !b.complete).map((b) => b.block)).toEqual([1]);
    for (const name of ['ping', 'other']) {
      // As many complete blocks as planned for each, the cut-short scenario's in a third block.
      expect(r.blocks.filter((b) => b.scenario === name && b.complete)).toHaveLength(2);
      expect(r.stops.find((s) => s.scenario === name)!.reason).toBe('max-blocks');
    }
    expect(r.blocks.filter((b) => b.scenario === cutShort).map((b) => b.block)).toEqual([1, 2, 3]);
    expect(loggedWindows(outDir).map(key).sort()).toEqual(r.windows.map(key).sort());
  }, 120_000);

  it('refuses a configuration that lacks a target of the interrupted run, naming it', async () => {
    // A real plan, from a run that only verifies (two starts, one request each, no load).
    const outDir = scratch('bs-resume-plan');
    await runSuite({ scenarios: [{ ...ping, verifyOnly: true }], targets, driver: 'autocannon', outDir });
    expect(existsSync(join(outDir, 'run.json'))).toBe(true);
    const err = await runSuite({ scenarios: [ping], targets: [targets[0]!], outDir, resume: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BenchsuiteConfigError);
    expect((err as Error).message).toMatch(/target "b"/);
    expect((err as Error).message).toContain(outDir);
  });
});
