import { DEFAULTS } from '@benchsuite/sdk';
import { findChanges, judgeNewest, type ChangeRule, type SeriesChange } from './changes.js';
import { coverageOf, coverageRule, type CoverageRule, type MachineCoverage } from './coverage.js';
import { FIGURES, hardwareOf, MACHINE_PARTS, sameMachine, type FigureName, type MachineFacts, type MachinePart, type RunRecord, type SoftwarePart } from './record.js';
import type { HistoryStore, Series, SeriesKey, SeriesPoint } from './store.js';

/** The change-point rule with the defaults of `DEFAULTS.history` filled in. */
export function changeRule(o: Partial<ChangeRule> = {}): ChangeRule {
  const d = DEFAULTS.history;
  return {
    alpha: o.alpha ?? d.alpha,
    permutations: o.permutations ?? d.permutations,
    minMagnitude: o.minMagnitude ?? d.minMagnitude,
    minSegment: o.minSegment ?? d.minSegment,
    seed: o.seed ?? d.seed,
  };
}

/** A change found in a series, placed among its runs. */
export interface PlacedChange extends SeriesChange {
  /** The last run before the change and the first after it: the change came in between their commits. */
  lastBefore: SeriesPoint;
  firstAfter: SeriesPoint;
  runsBefore: number;
  runsAfter: number;
  /** Level (geometric mean) of the segment before and after. */
  levelBefore: number;
  levelAfter: number;
}

/** A series with the changes found in it. */
export interface AnalyzedSeries {
  key: SeriesKey;
  points: SeriesPoint[];
  changes: PlacedChange[];
  /** Points analyzed (the most recent `DEFAULTS.history.maxPoints`): the first `skipped` are left out. */
  skipped: number;
}

const geo = (pts: readonly SeriesPoint[]) => Math.exp(pts.reduce((s, p) => s + Math.log(p.value), 0) / pts.length);

function place(points: readonly SeriesPoint[], offset: number, c: SeriesChange): PlacedChange {
  const before = points.slice(offset + c.before[0], offset + c.before[1]);
  const after = points.slice(offset + c.after[0], offset + c.after[1]);
  return {
    ...c,
    index: c.index + offset,
    before: [c.before[0] + offset, c.before[1] + offset],
    after: [c.after[0] + offset, c.after[1] + offset],
    lastBefore: before.at(-1)!,
    firstAfter: after[0]!,
    runsBefore: before.length,
    runsAfter: after.length,
    levelBefore: geo(before),
    levelAfter: geo(after),
  };
}

/** Changes in every series (each on its own machine and design: series never mix them). */
export function analyzeSeries(series: readonly Series[], rule: ChangeRule = changeRule()): AnalyzedSeries[] {
  return series.map((s) => {
    const skipped = Math.max(0, s.points.length - DEFAULTS.history.maxPoints);
    const pts = s.points.slice(skipped);
    const changes =
      pts.length >= 2
        ? findChanges(
            pts.map((p) => p.value),
            FIGURES[s.key.figure].better,
            rule,
          )
        : [];
    return { key: s.key, points: s.points, changes: changes.map((c) => place(s.points, skipped, c)), skipped };
  });
}

/** Runs in the order they started (the store's order). */
const byRun = (a: SeriesPoint, b: SeriesPoint) => (a.startedAt < b.startedAt ? -1 : a.startedAt > b.startedAt ? 1 : a.runId - b.runId);

/** The gate's verdict on one figure of the new run. */
export interface FigureCheck {
  scenario: string;
  target: string;
  figure: FigureName;
  /** The new run's value, and the history it was judged with (oldest first, the new run last). */
  value: number;
  history: SeriesPoint[];
  verdict: { status: 'too-short'; have: number; need: number } | { status: 'pass'; changes: PlacedChange[] } | { status: 'regression'; change: PlacedChange; changes: PlacedChange[] };
}

/**
 * A part of the machine that changed under the same hardware within the runs the gate looks at: its
 * value then and now, and where. `counted`: the part is one `sameMachine` matches, so the runs before
 * the change are another machine's and the gate judges without them.
 */
export interface MachineChange {
  part: SoftwarePart;
  from: string | null;
  to: string | null;
  /** The last run with the old value, and how many runs of the new value came after it before this one. */
  lastBefore: SeriesPoint;
  runsSince: number;
  counted: boolean;
}

export interface CheckOutcome {
  fingerprint: string;
  designKey: string;
  /** What of the machine had to match (`--same-machine`), and what changed under the same hardware. */
  sameMachine: MachinePart[];
  machineChanges: MachineChange[];
  checks: FigureCheck[];
  regressions: FigureCheck[];
  /** The most history runs a figure still needs before it can be judged (0 when every figure could be). */
  need: number;
  /** The A/A coverage check over every run kept of this machine fingerprint, this run included. */
  control: MachineCoverage;
}

/**
 * Judge a new run against the recent runs of the same machine fingerprint and design: per figure,
 * the last `window` runs that started before it (and, with `since`, no earlier than that run),
 * then the new run, by the change-point rule (`judgeNewest`).
 */
export function checkRun(
  store: HistoryStore,
  rec: RunRecord,
  o: {
    rule?: ChangeRule;
    window?: number;
    minRuns?: number;
    sinceStartedAt?: string;
    figures?: readonly FigureName[];
    sameMachine?: readonly MachinePart[];
    coverage?: CoverageRule;
  } = {},
): CheckOutcome {
  const rule = o.rule ?? changeRule();
  const window = o.window ?? DEFAULTS.history.gate.window;
  const minRuns = o.minRuns ?? DEFAULTS.history.gate.minRuns;
  const parts: MachinePart[] = [...new Set<MachinePart>(['cpu', ...(o.sameMachine ?? DEFAULTS.history.gate.sameMachine)])];
  const self = store.runIdOf(rec.resultKey);
  // Every run of this hardware and design; those that differ in a part `parts` names are another machine's.
  const onHardware = store.series({
    hardware: hardwareOf(rec.machine),
    designKey: rec.designKey,
    ...(self !== null ? { excludeRunId: self } : {}),
    ...(o.sinceStartedAt ? { sinceStartedAt: o.sinceStartedAt } : {}),
  });
  const all = onHardware.filter((s) => sameMachine(s.key.machine, rec.machine, parts));
  const checks: FigureCheck[] = [];
  for (const f of rec.figures) {
    if (o.figures && !o.figures.includes(f.figure)) continue;
    const mine = all.filter((x) => x.key.scenario === f.scenario && x.key.target === f.target && x.key.reference === f.reference && x.key.load === f.load && x.key.figure === f.figure);
    const earlier = mine
      .flatMap((s) => s.points)
      .filter((p) => p.startedAt < rec.startedAt)
      .sort(byRun)
      .slice(-window);
    const newest: SeriesPoint = { runId: self ?? -1, startedAt: rec.startedAt, commit: rec.commit, branch: rec.branch, value: f.point, lo: f.lo, hi: f.hi };
    const history = [...earlier, newest];
    const v = judgeNewest(
      history.map((p) => p.value),
      FIGURES[f.figure].better,
      { ...rule, minRuns: minRuns + 1 },
    );
    const verdict: FigureCheck['verdict'] =
      v.status === 'too-short'
        ? { status: 'too-short', have: earlier.length, need: minRuns }
        : v.status === 'pass'
          ? { status: 'pass', changes: v.changes.map((c) => place(history, 0, c)) }
          : { status: 'regression', change: place(history, 0, v.change), changes: v.changes.map((c) => place(history, 0, c)) };
    checks.push({ scenario: f.scenario, target: f.target, figure: f.figure, value: f.point, history, verdict });
  }
  const short = checks.flatMap((c) => (c.verdict.status === 'too-short' ? [c.verdict.need - c.verdict.have] : []));
  return {
    fingerprint: rec.fingerprint,
    designKey: rec.designKey,
    sameMachine: parts,
    machineChanges: machineChanges(onHardware, rec, parts, window),
    checks,
    regressions: checks.filter((c) => c.verdict.status === 'regression'),
    need: short.length ? Math.max(...short) : 0,
    control: machineCoverageOf(store, rec, o.coverage),
  };
}

/**
 * The A/A coverage check over every run kept of `rec`'s machine fingerprint, `rec` included (once,
 * stored or not), its design's round 1 pooled over those runs, and how often their forecasts held:
 * what `history check` and a run's report with `--history` say of the machine.
 */
export function machineCoverageOf(store: HistoryStore, rec: RunRecord, rule: CoverageRule = coverageRule()): MachineCoverage {
  const kept = store.controls({ fingerprint: rec.fingerprint });
  const runs = [...kept, ...(store.runIdOf(rec.resultKey) === null ? [rec] : [])];
  return {
    fingerprint: rec.fingerprint,
    machine: rec.machine,
    ...coverageOf(
      runs.map((s) => s.control),
      rule,
      runs,
      rec.designKey,
    ),
  };
}

/**
 * What changed under the same hardware within the last `window` runs of this design before `rec`:
 * per software part, the newest run whose value differs from the new run's. A change that old runs
 * of the hardware saw but the window no longer holds is not news.
 */
function machineChanges(onHardware: readonly Series[], rec: RunRecord, parts: readonly MachinePart[], window: number): MachineChange[] {
  const runs = new Map<number, { point: SeriesPoint; machine: MachineFacts }>();
  for (const s of onHardware) for (const p of s.points) if (p.startedAt < rec.startedAt) runs.set(p.runId, { point: p, machine: s.key.machine });
  const recent = [...runs.values()].sort((a, b) => byRun(a.point, b.point)).slice(-window);
  const out: MachineChange[] = [];
  for (const part of ['kernel', 'node', 'python'] as const) {
    const fact = MACHINE_PARTS[part][0];
    const at = recent.findLastIndex((r) => r.machine[fact] !== rec.machine[fact]);
    if (at < 0) continue;
    const then = recent[at]!;
    out.push({ part, from: then.machine[fact], to: rec.machine[fact], lastBefore: then.point, runsSince: recent.length - 1 - at, counted: parts.includes(part) });
  }
  return out;
}
