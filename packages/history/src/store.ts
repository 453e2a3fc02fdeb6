import { randomBytes } from 'node:crypto';
import { mkdirSync, openSync, closeSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import initSqlJs, { type Database, type SqlJsStatic, type SqlValue } from 'sql.js';
import { toolCacheDir } from '@benchsuite/sdk';
import { HISTORY_SCHEMA_VERSION, MIGRATIONS } from './migrations.js';
import type { ControlFacts, FigureName, ForecastFacts, MachineFacts, RoundOneFacts, RunRecord } from './record.js';

/** A problem with the history file a user can fix (not SQLite, newer schema, unwritable, locked): the CLI exits 2 with it. */
export class HistoryError extends Error {
  override name = 'HistoryError';
}

/** Where the history lives unless `--db` names another file: `<tool cache>/history.sqlite`. */
export const defaultHistoryFile = (env: NodeJS.ProcessEnv = process.env) => join(toolCacheDir(env), 'history.sqlite');

let sqlite: Promise<SqlJsStatic> | undefined;
/** sql.js, compiled once per process (about 20 ms). */
const engine = () => (sqlite ??= initSqlJs());

/** A run as stored, without its figures. */
export interface StoredRun {
  id: number;
  suite: string;
  startedAt: string;
  commit: string | null;
  branch: string | null;
  fingerprint: string;
  designKey: string;
  meanSteal: number;
  medianHalfWidth: number | null;
  figures: number;
}

/** One point of a series: a run's figure with its interval. */
export interface SeriesPoint {
  runId: number;
  startedAt: string;
  commit: string | null;
  branch: string | null;
  value: number;
  lo: number | null;
  hi: number | null;
}

/** What identifies a series: never across machines, designs, references or loads. */
export interface SeriesKey {
  fingerprint: string;
  machine: MachineFacts;
  designKey: string;
  scenario: string;
  target: string;
  reference: string;
  load: string;
  figure: FigureName;
}

export interface Series {
  key: SeriesKey;
  points: SeriesPoint[];
}

export interface SeriesFilter {
  scenarios?: readonly string[];
  targets?: readonly string[];
  figures?: readonly FigureName[];
  fingerprint?: string;
  /** Only runs on this hardware (CPU model, cores, architecture, memory), whatever their kernel and runtimes. */
  hardware?: Pick<MachineFacts, 'cpuModel' | 'cores' | 'arch' | 'memoryGiB'>;
  designKey?: string;
  /** Leave this run out (a run already added that is being judged as the new one). */
  excludeRunId?: number;
  /** Only runs started at or after this run's start (`check --since`). */
  sinceStartedAt?: string;
}

/** A run's A/A control as stored (null: the run had none), with the run's place: what the coverage check counts. */
export interface StoredControl {
  runId: number;
  startedAt: string;
  commit: string | null;
  fingerprint: string;
  machine: MachineFacts;
  designKey: string;
  control: ControlFacts | null;
  /** The run's round-1 check (null: it had none, or it was added before the history kept it). */
  roundOne: RoundOneFacts | null;
  /** The run's forecast against what it reached (null: none, or added before the history kept it). */
  forecast: ForecastFacts | null;
}

const SQLITE_MAGIC = 'SQLite format 3\0';

function rows(db: Database, sql: string, params: SqlValue[] = []): Record<string, SqlValue>[] {
  const st = db.prepare(sql);
  try {
    st.bind(params);
    const out: Record<string, SqlValue>[] = [];
    while (st.step()) out.push(st.getAsObject());
    return out;
  } finally {
    st.free();
  }
}

const num = (v: SqlValue) => (typeof v === 'number' ? v : null);
const str = (v: SqlValue) => (typeof v === 'string' ? v : null);

/** A machine's facts from a row that joined `machines`. */
const machineOfRow = (r: Record<string, SqlValue>): MachineFacts => ({
  cpuModel: str(r.cpu_model!)!,
  cores: num(r.cores!)!,
  arch: str(r.arch!)!,
  kernel: str(r.kernel!)!,
  node: str(r.node!)!,
  python: str(r.python ?? null),
  memoryGiB: num(r.memory_gib!)!,
});

/** The history: a SQLite database held in memory by sql.js, read from and written back to one file. */
export class HistoryStore {
  /** The schema version the file had when opened (0: a new file), before any migration. */
  readonly openedAt: number;
  private dirty = false;

  private constructor(
    readonly file: string,
    private readonly db: Database,
    openedAt: number,
  ) {
    this.openedAt = openedAt;
  }

  /**
   * Open (or start) the history in `file` and migrate it to the current schema in memory; nothing
   * is written until `save`. `upTo` stops at an older version (tests build old files with it).
   */
  static async open(file: string, o: { upTo?: number } = {}): Promise<HistoryStore> {
    let bytes: Buffer | null = null;
    try {
      bytes = readFileSync(file);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EISDIR') throw new HistoryError(`${file}: is a directory, expected a history database file`);
      if (code !== 'ENOENT') throw new HistoryError(`${file}: cannot read (${code ?? String(e)})`);
    }
    if (bytes && bytes.length > 0 && bytes.subarray(0, 16).toString('latin1') !== SQLITE_MAGIC)
      throw new HistoryError(`${file}: not a SQLite database (a history file is made by \`benchsuite history add\`)`);
    const SQL = await engine();
    const db = new SQL.Database(bytes?.length ? bytes : null);
    db.run('PRAGMA foreign_keys = ON');
    let version = 0;
    try {
      const hasTable = rows(db, "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'").length > 0;
      if (hasTable) version = num(rows(db, 'SELECT MAX(version) AS v FROM schema_version')[0]?.v ?? null) ?? 0;
      else if (rows(db, "SELECT name FROM sqlite_master WHERE type = 'table'").length > 0) throw new HistoryError(`${file}: a SQLite database, but not a benchsuite history (no schema_version table)`);
    } catch (e) {
      db.close();
      if (e instanceof HistoryError) throw e;
      throw new HistoryError(`${file}: cannot read the database (${(e as Error).message})`);
    }
    if (version > HISTORY_SCHEMA_VERSION) {
      db.close();
      throw new HistoryError(`${file}: written by a newer benchsuite (history schema ${version}; this one reads up to ${HISTORY_SCHEMA_VERSION})`);
    }
    const store = new HistoryStore(file, db, version);
    store.migrate(o.upTo ?? HISTORY_SCHEMA_VERSION);
    return store;
  }

  private migrate(upTo: number): void {
    if (this.openedAt === 0) this.db.run('CREATE TABLE schema_version (version INTEGER NOT NULL, applied_at TEXT NOT NULL)');
    for (const m of MIGRATIONS) {
      if (m.version <= this.openedAt || m.version > upTo) continue;
      this.db.run('BEGIN');
      try {
        this.db.exec(m.sql);
        this.db.run('INSERT INTO schema_version (version, applied_at) VALUES (?, ?)', [m.version, new Date().toISOString()]);
        this.db.run('COMMIT');
      } catch (e) {
        this.db.run('ROLLBACK');
        throw new HistoryError(`${this.file}: migrating the history to schema ${m.version} failed (${(e as Error).message})`);
      }
      this.dirty = true;
    }
  }

  /** The schema version of the database as it is now (after migrations). */
  get version(): number {
    return num(rows(this.db, 'SELECT MAX(version) AS v FROM schema_version')[0]?.v ?? null) ?? 0;
  }

  /** Add a run; a result already in the history (same suite, start, end and seed) is not added again. */
  add(rec: RunRecord): { runId: number; added: boolean } {
    const existing = rows(this.db, 'SELECT id FROM runs WHERE result_key = ?', [rec.resultKey])[0];
    if (existing) return { runId: num(existing.id!)!, added: false };
    const m = rec.machine;
    this.db.run('BEGIN');
    try {
      this.db.run('INSERT OR IGNORE INTO machines (fingerprint, cpu_model, cores, arch, kernel, node, python, memory_gib) VALUES (?, ?, ?, ?, ?, ?, ?, ?)', [
        rec.fingerprint,
        m.cpuModel,
        m.cores,
        m.arch,
        m.kernel,
        m.node,
        m.python,
        m.memoryGiB,
      ]);
      const machineId = num(rows(this.db, 'SELECT id FROM machines WHERE fingerprint = ?', [rec.fingerprint])[0]!.id!)!;
      const n = rec.noise;
      this.db.run(
        `INSERT INTO runs (result_key, suite, started_at, finished_at, commit_sha, branch, dirty, machine_id, design_key, design_json, seed, mean_steal, max_steal,
           median_half_width, worst_half_width, precision_target, windows, excluded_steal, verdict, wall_sec, added_at,
           control_twin, process_sd, process_sd_lo, process_sd_hi, process_sd_df, round_one, round_one_lo, round_one_hi, round_one_n,
           forecast_low, forecast_high, forecast_coverage, forecast_reached)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        [
          rec.resultKey,
          rec.suite,
          rec.startedAt,
          rec.finishedAt,
          rec.commit,
          rec.branch,
          rec.dirty ? 1 : 0,
          machineId,
          rec.designKey,
          JSON.stringify(rec.design),
          rec.seed,
          n.meanSteal,
          n.maxSteal,
          n.medianHalfWidth,
          n.worstHalfWidth,
          n.precisionTarget,
          n.windows,
          n.excludedSteal,
          n.verdict,
          rec.wallSec,
          new Date().toISOString(),
          rec.control?.twin ?? null,
          rec.control?.processSd?.point ?? null,
          rec.control?.processSd?.lo ?? null,
          rec.control?.processSd?.hi ?? null,
          rec.control?.processSd?.df ?? null,
          rec.roundOne?.point ?? null,
          rec.roundOne?.lo ?? null,
          rec.roundOne?.hi ?? null,
          rec.roundOne?.n ?? null,
          rec.forecast?.low ?? null,
          rec.forecast?.high ?? null,
          rec.forecast?.coverage ?? null,
          rec.forecast?.reached ?? null,
        ],
      );
      const runId = num(rows(this.db, 'SELECT last_insert_rowid() AS id')[0]!.id!)!;
      const st = this.db.prepare(
        'INSERT INTO figures (run_id, scenario, target, reference, load_key, figure, point, lo, hi, n, half_width, within_sd, between_sd, spread) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      );
      try {
        for (const f of rec.figures) st.run([runId, f.scenario, f.target, f.reference, f.load, f.figure, f.point, f.lo, f.hi, f.n, f.halfWidth, f.withinSd, f.betweenSd, f.spread]);
      } finally {
        st.free();
      }
      for (const c of rec.control?.scenarios ?? [])
        this.db.run('INSERT INTO controls (run_id, scenario, blocks, point, lo, hi, contains_one, within_sd, between_sd) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)', [
          runId,
          c.scenario,
          c.blocks,
          c.point,
          c.lo,
          c.hi,
          c.containsOne === null ? null : c.containsOne ? 1 : 0,
          c.withinSd,
          c.betweenSd,
        ]);
      this.db.run('COMMIT');
      this.dirty = true;
      return { runId, added: true };
    } catch (e) {
      this.db.run('ROLLBACK');
      throw e;
    }
  }

  /** The run id of a result already stored, or null. */
  runIdOf(resultKey: string): number | null {
    const r = rows(this.db, 'SELECT id FROM runs WHERE result_key = ?', [resultKey])[0];
    return r ? num(r.id!) : null;
  }

  /** Every run, oldest first. */
  runs(): StoredRun[] {
    return rows(
      this.db,
      `SELECT r.id, r.suite, r.started_at, r.commit_sha, r.branch, m.fingerprint, r.design_key, r.mean_steal, r.median_half_width,
              (SELECT COUNT(*) FROM figures f WHERE f.run_id = r.id) AS figures
       FROM runs r JOIN machines m ON m.id = r.machine_id ORDER BY r.started_at, r.id`,
    ).map((r) => ({
      id: num(r.id!)!,
      suite: str(r.suite!)!,
      startedAt: str(r.started_at!)!,
      commit: str(r.commit_sha ?? null),
      branch: str(r.branch ?? null),
      fingerprint: str(r.fingerprint!)!,
      designKey: str(r.design_key!)!,
      meanSteal: num(r.mean_steal!)!,
      medianHalfWidth: num(r.median_half_width ?? null),
      figures: num(r.figures!)!,
    }));
  }

  /** The run in the history that started at or last before `commit`'s first run, by commit prefix; null when no run has it. */
  firstRunOfCommit(commit: string): StoredRun | null {
    return this.runs().find((r) => r.commit?.startsWith(commit)) ?? null;
  }

  /** Series per (machine, design, scenario, target, reference, load, figure), each in run order. */
  series(filter: SeriesFilter = {}): Series[] {
    const where: string[] = [];
    const params: SqlValue[] = [];
    const inList = (col: string, values: readonly string[] | undefined) => {
      if (!values?.length) return;
      where.push(`${col} IN (${values.map(() => '?').join(', ')})`);
      params.push(...values);
    };
    inList('f.scenario', filter.scenarios);
    inList('f.target', filter.targets);
    inList('f.figure', filter.figures);
    if (filter.fingerprint) {
      where.push('m.fingerprint = ?');
      params.push(filter.fingerprint);
    }
    if (filter.hardware) {
      const h = filter.hardware;
      where.push('m.cpu_model = ? AND m.cores = ? AND m.arch = ? AND m.memory_gib = ?');
      params.push(h.cpuModel, h.cores, h.arch, h.memoryGiB);
    }
    if (filter.designKey) {
      where.push('r.design_key = ?');
      params.push(filter.designKey);
    }
    if (filter.excludeRunId !== undefined) {
      where.push('r.id <> ?');
      params.push(filter.excludeRunId);
    }
    if (filter.sinceStartedAt) {
      where.push('r.started_at >= ?');
      params.push(filter.sinceStartedAt);
    }
    const found = rows(
      this.db,
      `SELECT f.scenario, f.target, f.reference, f.load_key, f.figure, f.point, f.lo, f.hi, r.id AS run_id, r.started_at, r.commit_sha, r.branch, r.design_key,
              m.fingerprint, m.cpu_model, m.cores, m.arch, m.kernel, m.node, m.python, m.memory_gib
       FROM figures f JOIN runs r ON r.id = f.run_id JOIN machines m ON m.id = r.machine_id
       ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
       ORDER BY m.fingerprint, r.design_key, f.scenario, f.target, f.figure, r.started_at, r.id`,
      params,
    );
    const bySeries = new Map<string, Series>();
    for (const r of found) {
      const key: SeriesKey = {
        fingerprint: str(r.fingerprint!)!,
        machine: machineOfRow(r),
        designKey: str(r.design_key!)!,
        scenario: str(r.scenario!)!,
        target: str(r.target!)!,
        reference: str(r.reference!)!,
        load: str(r.load_key!)!,
        figure: str(r.figure!) as FigureName,
      };
      const id = JSON.stringify([key.fingerprint, key.designKey, key.scenario, key.target, key.reference, key.load, key.figure]);
      let s = bySeries.get(id);
      if (!s) {
        s = { key, points: [] };
        bySeries.set(id, s);
      }
      s.points.push({
        runId: num(r.run_id!)!,
        startedAt: str(r.started_at!)!,
        commit: str(r.commit_sha ?? null),
        branch: str(r.branch ?? null),
        value: num(r.point!)!,
        lo: num(r.lo ?? null),
        hi: num(r.hi ?? null),
      });
    }
    return [...bySeries.values()];
  }

  /**
   * Every run's A/A control, oldest first: runs without one (from before it, `--control none`) are
   * listed with `control: null`, so a count can say how many runs had none. `scenarios` keeps only
   * those scenarios' intervals.
   */
  controls(filter: { fingerprint?: string; scenarios?: readonly string[] } = {}): StoredControl[] {
    const runs = rows(
      this.db,
      `SELECT r.id, r.started_at, r.commit_sha, r.design_key, r.control_twin, r.process_sd, r.process_sd_lo, r.process_sd_hi, r.process_sd_df,
              r.round_one, r.round_one_lo, r.round_one_hi, r.round_one_n,
              r.forecast_low, r.forecast_high, r.forecast_coverage, r.forecast_reached,
              m.fingerprint, m.cpu_model, m.cores, m.arch, m.kernel, m.node, m.python, m.memory_gib
       FROM runs r JOIN machines m ON m.id = r.machine_id
       ${filter.fingerprint ? 'WHERE m.fingerprint = ?' : ''}
       ORDER BY r.started_at, r.id`,
      filter.fingerprint ? [filter.fingerprint] : [],
    );
    const byRun = new Map<number, ControlFacts['scenarios']>();
    for (const c of rows(this.db, 'SELECT run_id, scenario, blocks, point, lo, hi, contains_one, within_sd, between_sd FROM controls ORDER BY run_id, scenario')) {
      const scenario = str(c.scenario!)!;
      if (filter.scenarios?.length && !filter.scenarios.includes(scenario)) continue;
      const runId = num(c.run_id!)!;
      const contains = num(c.contains_one ?? null);
      const list = byRun.get(runId) ?? [];
      list.push({
        scenario,
        blocks: num(c.blocks!)!,
        point: num(c.point ?? null),
        lo: num(c.lo ?? null),
        hi: num(c.hi ?? null),
        containsOne: contains === null ? null : contains === 1,
        withinSd: num(c.within_sd ?? null),
        betweenSd: num(c.between_sd ?? null),
      });
      byRun.set(runId, list);
    }
    return runs.map((r) => {
      const runId = num(r.id!)!;
      const twin = str(r.control_twin ?? null);
      const sd = num(r.process_sd ?? null);
      const roundOne = num(r.round_one ?? null);
      const fLow = num(r.forecast_low ?? null);
      const fHigh = num(r.forecast_high ?? null);
      const fCoverage = num(r.forecast_coverage ?? null);
      const fReached = num(r.forecast_reached ?? null);
      return {
        runId,
        startedAt: str(r.started_at!)!,
        commit: str(r.commit_sha ?? null),
        fingerprint: str(r.fingerprint!)!,
        machine: machineOfRow(r),
        designKey: str(r.design_key!)!,
        control:
          twin === null
            ? null
            : {
                twin,
                scenarios: byRun.get(runId) ?? [],
                processSd: sd === null ? null : { point: sd, lo: num(r.process_sd_lo ?? null), hi: num(r.process_sd_hi ?? null), df: num(r.process_sd_df ?? null) ?? 0 },
              },
        roundOne: roundOne === null ? null : { point: roundOne, lo: num(r.round_one_lo ?? null), hi: num(r.round_one_hi ?? null), n: num(r.round_one_n ?? null) ?? 1 },
        forecast: fLow === null || fHigh === null || fCoverage === null || fReached === null ? null : { low: fLow, high: fHigh, coverage: fCoverage, reached: fReached },
      };
    });
  }

  /**
   * Write the database back if anything changed: to a temporary file beside it, then renamed over
   * it, so a reader sees the old file or the new one, never half of one (sql.js keeps the database
   * in memory and writes it whole).
   */
  save(): boolean {
    if (!this.dirty) return false;
    const tmp = join(dirname(this.file), `.${basename(this.file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
    try {
      mkdirSync(dirname(this.file), { recursive: true });
      writeFileSync(tmp, this.db.export());
      renameSync(tmp, this.file);
    } catch (e) {
      try {
        unlinkSync(tmp);
      } catch {
        // never written
      }
      throw new HistoryError(`${this.file}: cannot write (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
    this.dirty = false;
    return true;
  }

  close(): void {
    this.db.close();
  }
}

/**
 * Open the history for a change, run `fn`, save and close, holding `<file>.lock` meanwhile so two
 * processes adding at once do not each write back a database without the other's run. A lock older
 * than `staleMs` (its holder died) is taken over.
 */
export async function withHistory<T>(file: string, fn: (store: HistoryStore) => T | Promise<T>, o: { waitMs?: number; staleMs?: number } = {}): Promise<T> {
  const lock = `${file}.lock`;
  const deadline = Date.now() + (o.waitMs ?? 30_000);
  try {
    mkdirSync(dirname(file), { recursive: true });
  } catch (e) {
    throw new HistoryError(`${dirname(file)}: cannot create the history's folder (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  for (;;) {
    try {
      closeSync(openSync(lock, 'wx'));
      break;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST') throw new HistoryError(`${lock}: cannot create the lock file (${code ?? (e as Error).message})`);
      try {
        if (Date.now() - statSync(lock).mtimeMs > (o.staleMs ?? 120_000)) unlinkSync(lock);
      } catch {
        // removed meanwhile
      }
      if (Date.now() > deadline) throw new HistoryError(`${file}: another benchsuite is writing the history (${lock} exists); try again, or remove the lock if no benchsuite runs`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  try {
    const store = await HistoryStore.open(file);
    try {
      const out = await fn(store);
      store.save();
      return out;
    } finally {
      store.close();
    }
  } finally {
    try {
      unlinkSync(lock);
    } catch {
      // already gone
    }
  }
}
