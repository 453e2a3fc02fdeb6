import {
  DEFAULTS,
  forecastOutcome,
  median,
  methodSentences,
  twinOf,
  controlTwin,
  POOLED_REFERENCE,
  upgradeResult,
  warmupWindows,
  type BenchResult,
  type Estimate,
  type FailedWindow,
  type OkWindow,
  type PairSummary,
  type ProfileRecord,
  type Ranking,
  type RunForecast,
  type StopRecord,
  type TargetInfo,
} from '@benchsuite/sdk';
import { budgetTexts, noteText, type Note } from './notes.js';
import { DASH, cpuList, fmtBytes, fmtDate, fmtDuration, fmtHalfWidth, fmtInt, fmtPct, plural } from './units.js';
import { withReference } from './reference.js';
import type { HistoryCoverageView, HistoryRuleView, HistorySeriesView } from './history.js';

/** Options of the result renderers (Markdown, HTML, terminal). */
export interface ReportOptions {
  /** Document title; default `benchsuite — <suite>`. */
  title?: string;
  /**
   * Re-estimate the relative figures against another target of the run (from the raw windows, with
   * the run's own estimator and seed); default: the run's reference (`design.reference`).
   */
  reference?: string;
  /**
   * Collapsed stacks of the profiles (folded text), keyed by each profile summary's `stacksFile`
   * (relative to `results.json`, as `stacksFilesOf` lists them). Renderers never read files: the
   * caller reads them next to `results.json` and passes them here. Without them the HTML report
   * draws no flame graph and says which file it needs; every other profile figure is in the result.
   */
  stacks?: Readonly<Record<string, string>>;
  /**
   * Each pair's series from the history (this run among the earlier runs of its machine and
   * design), with the changes found; the HTML report draws them. The caller reads the history.
   */
  history?: {
    series: readonly HistorySeriesView[];
    rule: HistoryRuleView;
    /** The run's machine: its A/A coverage over the runs kept, its design's round 1 pooled over them and its forecasts' share held (said under the section's first line). */
    control?: HistoryCoverageView;
  };
}

export type ScenarioInfo = BenchResult['scenarios'][number];
export type Failure = FailedWindow['failure'];
type StepSummary = PairSummary['steps'][number];

/** A failure with where it happened (`block 2, round 3` or `block 2, start`). */
interface FailureView {
  where: string;
  failure: Failure;
}

/** A target measured in a scenario (at least one usable window). */
export interface PairRow {
  target: string;
  summary: PairSummary;
  isReference: boolean;
  /** Place in the scenario's ranking (the best rank its interval allows); null when unranked. */
  place: number | null;
  /** The worst rank its interval allows; null when unranked, or for a result that partitioned its targets into places (before 2026-12-04). */
  worst: number | null;
  /** The place is shared: a range of ranks, or (older results) a place of several targets. */
  tie: boolean;
  failures: FailureView[];
  /** Warnings about this pair's figures, rendered with `noteText`. */
  notes: Note[];
}

/** One connection step of a stepped load for one target. */
export interface StepRow {
  target: string;
  isReference: boolean;
  step: StepSummary;
}

/** One line of a ranking: a target in a place. */
export interface PlaceRow {
  place: number;
  /** As `PairRow.worst`. */
  worst: number | null;
  tie: boolean;
  target: string;
  isReference: boolean;
  /** Throughput relative to the reference (null for the reference itself, which is 1 by definition). */
  relative: Estimate | null;
  rps: Estimate | null;
}

export type MissingKind = 'skipped' | 'setup-failed' | 'verify-failed' | 'failed' | 'not-run';

/** A target with no figures in a scenario, and why: never silently absent. */
interface MissingRow {
  target: string;
  kind: MissingKind;
  reason: string;
  /** Verify diff or the server's last output, when there is one. */
  detail?: string;
}

/** One profile of a scenario (`--profile`): a target's record, with its collapsed stacks when given. */
export interface ProfileView {
  target: string;
  record: ProfileRecord;
  /** The summary of an `ok` record; null when unavailable, failed or without a summary. */
  summary: NonNullable<ProfileRecord['summary']> | null;
  /** Folded text from `ReportOptions.stacks` for the summary's `stacksFile`; null when not given. */
  stacks: string | null;
  /** The profiler's cost (ok), or why there is no profile (unavailable, failed). */
  note: Note;
}

export interface ScenarioView {
  info: ScenarioInfo;
  rows: PairRow[];
  /** Per-step rows (target-major); empty unless the load has more than one connection step. */
  steps: StepRow[];
  places: PlaceRow[];
  rankingMethod: string | null;
  missing: MissingRow[];
  stop: StopRecord | null;
  /** Scenario-level notes (single block). */
  notes: Note[];
  /** Profiles under `--profile`, in the order of `rows`, then of the run's targets. */
  profiles: ProfileView[];
}

/** A labelled fact of the run header; a list renders as one line per item. */
export interface Fact {
  label: string;
  text: string | string[];
}

export interface ReportModel {
  result: BenchResult;
  title: string;
  reference: string;
  /** The run at a glance: design, driver, pinning, steal, precision, stops, overhead, runner. */
  facts: Fact[];
  /** Run-level warnings (interrupted, not pinned, steal, warm-up). */
  notes: Note[];
  /** The run's CoV verdict, the headline word (null for an old result that has none). */
  verdict: Note | null;
  /** Remarks every reader needs (relative figures are side-by-side ratios; noise labels). */
  remarks: Note[];
  scenarios: ScenarioView[];
  targetsWithCosts: TargetInfo[];
  metadataKeys: string[];
  wallSec: number;
  /** The pairs' series from the history, when the caller passed them (`ReportOptions.history`). */
  history: ReportOptions['history'] | null;
}

export const MISSING_LABEL: Record<MissingKind, string> = {
  skipped: 'skipped',
  'setup-failed': 'setup failed',
  'verify-failed': 'failed verify',
  failed: 'failed',
  'not-run': 'not run',
};

/** A failure in one line: `crash: server exited (signal SIGKILL)`. */
/** A place is shared: a range of ranks, or (a result before ranges, without `worst`) a place of several targets. */
const shared = (p: Ranking['places'][number]): boolean => (p.worst === undefined ? p.targets.length > 1 : p.worst > p.place);

/**
 * A place as the report writes it: its range of ranks ("2–5"), or one rank; a result before ranges
 * marks a shared place with `mark` ("=" in a table's column, " (tie)" in a ranking).
 */
export function placeText(r: Pick<PlaceRow, 'place' | 'worst' | 'tie'>, mark: string): string {
  if (r.worst !== null) return r.worst > r.place ? `${r.place}–${r.worst}` : String(r.place);
  return `${r.place}${r.tie ? mark : ''}`;
}

export function failureText(f: Failure): string {
  const how = f.signal ? `signal ${f.signal}` : f.exitCode != null ? `exit code ${f.exitCode}` : null;
  return `${f.phase}: ${f.message}${how && !f.message.includes(how) ? ` (${how})` : ''}`;
}

function pinningText(p: BenchResult['environment']['pinning']): string {
  if (!p.enabled) return noteText({ kind: 'not-pinned', reason: p.reason ?? 'no reason recorded' });
  return `${p.tool ?? 'on'}: server CPUs ${cpuList(p.serverCpus)}, loader CPUs ${cpuList(p.loaderCpus)}`;
}

/**
 * The driver, why it was chosen, and its ceiling on this machine when known. Its flags are those of
 * its closed-loop windows: a capacity run's (`flags: false`) are only its warm-ups', so not shown.
 */
function driverText(d: BenchResult['environment']['driver'], o: { flags: boolean } = { flags: true }): string {
  const name = `${d.name} ${d.version}${o.flags && d.flags.length ? ` (${d.flags.join(' ')})` : ''}`;
  return noteText({ kind: 'driver-choice', driver: name, reason: d.reason }) + (d.ceilingNote ? `; ${d.ceilingNote}` : '');
}

/** `0.8 s windows`, or `windows of 2000 requests` when every scenario sends a fixed count (`--requests`). */
function windowsText(r: BenchResult): string {
  const counts = [...new Set(r.scenarios.map((s) => s.load.requests))];
  return windowsPhrase(r.design.windowSec, counts.length === 1 ? counts[0] : undefined);
}

const windowsPhrase = (windowSec: number, requests: number | undefined) => (requests ? `windows of exactly ${requests} requests each (per connection step)` : `${+windowSec.toFixed(3)} s windows`);
const range = (x: { min: number; max: number }) => (x.min === x.max ? String(x.min) : `${x.min}–${x.max}`);

type DesignShape = Pick<
  BenchResult['design'],
  'windowSec' | 'rounds' | 'blocks' | 'warmup' | 'processes' | 'freshWarmup' | 'warmupRequests' | 'carriedWarmupRounds' | 'carriedWarmupWindowSec' | 'carriedWarmupServed'
> &
  Partial<Pick<BenchResult['design'], 'method' | 'replicas'>>;

/** With replicas, what a block holds of each target: ` (3 processes of every target)`; nothing with one. */
const replicasPhrase = (d: DesignShape) => ((d.replicas ?? 1) > 1 ? `, ${d.replicas} processes of every target in each, a round's figure their geometric mean` : '');

/** How a block's fresh processes were warmed, as a phrase. */
const warmupPhrase = (d: DesignShape) => `warm-up ${freshWarmupPhrase(d)}`;
const freshWarmupPhrase = (d: DesignShape) => {
  const w = d.warmup;
  const secs = `${range({ min: w.minSec, max: w.maxSec })} s`;
  const until = w.served ? `until it has served ${fmtInt(w.served)} requests` : `until per-second req/s is within ±${fmtPct(w.tolerance, 0)}`;
  return d.freshWarmup === 'rotation'
    ? `${secs} per target in each block, the targets in rotation (one ${+warmupWindows(w).windowSec.toFixed(3)}-s window each per round), ${until}`
    : `${secs} per block ${until}, one target after another, then a wake-up window each`;
};

/** How a block's processes are warmed, fresh and (shared processes) before each later scenario: `--dry-run`'s warm-up line, `2–3 s per target …`. */
export function warmupText(d: DesignShape): string {
  return d.processes === 'shared' ? `${freshWarmupPhrase(d)}, ${carriedPhrase(d)}` : freshWarmupPhrase(d);
}

const carriedPhrase = (d: DesignShape) =>
  d.warmupRequests === 'all-scenarios' ? "on every scenario's requests of the block at once, so no rotation round before a later scenario" : carriedRotationPhrase(d);
const carriedRotationPhrase = (d: DesignShape) =>
  `then ${plural(d.carriedWarmupRounds, 'rotation round')} of ${+d.carriedWarmupWindowSec.toFixed(3)}-s windows before each later scenario` +
  (d.carriedWarmupServed ? `, more for a process until they have served ${fmtInt(d.carriedWarmupServed)} requests (within ${+d.warmup.maxSec.toFixed(3)} s)` : '');

/** The design in one sentence: the run facts of every report. */
function designText(d: DesignShape, o: { windows: string }): string {
  return (
    `${o.windows}; ${range(d.rounds)} round${d.rounds.max === 1 ? '' : 's'} per block, ${methodSentences(d.method).design}; ` +
    (d.processes === 'shared'
      ? `${range(d.blocks)} block${d.blocks.max === 1 ? '' : 's'} per scenario, each of fresh server processes that serve every scenario in turn (a seeded order per block)${replicasPhrase(d)}; ${warmupPhrase(d)}, ${carriedPhrase(d)}`
      : `${range(d.blocks)} block${d.blocks.max === 1 ? '' : 's'} (fresh server processes) per scenario${replicasPhrase(d)}; ${warmupPhrase(d)}`)
  );
}

/** The design in one short line: windows, rounds, blocks and who a block's fresh processes serve (the CLI's header and `--dry-run`). */
function designBrief(d: DesignShape, o: { windowSec?: number | undefined; requests?: number | undefined } = {}): string {
  const blocks = `${range(d.blocks)} block${d.blocks.max === 1 ? '' : 's'} of fresh processes`;
  return (
    `${windowsPhrase(o.windowSec ?? d.windowSec, o.requests)}, ${range(d.rounds)} round${d.rounds.max === 1 ? '' : 's'} per block, ` +
    (d.processes === 'shared' ? `${blocks} shared by every scenario` : `${blocks} per scenario`) +
    replicasPhrase(d)
  );
}

/** What the CLI says of a run before it starts: the suite, the targets, the budget and what it buys, the design, the driver and why. */
export interface RunOutlook {
  suite: string;
  scenarios: readonly string[];
  targets: readonly string[];
  reference: string;
  design: DesignShape & Pick<BenchResult['design'], 'precision' | 'budgetSec'>;
  /** The measured length of a window, when the flags override the design's. */
  windowSec?: number | undefined;
  /** Requests per window (`--requests`), instead of a length. */
  requests?: number | undefined;
  /** The budget planner's estimate of the minimum design, s. */
  minimumSec: number;
  /** The half-width the budget is expected to reach (`BudgetPlan.expectedHalfWidth`); nothing is said without it. */
  expectedHalfWidth?: number | undefined;
  /** What the budget buys and what the goals would take (`BudgetPlan.forecast`): said on its own line when present. */
  forecast?: RunForecast | undefined;
  driver: { name: string; reason: string };
  /** A capacity run (`--slo`): the SLO, the search's settings and how long all its searches take (it is not fitted to the budget). */
  capacity?: { slo: string; settings: CapacitySearch; probeSec: number; typicalSec: number; maxSec: number } | undefined;
}

type CapacitySearch = NonNullable<BenchResult['design']['capacity']>;

/**
 * A capacity search as a run does it, in one sentence (a `--slo` run's header and the report's
 * design fact): `3 blocks of fresh processes per target, each warmed closed-loop 2–3 s, then
 * open-loop probes of 2 s from 50% of the warm-up's req/s, ×2 until the SLO fails, …`.
 */
function capacitySearchText(c: CapacitySearch, probeSec: number, d: Pick<DesignShape, 'warmup'>): string {
  return (
    `${plural(c.blocks, 'block')} of fresh processes per target, each warmed closed-loop ${range({ min: d.warmup.minSec, max: d.warmup.maxSec })} s, then open-loop probes of ${+probeSec.toFixed(2)} s: ` +
    `from ${fmtPct(c.startShare, 0)} of the warm-up's req/s, ×${c.growth} until the SLO fails, then halving the bracket to within ${fmtPct(c.resolution, 0)}` +
    `${c.confirmFailures ? ', each failed rate probed again' : ''}; at most ${c.maxProbes} probes per block; a probe that delivers under ${fmtPct(c.keptUpShare, 0)} of its rate fails`
  );
}

/**
 * What a budget buys, in one line (the header's `expects` line and the measured forecast after the
 * first blocks): `about ±6.1% for a typical pair (5 blocks × 3 rounds, time-sliced, typical VM
 * noise); ±5.0% needs about 24 min; ±2.0% would need more blocks than allowed`.
 */
export function forecastText(f: RunForecast): string {
  const how = methodSentences(f.method).forecast;
  const source = f.source === 'measured' ? 'noise measured so far' : 'typical VM noise';
  const priced = f.budgetFor.filter((g) => g.budgetSec !== null).map((g) => `${fmtHalfWidth(g.precision)} needs about ${fmtDuration(Math.round(g.budgetSec!))}`);
  const beyond = f.budgetFor.filter((g) => g.budgetSec === null).map((g) => fmtHalfWidth(g.precision));
  const goals = [...priced, ...(beyond.length ? [`${beyond.join(' or ')} would need more blocks than allowed`] : [])];
  return `about ${saidText(f)} for a typical pair (${plural(f.blocks, 'block')} × ${plural(f.rounds, 'round')}, ${how}, ${source})${goals.length ? `; ${goals.join('; ')}` : ''}`;
}

/**
 * A forecast's figure as said: with a range from its record (`likelyRange`: the forecast before
 * the run, and a measured one after block 2), the range's centre, the noise model's figure
 * corrected by how far such forecasts fell from what their runs reached, then the range and the
 * model's own figure: `±9.1% (80% range from its record: ±6.1% to ±13.8%; the measured noise alone
 * prices ±4.4%)`. The model's figure alone sat at or under the range's low end, a figure the run
 * would most likely not reach. Without a range (results before 2026-12-02 22:00), the model's figure.
 */
const saidText = (f: Pick<RunForecast, 'halfWidth' | 'likely' | 'source'>): string =>
  f.likely
    ? `${fmtHalfWidth(Math.sqrt(f.likely.low * f.likely.high))} (${fmtPct(f.likely.coverage, 0)} range from its record: ${fmtHalfWidth(f.likely.low)} to ${fmtHalfWidth(f.likely.high)}; the ${f.source === 'measured' ? 'measured noise' : "method's typical noise"} alone prices ${fmtHalfWidth(f.halfWidth)})`
    : fmtHalfWidth(f.halfWidth);

/** The targets a run measures, its A/A control apart: `6 targets + an A/A control`. */
const targetsText = (o: Pick<RunOutlook, 'targets' | 'reference'>): string => {
  const twin = o.targets.includes(twinOf(o.reference));
  return `${plural(o.targets.length - (twin ? 1 : 0), 'target')}${twin ? ' + an A/A control' : ''}`;
};

/** The run's header in a few short lines (label, text): suite, targets, budget, design, driver. */
export function runHeaderFacts(o: RunOutlook): Fact[] {
  const d = o.design;
  if (o.capacity) return capacityHeaderFacts(o, o.capacity);
  const expected = o.expectedHalfWidth === undefined || o.forecast ? '' : ` (expected: about ${fmtHalfWidth(o.expectedHalfWidth)})`;
  return [
    { label: 'suite', text: `${o.suite}: ${plural(o.scenarios.length, 'scenario')} × ${targetsText(o)}` },
    { label: 'targets', text: o.targets.map((t) => (t === o.reference ? `${t} (reference)` : t === twinOf(o.reference) ? `${t} (A/A control)` : t)).join(', ') },
    {
      label: 'budget',
      text: `${fmtDuration(d.budgetSec)} to bring every interval within ${fmtHalfWidth(d.precision)}${expected}; the minimum design takes about ${fmtDuration(Math.round(o.minimumSec))}`,
    },
    ...(o.forecast ? [{ label: 'expects', text: forecastText(o.forecast) }] : []),
    { label: 'design', text: designBrief(d, o) },
    { label: 'driver', text: `${o.driver.name}: ${o.driver.reason}` },
  ];
}

/** A capacity run's header: the SLO, how long the search takes, what it gives, how it searches. */
function capacityHeaderFacts(o: RunOutlook, c: NonNullable<RunOutlook['capacity']>): Fact[] {
  const runs = `${o.scenarios.length > 1 ? `${plural(o.scenarios.length, 'scenario')} × ` : ''}${plural(o.targets.length, 'target')} × ${plural(c.settings.blocks, 'block')}`;
  return [
    { label: 'suite', text: `${o.suite}: ${plural(o.scenarios.length, 'scenario')} × ${plural(o.targets.length, 'target')}` },
    { label: 'targets', text: o.targets.join(', ') },
    { label: 'slo', text: `${c.slo}: each target's capacity is the highest offered rate that meets it` },
    {
      label: 'budget',
      text: `not used: a capacity search takes the blocks its interval needs, about ${fmtDuration(Math.round(c.typicalSec))} here (${runs}; at most ${fmtDuration(Math.round(c.maxSec))})`,
    },
    {
      label: 'expects',
      text: `each target's capacity: the median over its ${plural(c.settings.blocks, 'block')}, with a 95% interval over them (Student's t, widened to the bisection brackets); a lower bound (≥) where the loader, not the server, was the limit`,
    },
    { label: 'design', text: capacitySearchText(c.settings, c.probeSec, o.design) },
    { label: 'driver', text: `${o.driver.name}: ${o.driver.reason}` },
  ];
}

/** When a run stops measuring a scenario, in one sentence (the CLI's header and `--dry-run`). */
export function stoppingText(d: Pick<BenchResult['design'], 'precision' | 'budgetSec' | 'stealThreshold'>): string {
  return `blocks until every headline interval is within ${fmtHalfWidth(d.precision)} or the ${fmtDuration(d.budgetSec)} budget is spent, as many as fit before rounds beyond the minimum; windows over ${fmtPct(d.stealThreshold, 0)} CPU steal replaced`;
}

const settlePhrase = (first: number, later: number) => (first === later ? `${first} s settle before each step` : `${first} s settle, ${later} s before each later step`);

/** `50 connections, 1 s windows` / `10 → 50 → 200 connections, 1 s windows, one per step (0.3 s settle, 0.1 s before each later step)` */
export function loadText(info: ScenarioInfo): string {
  const l = info.load;
  const conns = l.connections.length ? l.connections.join(' → ') : '?';
  const stepped = l.connections.length > 1;
  return (
    `${conns} connection${l.connections.length === 1 && l.connections[0] === 1 ? '' : 's'}, ${l.requests ? `windows of ${l.requests} requests` : `${l.durationSec} s windows`}` +
    `${stepped ? `, one per step${l.warmupSec ? ` (${settlePhrase(l.warmupSec, l.stepWarmupSec ?? l.warmupSec)})` : ''}` : ''}${l.rate ? `, ${l.rate} req/s target rate` : ''}`
  );
}

/** What took a profile, in one line: `profiler node: 2 950 samples (every 1 ms) over 3.0 s, 12.0% idle; collapsed stacks in profiles/x.collapsed`. */
export function profileFacts(p: NonNullable<ProfileRecord['summary']>): string {
  const every = p.intervalUs ? ` (every ${p.intervalUs >= 1000 ? `${+(p.intervalUs / 1000).toFixed(2)} ms` : `${p.intervalUs} µs`})` : '';
  const over = p.durationSec !== undefined ? ` over ${p.durationSec.toFixed(1)} s` : '';
  return `profiler ${p.profiler}: ${fmtInt(p.samples)} samples${every}${over}, ${fmtPct(p.idle)} idle${p.stacksFile ? `; collapsed stacks in ${p.stacksFile}` : ''}`;
}

/** Where a failed window sits in the design. */
const windowWhere = (w: { block: number; round: number }) => `block ${w.block}, round ${w.round}`;

function failuresOf(result: BenchResult, scenario: string, target: string): FailureView[] {
  const out: FailureView[] = [];
  for (const b of result.blocks) {
    if (b.scenario !== scenario) continue;
    for (const t of b.targets) if (t.target === target && t.status === 'failed' && t.failure) out.push({ where: `block ${b.block}, start`, failure: t.failure });
  }
  for (const w of result.windows) {
    if (w.scenario === scenario && w.target === target && w.status === 'failed') out.push({ where: windowWhere(w), failure: w.failure });
  }
  return out;
}

/** Why a (scenario, target) pair has no figures. */
function missingFor(result: BenchResult, scenario: string, target: TargetInfo, failures: FailureView[]): MissingRow {
  if (target.status === 'skipped') return { target: target.name, kind: 'skipped', reason: target.reason ?? 'skipped (no reason given)' };
  if (target.status === 'failed') return { target: target.name, kind: 'setup-failed', reason: target.reason ?? 'setup failed (no reason given)' };
  const verify = result.verify.find((v) => v.scenario === scenario && v.target === target.name && !v.ok);
  if (verify) return { target: target.name, kind: 'verify-failed', reason: verify.reason ?? 'the response did not match the scenario', ...(verify.diff ? { detail: verify.diff } : {}) };
  const first = failures[0];
  if (first) {
    return {
      target: target.name,
      kind: 'failed',
      reason: `${plural(failures.length, 'failure')}, no usable window — first (${first.where}): ${failureText(first.failure)}`,
      ...(first.failure.stderrTail ? { detail: first.failure.stderrTail } : {}),
    };
  }
  const excluded = result.windows.filter((w) => w.scenario === scenario && w.target === target.name && w.status === 'ok').length;
  if (excluded) return { target: target.name, kind: 'failed', reason: `all ${plural(excluded, 'window')} were left out for CPU steal` };
  return { target: target.name, kind: 'not-run', reason: result.interrupted ? 'not run: the run was interrupted before this pair' : 'no window was recorded for this pair' };
}

function pairNotes(result: BenchResult, s: PairSummary, stop: StopRecord | null): Note[] {
  const notes: Note[] = [];
  // The thresholds this result was measured with, not today's defaults.
  const th = result.design;
  const mine = (f: (w: OkWindow) => boolean) => result.windows.filter((w): w is OkWindow => w.status === 'ok' && w.scenario === s.scenario && w.target === s.target && f(w));
  if (s.windows.clientBound > 0) {
    const busiest = Math.max(0, ...mine((w) => w.clientBound === true).map((w) => w.resources.loaderBusiestCore));
    notes.push({ kind: 'client-bound', windows: s.windows.clientBound, of: s.windows.ok, busiest, threshold: th.clientBoundBusy });
  }
  if (s.windows.clientBoundUnknown) notes.push({ kind: 'client-bound-unknown', windows: s.windows.clientBoundUnknown, of: s.windows.ok });
  if (s.windows.backendBound > 0) {
    const busiest = Math.max(0, ...mine((w) => w.backendBound).map((w) => w.resources.serviceBusy));
    notes.push({ kind: 'backend-bound', windows: s.windows.backendBound, of: s.windows.ok, busiest, threshold: th.backendBoundBusy });
  }
  if (s.windows.serverNotSaturated > 0) {
    const shares = mine((w) => w.serverNotSaturated).map((w) => w.resources.serverCoreShare);
    const share = shares.length ? shares.reduce((a, b) => a + b, 0) / shares.length : 0;
    notes.push({ kind: 'server-not-saturated', windows: s.windows.serverNotSaturated, of: s.windows.ok, share, cores: Math.max(1, s.serverCpus.length), threshold: th.serverSaturatedShare });
  }
  if (s.windows.loaderBound) {
    const bound = mine((w) => w.loaderBound === true);
    const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
    notes.push({
      kind: 'loader-bound',
      windows: s.windows.loaderBound,
      of: s.windows.ok,
      share: mean(bound.map((w) => w.resources.serverCoreShare)),
      busiest: Math.max(0, ...bound.map((w) => Math.max(w.resources.loaderBusiestCore, w.resources.loaderThreadBusy))),
      cores: Math.max(1, s.serverCpus.length),
      serverShare: th.loaderBound.serverShare,
      loaderBusy: th.loaderBound.loaderBusy,
    });
  }
  // A result with a share recorded the flag it was judged by (both came with loader floors).
  if (s.loaderShare?.flagged && th.loaderShareFlag !== undefined) {
    const { share, connections, floorRps, rps } = s.loaderShare;
    notes.push({ kind: 'loader-share', share, connections, floorRps, rps, threshold: th.loaderShareFlag });
  }
  if (!s.precision.met && s.precision.reached !== null) {
    notes.push({
      kind: 'precision-not-met',
      reached: s.precision.reached,
      target: s.precision.target,
      reason: noteText({ kind: 'stop-reason', reason: stop?.reason ?? 'budget', blocks: stop?.blocks ?? s.blocks }),
    });
  }
  if (s.windows.failed > 0) notes.push({ kind: 'failed-windows', windows: s.windows.failed, of: s.windows.ok + s.windows.failed });
  const warm = result.blocks.filter((b) => b.scenario === s.scenario).flatMap((b) => b.targets.filter((t) => t.target === s.target && t.status === 'ok' && !t.carried));
  const unsteady = warm.filter((t) => !t.steady).length;
  if (unsteady) notes.push({ kind: 'warmup-not-steady', target: s.target, blocks: unsteady, of: warm.length, tolerance: result.design.warmup.tolerance, served: result.design.warmup.served });
  return notes;
}

/** When the run ran and what: the first facts of every report. */
const whenFacts = (r: BenchResult, wallSec: number): Fact[] => [
  { label: 'Date', text: `${fmtDate(r.startedAt)} → ${fmtDate(r.finishedAt)} (${fmtDuration(wallSec)})${r.resumed ? ', resumed after an interruption' : ''}` },
  { label: 'Suite', text: `${r.suite} (seed ${r.seed})` },
];

/** What a reader must know of a run's capacity searches: loader-bound figures and how they were told, failed blocks, probes stolen from. */
function capacityNotes(result: BenchResult): Note[] {
  const all = result.capacity ?? [];
  const notes: Note[] = [];
  const loaderBound = all.filter((c) => c.bound === 'loader' && c.loaderBoundAt !== undefined);
  if (loaderBound.length) {
    const evidence = [...new Set(loaderBound.flatMap((c) => c.blocks.flatMap((b) => b.probes.flatMap((p) => (p.loaderBound && p.loaderEvidence ? [p.loaderEvidence] : [])))))];
    notes.push({
      kind: 'capacity-loader-bound',
      driver: loaderBound[0]!.driver,
      pairs: loaderBound.map((c) => ({ scenario: c.scenario, target: c.target, capacity: c.capacity, at: c.loaderBoundAt! })),
      ...(evidence.length ? { evidence: evidence.sort() } : {}),
    });
  }
  const failed = all.flatMap((c) => c.blocks.flatMap((b) => (b.failure !== undefined ? [{ scenario: c.scenario, target: c.target, block: b.block, message: b.failure }] : [])));
  if (failed.length) notes.push({ kind: 'capacity-blocks-failed', blocks: failed });
  const probes = all.flatMap((c) => c.blocks.flatMap((b) => b.probes));
  const repeated = probes.filter((p) => p.steal === 'repeated').length;
  if (repeated) notes.push({ kind: 'capacity-steal', repeated, judged: probes.filter((p) => p.steal === 'judged').length, threshold: result.design.stealThreshold });
  return notes;
}

/**
 * The reference, and what a ratio divides by: with the A/A control (from the runs whose ratio
 * estimates say so, `POOLED_REFERENCE`), the geometric mean of its two processes in each round.
 */
function referenceText(r: BenchResult): string {
  const twin = controlTwin(r.design);
  const pooled = twin !== undefined && r.summaries.some((s) => s.relativeRps?.method.includes(POOLED_REFERENCE));
  if (!pooled) return `${r.design.reference} (relative figures are ratios to it)`;
  return `${r.design.reference} (relative figures are ratios to it: in each round to the geometric mean of its two processes, ${r.design.reference} and its A/A twin ${twin}, so neither process's own level moves a block's ratios alone)`;
}

/** A run of capacity searches only (`--slo`): no windows of rounds, so no ratios, rounds or precision target. */
const isCapacityRun = (r: BenchResult) => (r.capacity?.length ?? 0) > 0 && r.summaries.length === 0;

/** A capacity run's facts: its search, its SLO, and the run's environment and time. */
function capacityRunFacts(r: BenchResult, wallSec: number): Fact[] {
  const d = r.design;
  const env = r.environment;
  const slos = [...new Set(r.capacity!.map((c) => c.slo))];
  const probes = r.capacity!.flatMap((c) => c.blocks.flatMap((b) => b.probes));
  const steal = probes.flatMap((p) => (p.window?.status === 'ok' && p.window.resources.cpuSteal !== undefined ? [p.window.resources.cpuSteal] : []));
  return [
    ...whenFacts(r, wallSec),
    { label: 'SLO', text: slos.length === 1 ? `${slos[0]}: each target's capacity is the highest offered rate that meets it` : slos },
    { label: 'Design', text: d.capacity ? capacitySearchText(d.capacity, d.capacityProbeSec ?? DEFAULTS.capacity.probeSec, d) : 'a capacity search per target (its settings were not recorded)' },
    { label: 'Driver', text: driverText(env.driver, { flags: false }) },
    { label: 'Pinning', text: pinningText(env.pinning) },
    {
      label: 'Probes',
      text: `${probes.length} open-loop windows${steal.length ? `; CPU steal mean ${fmtPct(steal.reduce((a, x) => a + x, 0) / steal.length)}, max ${fmtPct(Math.max(...steal))}` : ''}`,
    },
    { label: 'Time', text: `${fmtDuration(r.runner.wallSec)} wall, ${fmtDuration(r.runner.loadSec)} under load` },
    ...cpuClockFacts(r),
    { label: 'Runner peak RSS', text: fmtBytes(r.runner.peakRssBytes) },
  ];
}

function designFacts(r: BenchResult, wallSec: number): Fact[] {
  if (isCapacityRun(r)) return capacityRunFacts(r, wallSec);
  const d = r.design;
  const o = r.overall;
  const env = r.environment;
  const failed = r.windows.filter((w) => w.status === 'failed').length;
  return [
    ...whenFacts(r, wallSec),
    {
      label: 'Design',
      text: designText(d, { windows: windowsText(r) }),
    },
    {
      label: 'Precision target',
      text:
        `95% interval half-width ≤ ${fmtHalfWidth(d.precision)} for every headline figure, within a budget of ${fmtDuration(d.budgetSec)}; ` +
        `ties inside ±${fmtPct(d.practicalBand)}; ${d.bootstrapResamples} bootstrap resamples`,
    },
    ...(d.intervalMethod ? [{ label: 'Intervals', text: `95%: ${d.intervalMethod}` }] : []),
    ...(d.budgetPlan && budgetTexts(d.budgetPlan, d.budgetSec).length ? [{ label: 'Budget plan', text: budgetTexts(d.budgetPlan, d.budgetSec) }] : []),
    ...(r.design.method ? [{ label: 'Rounds', text: methodSentences(r.design.method).rounds(r) }] : []),
    ...processesFacts(r),
    { label: 'Reference', text: referenceText(r) },
    ...(d.youngGenerationMb !== undefined
      ? [{ label: 'Node runtime', text: [noteText({ kind: 'young-generation', mb: d.youngGenerationMb }), noteText({ kind: 'memory-reducer', reducer: d.memoryReducer })] }]
      : []),
    { label: 'Driver', text: driverText(env.driver) },
    { label: 'Pinning', text: pinningText(env.pinning) },
    {
      label: 'CPU steal',
      text:
        noteText({ kind: 'steal', excluded: o.excludedSteal, of: o.windows, mean: o.meanSteal, max: o.maxSteal, threshold: d.stealThreshold }) +
        (o.excludedSteal
          ? `; ${plural(
              r.blocks.reduce((a, b) => a + b.extraRounds, 0),
              'extra round',
            )} replaced them`
          : ''),
    },
    {
      label: 'Precision reached',
      text: `${o.precisionMet} of ${plural(o.pairs, 'pair')} met ${fmtHalfWidth(d.precision)}; half-width median ${fmtHalfWidth(o.medianHalfWidth)}, worst ${fmtHalfWidth(o.worstHalfWidth)}`,
    },
    ...(o.verdict !== undefined ? [{ label: 'Verdict', text: noteText({ kind: 'run-verdict', verdict: o.verdict, bands: d.covBands }) }] : []),
    ...(r.control ? [{ label: 'A/A control', text: noteText({ kind: 'aa-control', control: r.control }) }] : []),
    ...(r.designBias ? [{ label: 'Design bias', text: noteText({ kind: 'design-bias', bias: r.designBias }) }] : []),
    ...warmupFacts(r),
    ...(o.limits ? [{ label: 'Interval width', text: noteText({ kind: 'interval-limits', limits: o.limits }) }] : []),
    ...forecastFacts(r),
    {
      label: 'Stopped',
      text: r.stops.length ? r.stops.map((s) => noteText(stopNote(s, d.precision))) : DASH,
    },
    {
      label: 'Windows',
      text: `${o.windows} measured, ${o.excludedSteal} left out for CPU steal, ${failed} failed${o.disturbed ? `; ${noteText({ kind: 'host-disturbed', ...o.disturbed, of: o.windows })}` : ''}`,
    },
    {
      label: 'Time',
      text:
        `${r.runner.wallSec > 0 ? `${fmtPct(r.runner.measuredSec / r.runner.wallSec, 0)} of the wall time inside measured windows: ` : ''}` +
        `${fmtDuration(r.runner.wallSec)} wall, ${fmtDuration(r.runner.loadSec)} under load, ${fmtDuration(r.runner.measuredSec)} measured; ` +
        processTimeClause(r) +
        `overhead ${o.overhead == null ? DASH : `${o.overhead.toFixed(2)}×`} (wall time ÷ time under load)`,
    },
    ...cpuClockFacts(r),
    { label: 'Runner peak RSS', text: fmtBytes(r.runner.peakRssBytes) },
  ];
}

/**
 * Where the wall time outside measured windows went to the blocks' processes: their warm-up windows
 * (each fresh or carried process's windows × the design's window length) and their starts (per
 * block part, the slowest fresh process's spawn to ready: they start together). The measured share
 * of a design with fresh processes per block is bound by these (issue 41); empty without blocks.
 */
function processTimeClause(r: BenchResult): string {
  const freshSec = warmupWindows(r.design.warmup).windowSec;
  let warmSec = 0;
  let startSec = 0;
  let timedStarts = false;
  for (const b of r.blocks) {
    const ok = b.targets.filter((t) => t.status === 'ok');
    warmSec += ok.reduce((a, t) => a + t.warmupRps.length * (t.carried ? r.design.carriedWarmupWindowSec : freshSec), 0);
    const starts = ok.filter((t) => !t.carried && t.startupMs !== undefined).map((t) => t.startupMs!);
    if (starts.length) timedStarts = true;
    startSec += Math.max(0, ...starts) / 1000;
  }
  if (!(warmSec > 0) || !(r.runner.wallSec > 0)) return '';
  const part = (sec: number) => `${fmtDuration(sec)} (${sec / r.runner.wallSec < 0.005 ? '<1%' : fmtPct(sec / r.runner.wallSec, 0)})`;
  // Results from before starts were timed say only the warm-ups.
  return `the servers took about ${part(warmSec)} warming up${timedStarts ? ` and ${part(startSec)} starting` : ''}; `;
}

/** What the fresh processes' warm-ups served (median per target) and how many ended at their maximum before they were warm. */
function warmupFacts(r: BenchResult): Fact[] {
  const fresh = r.blocks.flatMap((b) => b.targets.filter((t) => t.status === 'ok' && !t.carried && t.warmupRequests !== undefined));
  if (!fresh.length) return [];
  const byTarget = new Map<string, number[]>();
  for (const t of fresh) byTarget.set(t.target, [...(byTarget.get(t.target) ?? []), t.warmupRequests!]);
  return [
    {
      label: 'Warm-up',
      text: noteText({
        kind: 'warmup-served',
        served: r.design.warmup.served,
        targets: [...byTarget].map(([target, xs]) => ({ target, median: median(xs) })),
        cold: fresh.length,
        short: fresh.filter((t) => !t.steady).length,
      }),
    },
  ];
}

/** What the budget was expected to buy before the run and after its first blocks, beside what it reached. */
function forecastFacts(r: BenchResult): Array<{ label: string; text: string }> {
  const p = r.design.budgetPlan;
  if (!p?.forecast) return [];
  const said = [`about ${saidText(p.forecast)} before the run${p.forecast.likely ? '' : " (the method's typical noise)"}`];
  const m = p.measuredForecast;
  if (m) said.push(`${saidText(m)} from this run's own noise after its first blocks`);
  // What it reached, and where that fell against the last range said (`forecastOutcome`).
  const o = forecastOutcome(r)!;
  const reached = o.over === 'ratios' ? `${fmtHalfWidth(o.reached)} (median over the ${o.n} ratios to ${r.design.reference})` : `${fmtHalfWidth(o.reached)} (median over pairs)`;
  const held = o.fell === null ? '' : o.fell === 'inside' ? ', inside the range' : ', outside the range';
  return [{ label: 'Forecast', text: `${said.join(', ')}; reached ${reached}${held}` }];
}

/** Shared processes: how often each scenario met the block's processes fresh from their start. */
function processesFacts(r: BenchResult): Array<{ label: string; text: string }> {
  if (r.design.processes !== 'shared') return [];
  const byScenario = new Map<string, { first: number; of: number }>();
  for (const b of r.blocks) {
    if (b.position === undefined) continue;
    const x = byScenario.get(b.scenario) ?? { first: 0, of: 0 };
    x.of++;
    if (b.position === 1) x.first++;
    byScenario.set(b.scenario, x);
  }
  const firsts = [...byScenario.values()].map((x) => x.first);
  const range = firsts.length ? (Math.min(...firsts) === Math.max(...firsts) ? String(firsts[0]) : `${Math.min(...firsts)}–${Math.max(...firsts)}`) : '0';
  return [
    {
      label: 'Processes',
      text: `shared: each block's processes served its scenarios one after another, in a seeded order per block; each scenario came first (on processes fresh from their start) in ${range} of its blocks, and after other scenarios in the rest`,
    },
  ];
}

/** Where the windows' server CPU time came from (schedstat's nanoseconds or 10-ms clock ticks), when the result says. */
function cpuClockFacts(r: BenchResult): Array<{ label: string; text: string }> {
  const clock = r.environment.cpuClock;
  if (!clock) return [];
  if (clock === 'ticks') return [{ label: 'CPU time', text: 'clock ticks (utime + stime, 1/100 s): this kernel keeps no schedstat' }];
  const sampled = r.windows.flatMap((w) => {
    const exact = w.status === 'ok' ? w.resources.serverCpuExact : undefined;
    return exact === undefined ? [] : [exact];
  });
  const ticks = sampled.filter((x) => !x).length;
  return [
    {
      label: 'CPU time',
      text:
        `the scheduler's nanoseconds per thread (/proc/<pid>/task/<tid>/schedstat)` +
        (ticks ? `; clock ticks (1/100 s) in ${ticks} of ${plural(sampled.length, 'window')}, where a server thread exited inside the window` : ''),
    },
  ];
}

/**
 * The collapsed-stacks files a result's profiles refer to (`summary.stacksFile`, relative to
 * `results.json`), each once: what a caller reads to fill `ReportOptions.stacks`.
 */
export function stacksFilesOf(result: BenchResult): string[] {
  const files = new Set<string>();
  for (const p of result.profiles) if (p.summary?.stacksFile) files.add(p.summary.stacksFile);
  return [...files];
}

function profileViews(result: BenchResult, scenario: string, measured: readonly string[], stacks: ReportOptions['stacks']): ProfileView[] {
  const order = [...measured, ...result.targets.map((t) => t.name)];
  const rank = (t: string) => (order.includes(t) ? order.indexOf(t) : order.length);
  return result.profiles
    .filter((p) => p.scenario === scenario)
    .sort((a, b) => rank(a.target) - rank(b.target))
    .map((record): ProfileView => {
      const summary = record.status === 'ok' ? (record.summary ?? null) : null;
      const file = summary?.stacksFile;
      const text = file && stacks && Object.hasOwn(stacks, file) ? stacks[file]! : null;
      const note: Note =
        record.status === 'ok'
          ? { kind: 'profile-cost', ratio: record.costRatio ?? null, profiled: record.rps?.profiled ?? 0, unprofiled: record.rps?.unprofiled ?? 0 }
          : { kind: 'profile-missing', target: record.target, status: record.status, profiler: record.profiler, reason: record.reason };
      return { target: record.target, record, summary, stacks: text, note };
    });
}

/**
 * A scenario's per-target notes with the ones that repeat across targets folded into one line per
 * scenario (precision not met, warm-up not steady: the table already shows each target's figure),
 * for the terminal summary. `rows` keeps every other note per target.
 */
export function foldedNotes(s: ScenarioView): { scenario: Note[]; rows: Array<{ target: string; notes: Note[] }> } {
  const scenario: Note[] = [];
  const precision = new Map<string, { target: number; targets: Array<{ target: string; reached: number }> }>();
  const warm = new Map<number, Array<{ target: string; blocks: number; of: number }>>();
  let served: number | undefined;
  const rows = s.rows.map((r) => ({
    target: r.target,
    notes: r.notes.filter((n) => {
      if (n.kind === 'precision-not-met') {
        const key = `${n.target}\u0000${n.reason}`;
        const g = precision.get(key) ?? { target: n.target, targets: [] };
        g.targets.push({ target: r.target, reached: n.reached });
        precision.set(key, g);
        return false;
      }
      if (n.kind === 'warmup-not-steady') {
        served = n.served;
        warm.set(n.tolerance, [...(warm.get(n.tolerance) ?? []), { target: n.target, blocks: n.blocks, of: n.of }]);
        return false;
      }
      return true;
    }),
  }));
  for (const [key, g] of precision) scenario.push({ kind: 'precision-not-met-targets', targets: g.targets, target: g.target, reason: key.slice(key.indexOf('\u0000') + 1) });
  for (const [tolerance, targets] of warm) scenario.push({ kind: 'warmup-not-steady-targets', targets, tolerance, served });
  return { scenario, rows };
}

/** Everything the renderers show, computed once from the result. Pure. */
export function buildModel(given: BenchResult, options: ReportOptions = {}): ReportModel {
  // A caller that parsed an older document itself gets it read as the current version.
  const input = upgradeResult(given) as BenchResult;
  const result = options.reference && options.reference !== input.design.reference ? withReference(input, options.reference) : input;
  const reference = result.design.reference;
  // Streaming scenarios have tables of their own (stream-tables.ts), not rounds of windows.
  // So do a capacity run's (--slo) searches: a target with a capacity is not "not run" here.
  const searched = (scenario: string, target: string) => (result.capacity ?? []).some((c) => c.scenario === scenario && c.target === target);
  const scenarioNames = result.scenarios.filter((s) => s.kind !== 'stream').map((s) => s.name);
  for (const s of result.summaries) if (!scenarioNames.includes(s.scenario)) scenarioNames.push(s.scenario);

  const views = scenarioNames.map((name): ScenarioView => {
    const info: ScenarioInfo = result.scenarios.find((s) => s.name === name) ?? {
      name,
      requests: [],
      expect: { status: [] },
      load: { connections: [], warmupSec: 0, durationSec: 0, timeoutSec: 0 },
    };
    const stop = result.stops.find((s) => s.scenario === name) ?? null;
    const ranking = result.rankings.find((r) => r.scenario === name);
    const summaries = result.summaries.filter((s) => s.scenario === name && s.windows.ok - s.windows.excludedSteal > 0);
    const placeOf = (t: string) => ranking?.places.find((p) => p.targets.includes(t)) ?? null;
    const order = ranking?.places.flatMap((p) => p.targets) ?? [];
    const rank = (t: string) => (order.includes(t) ? order.indexOf(t) : Number.MAX_SAFE_INTEGER);
    const measured = [...summaries].sort((a, b) => rank(a.target) - rank(b.target) || b.rps.point - a.rps.point);
    const rows = measured.map((summary): PairRow => {
      const p = placeOf(summary.target);
      return {
        target: summary.target,
        summary,
        isReference: summary.target === reference,
        place: p?.place ?? null,
        worst: p?.worst ?? null,
        tie: p ? shared(p) : false,
        failures: failuresOf(result, name, summary.target),
        notes: pairNotes(result, summary, stop),
      };
    });
    const stepped = info.load.connections.length > 1 || rows.some((r) => r.summary.steps.length > 1);
    const steps = stepped ? rows.flatMap((r) => r.summary.steps.map((step) => ({ target: r.target, isReference: r.isReference, step }))) : [];
    const places = (ranking?.places ?? []).flatMap((p) =>
      p.targets.map((t): PlaceRow => {
        const s = summaries.find((x) => x.target === t);
        return { place: p.place, worst: p.worst ?? null, tie: shared(p), target: t, isReference: t === reference, relative: s?.relativeRps ?? null, rps: s?.rps ?? null };
      }),
    );
    const measuredNames = new Set(rows.map((r) => r.target));
    // The A/A twin has no summary by design: the control's own line reports it, not a missing row.
    const twin = controlTwin(result.design);
    const missing = result.targets.filter((t) => !measuredNames.has(t.name) && !searched(name, t.name) && t.name !== twin).map((t) => missingFor(result, name, t, failuresOf(result, name, t.name)));
    const notes: Note[] = rows.length && Math.max(...rows.map((r) => r.summary.blocks)) === 1 ? [{ kind: 'single-block', scenario: name }] : [];
    const profiles = profileViews(
      result,
      name,
      rows.map((r) => r.target),
      options.stacks,
    );
    return { info, rows, steps, places, rankingMethod: ranking?.method ?? null, missing, stop, notes, profiles };
  });
  // A scenario a capacity run searched, with nothing else to show, has its figures in the capacity section only.
  const scenarios = views.filter((s) => s.rows.length || s.missing.length || s.profiles.length || !(result.capacity ?? []).some((c) => c.scenario === s.info.name));

  const o = result.overall;
  const notes: Note[] = [];
  if (result.interrupted) notes.push({ kind: 'interrupted' });
  if (!result.environment.pinning.enabled) notes.push({ kind: 'not-pinned', reason: result.environment.pinning.reason ?? 'no reason recorded' });
  notes.push(...capacityNotes(result));
  const th = result.design;
  if (o.excludedSteal > 0 || o.meanSteal > th.disturbedSteal) {
    notes.push({ kind: 'steal', excluded: o.excludedSteal, of: o.windows, mean: o.meanSteal, max: o.maxSteal, threshold: result.design.stealThreshold });
  }

  const metadataKeys: string[] = [];
  for (const t of result.targets) for (const k of Object.keys(t.metadata)) if (!metadataKeys.includes(k)) metadataKeys.push(k);
  const wallSec = Math.max(0, (Date.parse(result.finishedAt) - Date.parse(result.startedAt)) / 1000);

  return {
    result,
    title: options.title ?? `benchsuite — ${result.suite}`,
    reference,
    facts: designFacts(result, wallSec),
    notes,
    verdict: o.verdict !== undefined && !isCapacityRun(result) ? { kind: 'run-verdict', verdict: o.verdict, bands: th.covBands } : null,
    remarks: isCapacityRun(result)
      ? [{ kind: 'capacity-figures' }]
      : [
          { kind: 'relative-figures', reference, method: result.design.method },
          ...(o.verdict !== undefined ? [{ kind: 'verdict-bands', bands: th.covBands, share: th.verdictShare } as const] : []),
          { kind: 'noise-labels', stealThreshold: th.stealThreshold, noisyWindowCov: th.noisyWindowCov, disturbedSteal: th.disturbedSteal },
          ...(result.profiles.some((p) => p.status === 'ok' && p.summary) ? [{ kind: 'profile-shares' } as const] : []),
        ],
    scenarios,
    targetsWithCosts: result.targets.filter((t) => t.costs),
    metadataKeys,
    wallSec,
    history: options.history ?? null,
  };
}

/** Notes whose sentence starts with a scenario or target name: never capitalised, never prefixed with the name again. */
const NAMED: ReadonlySet<Note['kind']> = new Set(['stopped', 'single-block', 'warmup-not-steady', 'profile-missing']);

/** The note names the scenario or target it is about. */
export const namesItsSubject = (n: Note) => NAMED.has(n.kind);

/** Text as a sentence in running text: capital first letter, final period (`noteText` is lower-case for embedding). */
export const sentence = (s: string) => (s ? s[0]!.toUpperCase() + s.slice(1) + (/[.!?]$/.test(s) ? '' : '.') : s);

/** A note as a sentence; one that starts with a name keeps its case. */
export function noteSentence(n: Note): string {
  const t = noteText(n);
  return namesItsSubject(n) ? t + (/[.!?]$/.test(t) ? '' : '.') : sentence(t);
}

/** Why a scenario stopped, as a note. */
export const stopNote = (s: StopRecord, precision: number): Note => ({
  kind: 'stopped',
  scenario: s.scenario,
  reason: s.reason,
  blocks: s.blocks,
  rounds: s.rounds,
  worst: s.worstHalfWidth,
  target: precision,
});
