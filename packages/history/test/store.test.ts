import { copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import initSqlJs from 'sql.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scratch } from '@benchsuite/testkit';
import { analyzeSeries, changeRule, HISTORY_SCHEMA_VERSION, HistoryError, HistoryStore, recordOf, withHistory } from '../src/index.js';
import { commitOf, syntheticResults } from './_synthetic.js';

let dir: string;
beforeAll(() => {
  dir = scratch('benchsuite-history');
});
afterAll(() => undefined);

describe('a history of 50 runs on one machine and 20 on another', () => {
  let file: string;
  const A = syntheticResults({ runs: 50, stepAt: 30, step: 0.15, seed: 11 });
  const B = syntheticResults({ runs: 20, seed: 12, cpuModel: 'Intel(R) Xeon(R) Platinum 8370C CPU @ 2.80GHz', startHour: 5 });
  // B's fastify runs 20% faster than A's: were the machines mixed, that alone would read as changes.
  for (const r of B) for (const s of r.summaries) if (s.relativeRps) s.relativeRps = { ...s.relativeRps, point: s.relativeRps.point * 1.2 };

  beforeAll(async () => {
    file = join(dir, 'two-machines.sqlite');
    await withHistory(file, (store) => {
      for (const r of [...A, ...B]) expect(store.add(recordOf(r)).added).toBe(true);
    });
  });

  it('keeps every run with its commit, machine and figures, and adds none twice', async () => {
    const again = await withHistory(file, (store) => store.add(recordOf(A[3]!)));
    expect(again.added).toBe(false);
    const store = await HistoryStore.open(file);
    const runs = store.runs();
    expect(runs).toHaveLength(70);
    expect(new Set(runs.map((r) => r.fingerprint)).size).toBe(2);
    expect(runs.filter((r) => r.commit === commitOf(0, 11))).toHaveLength(1);
    // Every pair of the fixture with a relative figure, plus fastify's instruction count.
    expect(runs[0]!.figures).toBe(10 + 1);
    store.close();
  });

  it('gives one series per machine, in run order, and never mixes the two', async () => {
    const store = await HistoryStore.open(file);
    const series = store.series({ scenarios: ['baseline'], targets: ['fastify'], figures: ['rps'] });
    store.close();
    expect(series).toHaveLength(2);
    const [a, b] = [...series].sort((x, y) => y.points.length - x.points.length);
    expect(a!.points).toHaveLength(50);
    expect(b!.points).toHaveLength(20);
    expect(a!.key.fingerprint).not.toBe(b!.key.fingerprint);
    expect(b!.key.machine.cpuModel).toMatch(/Xeon/);
    expect(a!.points.map((p) => p.startedAt)).toEqual([...a!.points.map((p) => p.startedAt)].sort());
    expect(a!.points[0]).toMatchObject({ commit: commitOf(0, 11), lo: expect.any(Number), hi: expect.any(Number) });
  });

  it('finds the step on machine A where it was made, and nothing on machine B', async () => {
    const store = await HistoryStore.open(file);
    const analyzed = analyzeSeries(store.series({ scenarios: ['baseline'], targets: ['fastify'] }), changeRule());
    store.close();
    const onA = analyzed.filter((s) => s.points.length === 50);
    const onB = analyzed.filter((s) => s.points.length === 20);
    expect(onA.map((s) => s.key.figure).sort()).toEqual(['cpu', 'instructions', 'rps']);
    for (const s of onA) {
      expect(s.changes, s.key.figure).toHaveLength(1);
      const c = s.changes[0]!;
      expect(c.index, s.key.figure).toBe(30);
      expect(c.direction).toBe('worse');
      expect(c.lastBefore.commit).toBe(commitOf(29, 11));
      expect(c.firstAfter.commit).toBe(commitOf(30, 11));
      expect(c.runsBefore).toBe(30);
      expect(c.runsAfter).toBe(20);
      // The size's interval holds the step made (−15% throughput, +15% CPU and instructions).
      const made = s.key.figure === 'rps' ? 1 / 1.15 - 1 : 0.15;
      expect(c.ci95![0]).toBeLessThan(made);
      expect(c.ci95![1]).toBeGreaterThan(made);
    }
    for (const s of onB) expect(s.changes, s.key.figure).toEqual([]);
  });
});

describe('the file', () => {
  it('migrates an older database forward, keeping its runs', async () => {
    const file = join(dir, 'old.sqlite');
    copyFileSync(new URL('./fixtures/history-v1.sqlite', import.meta.url), file);
    const [r] = syntheticResults({ runs: 1, seed: 3, startHour: 600 });
    await withHistory(file, (store) => {
      expect(store.openedAt).toBe(1);
      expect(store.version).toBe(HISTORY_SCHEMA_VERSION);
      store.add(recordOf(r!, { branch: 'main' }));
    });
    const store = await HistoryStore.open(file);
    expect(store.openedAt).toBe(HISTORY_SCHEMA_VERSION);
    const runs = store.runs();
    expect(runs).toHaveLength(4);
    expect(runs.find((x) => x.commit === 'c0ffee1')).toMatchObject({ branch: null, fingerprint: 'v1machine000' });
    expect(runs.at(-1)!.branch).toBe('main');
    const old = store.series({ fingerprint: 'v1machine000' });
    expect(old).toHaveLength(1);
    expect(old[0]!.points.map((p) => p.value)).toEqual([0.75, 0.76, 0.74]);
    // Runs from before the A/A control have none.
    expect(store.controls().map((c) => c.control)).toEqual([null, null, null, null]);
    // Nor a round-1 check, from before the history kept it (the new run's fixture has none either).
    expect(store.controls().map((c) => c.roundOne)).toEqual([null, null, null, null]);
    store.close();
    const SQL = await initSqlJs();
    const db = new SQL.Database(readFileSync(file));
    expect(db.exec('SELECT version FROM schema_version ORDER BY version')[0]!.values.flat()).toEqual([1, 2, 3, 4]);
    db.close();
  });

  it('is replaced whole on save: no temporary file is left, and the result is a SQLite file', async () => {
    const sub = scratch('benchsuite-history-atomic');
    const file = join(sub, 'h.sqlite');
    await withHistory(file, (store) => void store.add(recordOf(syntheticResults({ runs: 1, seed: 4 })[0]!)));
    expect(readdirSync(sub)).toEqual(['h.sqlite']);
    expect(readFileSync(file).subarray(0, 16).toString('latin1')).toBe('SQLite format 3\0');
  });

  it('says what is wrong with a file that is not a history', async () => {
    const notSqlite = join(dir, 'notes.txt');
    writeFileSync(notSqlite, 'hello, this is not a database at all');
    await expect(HistoryStore.open(notSqlite)).rejects.toThrow(new HistoryError(`${notSqlite}: not a SQLite database (a history file is made by \`benchsuite history add\`)`));
    const SQL = await initSqlJs();
    const other = new SQL.Database();
    other.run('CREATE TABLE t (x INTEGER)');
    const otherFile = join(dir, 'other.sqlite');
    writeFileSync(otherFile, other.export());
    await expect(HistoryStore.open(otherFile)).rejects.toThrow(/a SQLite database, but not a benchsuite history/);
    const newer = new SQL.Database();
    newer.run('CREATE TABLE schema_version (version INTEGER NOT NULL, applied_at TEXT NOT NULL)');
    newer.run("INSERT INTO schema_version VALUES (99, '2030-01-01')");
    const newerFile = join(dir, 'newer.sqlite');
    writeFileSync(newerFile, newer.export());
    await expect(HistoryStore.open(newerFile)).rejects.toThrow(/written by a newer benchsuite \(history schema 99; this one reads up to 4\)/);
    await expect(HistoryStore.open(dir)).rejects.toThrow(/is a directory/);
  });

  it('waits for another writer and then says so instead of losing its run', async () => {
    const file = join(dir, 'locked.sqlite');
    writeFileSync(`${file}.lock`, '');
    await expect(withHistory(file, () => undefined, { waitMs: 300 })).rejects.toThrow(/another benchsuite is writing the history/);
  });

  it('refuses a path it cannot write, naming it', async () => {
    const blocker = join(dir, 'a-file');
    writeFileSync(blocker, '');
    await expect(withHistory(join(blocker, 'h.sqlite'), () => undefined)).rejects.toThrow(HistoryError);
  });
});
