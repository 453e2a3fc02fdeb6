import { warmupWindows } from '../warmup-windows.js';
import { serverCpuExactOf } from '../window-resources.js';
import type { DesignRecord } from './design.js';
import { RESULT_SCHEMA_VERSION } from './document.js';

/** The result versions `upgradeResult` reads: 2 (upgraded) and the current one. */
export const READABLE_RESULT_VERSIONS = [2, RESULT_SCHEMA_VERSION] as const;

/**
 * The thresholds a version-2 result that did not record them was judged by: `DEFAULTS` as they
 * were when version 3 came (2026-11-26), kept here so such a result keeps its sentences when the
 * defaults move on. A result that recorded its own keeps them.
 */
const V2_THRESHOLDS = {
  backendBoundBusy: 0.9,
  serverSaturatedShare: 0.7,
  loaderBound: { serverShare: 0.97, loaderBusy: 0.8 },
  noisyWindowCov: 0.1,
  disturbedSteal: 0.05,
  covBands: { excellent: 0.03, acceptable: 0.05, noisy: 0.1 },
  verdictShare: 0.9,
} as const;

/** Rotation rounds before each later scenario of a shared block, when a version-2 result did not say. */
const V2_CARRIED_WARMUP_ROUNDS = 1;

/** A result of a version this benchsuite cannot read (1, or one newer than it). */
export class ResultVersionError extends Error {
  constructor(readonly version: number) {
    super(
      version > RESULT_SCHEMA_VERSION
        ? `a result of schema version ${version}, newer than this benchsuite reads (${READABLE_RESULT_VERSIONS.join(' and ')}); use a newer benchsuite`
        : `a result of schema version ${version}; this benchsuite reads versions ${READABLE_RESULT_VERSIONS.join(' and ')} (measure again, or use the benchsuite that wrote it)`,
    );
    this.name = 'ResultVersionError';
  }
}

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => typeof x === 'object' && x !== null && !Array.isArray(x);
const objects = (x: unknown): Obj[] => (Array.isArray(x) ? x.filter(isObj) : []);
/** Set `key` to `value()` when the record does not have it. */
const fill = (o: Obj, key: string, value: () => unknown) => {
  if (o[key] === undefined) {
    const v = value();
    if (v !== undefined) o[key] = v;
  }
};

/** Version 2 → 3: every field a version-2 reader filled in for itself is in the document. */
function fromV2(r: Obj): void {
  r.schemaVersion = 3;
  const d = r.design;
  if (isObj(d)) {
    for (const [k, v] of Object.entries(V2_THRESHOLDS)) fill(d, k, () => structuredClone(v));
    // Before `processes` was recorded every scenario had its own block; before `freshWarmup`, the
    // fresh processes were warmed one by one, then a wake-up round.
    fill(d, 'processes', () => 'per-scenario');
    fill(d, 'freshWarmup', () => 'one-by-one');
    fill(d, 'carriedWarmupRounds', () => V2_CARRIED_WARMUP_ROUNDS);
    // Rotation windows had the warm-up's length before they had their own.
    fill(d, 'carriedWarmupWindowSec', () => (isObj(d.warmup) && typeof d.warmup.maxSec === 'number' ? warmupWindows(d.warmup as DesignRecord['warmup']).windowSec : undefined));
  }
  for (const s of objects(r.scenarios)) {
    const load = s.load;
    // A stepped load settled `warmupSec` before every step before later steps had their own.
    if (isObj(load) && Array.isArray(load.connections) && load.connections.length > 1) fill(load, 'stepWarmupSec', () => load.warmupSec);
  }
  for (const w of objects(r.windows)) {
    if (w.status !== 'ok') continue;
    const steps = objects(w.steps);
    fill(w, 'loaderBound', () => false);
    for (const st of steps) fill(st, 'loaderBound', () => false);
    // Windows recorded their CPU clock after their steps did.
    const sampled = steps.filter((st) => isObj(st.resources)) as Array<{ resources: { serverCpuExact?: boolean } }>;
    if (isObj(w.resources)) fill(w.resources, 'serverCpuExact', () => serverCpuExactOf(sampled));
  }
  for (const s of objects(r.summaries)) {
    if (isObj(s.windows)) fill(s.windows, 'loaderBound', () => 0);
    for (const st of objects(s.steps)) fill(st, 'loaderBoundWindows', () => 0);
  }
}

/**
 * A result document as the current version (`RESULT_SCHEMA_VERSION`), from the JSON of any
 * version this benchsuite reads: a version-2 document gets the fields its readers used to fill in
 * themselves (the thresholds it was judged by, how its processes were warmed, the loader-bound
 * flags it did not judge, its windows' CPU clock). Every reader calls it before `resultSchema`:
 * `resultSchema.parse(upgradeResult(JSON.parse(text)))`. Pure (the input is not changed);
 * anything that is not an object with a numeric `schemaVersion` is returned as it is, for the
 * schema to reject with the field it lacks.
 * @throws ResultVersionError for a version it cannot read.
 */
export function upgradeResult(json: unknown): unknown {
  if (!isObj(json) || typeof json.schemaVersion !== 'number') return json;
  const version = json.schemaVersion;
  if (version === RESULT_SCHEMA_VERSION) return json;
  if (version !== 2) throw new ResultVersionError(version);
  const r = structuredClone(json);
  fromV2(r);
  return r;
}
