/**
 * The store's schema, as the list of steps that built it: version N is the first N steps. A store
 * opened by a newer benchsuite runs the steps it lacks, each in a transaction with its version row,
 * so a file is always at one whole version. Never edit a step once released: add one.
 */
export const MIGRATIONS: readonly { version: number; what: string; sql: string }[] = [
  {
    version: 1,
    what: 'machines, runs (commit, design, run noise) and per-pair figures with their intervals',
    sql: `
CREATE TABLE machines (
  id INTEGER PRIMARY KEY,
  fingerprint TEXT NOT NULL UNIQUE,
  cpu_model TEXT NOT NULL,
  cores INTEGER NOT NULL,
  arch TEXT NOT NULL,
  kernel TEXT NOT NULL,
  node TEXT NOT NULL,
  python TEXT,
  memory_gib INTEGER NOT NULL
);
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  result_key TEXT NOT NULL UNIQUE,
  suite TEXT NOT NULL,
  started_at TEXT NOT NULL,
  finished_at TEXT NOT NULL,
  commit_sha TEXT,
  dirty INTEGER NOT NULL,
  machine_id INTEGER NOT NULL REFERENCES machines(id),
  design_key TEXT NOT NULL,
  design_json TEXT NOT NULL,
  seed INTEGER NOT NULL,
  mean_steal REAL NOT NULL,
  max_steal REAL NOT NULL,
  median_half_width REAL,
  worst_half_width REAL,
  wall_sec REAL NOT NULL,
  added_at TEXT NOT NULL
);
CREATE INDEX runs_series ON runs (machine_id, design_key, started_at);
CREATE TABLE figures (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  scenario TEXT NOT NULL,
  target TEXT NOT NULL,
  reference TEXT NOT NULL,
  load_key TEXT NOT NULL,
  figure TEXT NOT NULL CHECK (figure IN ('rps', 'cpu', 'instructions')),
  point REAL NOT NULL,
  lo REAL,
  hi REAL,
  n INTEGER NOT NULL,
  PRIMARY KEY (run_id, scenario, target, figure)
);`,
  },
  {
    version: 2,
    what: "the branch of each run, the run's precision and verdict, and each pair's noise (SD within and between blocks, half-width, instruction spread)",
    sql: `
ALTER TABLE runs ADD COLUMN branch TEXT;
ALTER TABLE runs ADD COLUMN precision_target REAL;
ALTER TABLE runs ADD COLUMN windows INTEGER;
ALTER TABLE runs ADD COLUMN excluded_steal INTEGER;
ALTER TABLE runs ADD COLUMN verdict TEXT;
ALTER TABLE figures ADD COLUMN half_width REAL;
ALTER TABLE figures ADD COLUMN within_sd REAL;
ALTER TABLE figures ADD COLUMN between_sd REAL;
ALTER TABLE figures ADD COLUMN spread REAL;`,
  },
  {
    version: 3,
    what: "each run's A/A control: the twin (null: no control), one process's SD with its interval and df, and per scenario the twin ÷ reference ratio, its interval and whether it holds 1",
    sql: `
ALTER TABLE runs ADD COLUMN control_twin TEXT;
ALTER TABLE runs ADD COLUMN process_sd REAL;
ALTER TABLE runs ADD COLUMN process_sd_lo REAL;
ALTER TABLE runs ADD COLUMN process_sd_hi REAL;
ALTER TABLE runs ADD COLUMN process_sd_df INTEGER;
CREATE TABLE controls (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  scenario TEXT NOT NULL,
  blocks INTEGER NOT NULL,
  point REAL,
  lo REAL,
  hi REAL,
  contains_one INTEGER,
  within_sd REAL,
  between_sd REAL,
  PRIMARY KEY (run_id, scenario)
);`,
  },
  {
    version: 4,
    what: "each run's round-1 check (round 1 ÷ the block's later rounds of the pairs' ratios to the reference, its interval and the blocks behind it) and its forecast (the last 80% range said, the share its record claims, and the half-width reached); null where the run had none",
    sql: `
ALTER TABLE runs ADD COLUMN round_one REAL;
ALTER TABLE runs ADD COLUMN round_one_lo REAL;
ALTER TABLE runs ADD COLUMN round_one_hi REAL;
ALTER TABLE runs ADD COLUMN round_one_n INTEGER;
ALTER TABLE runs ADD COLUMN forecast_low REAL;
ALTER TABLE runs ADD COLUMN forecast_high REAL;
ALTER TABLE runs ADD COLUMN forecast_coverage REAL;
ALTER TABLE runs ADD COLUMN forecast_reached REAL;`,
  },
];

/** The version a store written by this code is at. */
export const HISTORY_SCHEMA_VERSION = MIGRATIONS.at(-1)!.version;
