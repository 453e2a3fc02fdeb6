/**
 * The history's views: changes found across runs, the gate's verdict, and the charts of each
 * pair's series with its change points marked. Input is plain data (the CLI reads the history file
 * with @benchsuite/history and passes the series in); output is text. Every sentence about the
 * history is here.
 */
import { escapeHtml as esc, escapeMarkdown } from './escape.js';
import { DASH, fmtPct, fmtSignedPct } from './units.js';

export type HistoryFigure = 'rps' | 'cpu' | 'instructions';

export interface HistoryPointView {
  runId: number;
  startedAt: string;
  commit: string | null;
  branch: string | null;
  value: number;
  lo: number | null;
  hi: number | null;
}

export interface HistoryChangeView {
  index: number;
  size: number;
  ci95: [number, number] | null;
  pValue: number;
  direction: 'better' | 'worse';
  lastBefore: HistoryPointView;
  firstAfter: HistoryPointView;
  runsBefore: number;
  runsAfter: number;
  levelBefore: number;
  levelAfter: number;
}

export interface HistoryMachineView {
  cpuModel: string;
  cores: number;
  kernel: string;
  node: string;
  python: string | null;
}

export interface HistorySeriesView {
  key: { fingerprint: string; machine: HistoryMachineView; designKey: string; scenario: string; target: string; reference: string; figure: HistoryFigure };
  points: readonly HistoryPointView[];
  changes: readonly HistoryChangeView[];
}

/** One figure of a new run as the gate judged it. */
export interface HistoryCheckView {
  scenario: string;
  target: string;
  figure: HistoryFigure;
  value: number;
  history: readonly HistoryPointView[];
  verdict:
    | { status: 'too-short'; have: number; need: number }
    | { status: 'pass'; changes: readonly HistoryChangeView[] }
    | { status: 'regression'; change: HistoryChangeView; changes: readonly HistoryChangeView[] };
}

/** A part of the machine (`history check --same-machine`): the hardware, or software that updates under it. */
export type HistoryMachinePart = 'cpu' | 'kernel' | 'node' | 'python';

/** A kernel, Node or Python change under the same hardware among the runs the gate looked at. */
export interface HistoryMachineChangeView {
  part: Exclude<HistoryMachinePart, 'cpu'>;
  from: string | null;
  to: string | null;
  lastBefore: HistoryPointView;
  runsSince: number;
  /** The gate counted the part (`--same-machine` names it): the runs before the change were left out. */
  counted: boolean;
}

/** The rule behind every verdict, as the history ran it (`DEFAULTS.history`). */
export interface HistoryRuleView {
  alpha: number;
  permutations: number;
  minMagnitude: number;
}

/** The A/A coverage check of a set of runs (`coverageOf` in @benchsuite/history). */
export interface HistoryCoverageView {
  runs: number;
  controlled: number;
  intervals: number;
  held: number;
  share: number | null;
  nominal: number;
  alpha: number;
  pValue: number | null;
  tooNarrow: boolean;
  processSd: { runs: number; median: number; min: number; max: number } | null;
  /** Round 1 ÷ its blocks' later rounds pooled over the runs of one design (`pooledRoundOne` in @benchsuite/history); absent or null without it. */
  roundOne?: HistoryRoundOneView | null;
  /** How often the runs' forecasts came true (`forecastCoverageOf` in @benchsuite/history); absent or null without one. */
  forecast?: HistoryForecastCoverageView | null;
}

/** The forecast check over runs (`ForecastCoverage`). */
export interface HistoryForecastCoverageView {
  runs: number;
  inside: number;
  narrower: number;
  wider: number;
  share: number;
  nominal: number;
  alpha: number;
  pValue: number;
  verdict: 'too-narrow' | 'too-wide' | null;
}

/** The design's round-1 trend pooled over runs (`PooledRoundOne`). */
export interface HistoryRoundOneView {
  runs: number;
  blocks: number;
  otherDesigns: number;
  point: number;
  ci95: readonly [number, number] | null;
  widthFrom: 'blocks' | 'runs' | null;
  flag: number;
  verdict: 'within' | 'beyond' | 'unresolved';
  runsToResolve: number | null;
}

export interface HistoryMachineCoverageView extends HistoryCoverageView {
  fingerprint: string;
  machine: HistoryMachineView;
}

/** The coverage check over every run kept and per machine. */
export interface HistoryCoverageReportView {
  overall: HistoryCoverageView;
  machines: readonly HistoryMachineCoverageView[];
}

/** A run's A/A intervals as stored, for the chart (null: the run had no control). */
export interface HistoryControlRunView {
  runId: number;
  startedAt: string;
  commit: string | null;
  fingerprint: string;
  control: {
    twin: string;
    scenarios: readonly { scenario: string; point: number | null; lo: number | null; hi: number | null; containsOne: boolean | null }[];
    processSd: { point: number } | null;
  } | null;
}

const FIGURE_TEXT: Record<HistoryFigure, (reference: string) => string> = {
  rps: (ref) => `throughput ÷ ${ref}`,
  cpu: (ref) => `server CPU per request ÷ ${ref}`,
  instructions: () => 'instructions per request',
};

/** `fastify on json-post, throughput ÷ node-http`. */
const seriesTitle = (k: HistorySeriesView['key']) => `${k.target} on ${k.scenario}, ${FIGURE_TEXT[k.figure](k.reference)}`;

const machineText = (m: HistoryMachineView) => `${m.cpuModel}, ${m.cores} cores, kernel ${m.kernel}, Node ${m.node.replace(/^v/, '')}${m.python ? `, Python ${m.python}` : ''}`;

const short = (commit: string | null) => (commit ? commit.slice(0, 10) : 'no commit');
const day = (iso: string) => iso.slice(0, 16).replace('T', ' ');

/** A figure's value as its series shows it: a ratio to 3 decimals, an instruction count grouped. */
function historyValue(figure: HistoryFigure, v: number): string {
  if (!Number.isFinite(v)) return DASH;
  return figure === 'instructions' ? Math.round(v).toLocaleString('en-US') : v.toFixed(3);
}

/** `−12.3% [−15.1%, −9.4%]`. */
function changeSizeText(c: Pick<HistoryChangeView, 'size' | 'ci95'>): string {
  const pct = (x: number) => fmtSignedPct(x * 100);
  return c.ci95 ? `${pct(c.size)} [${pct(c.ci95[0])}, ${pct(c.ci95[1])}]` : pct(c.size);
}

/** Where a change falls: between the last run before it and the first after it. */
function commitRangeText(c: Pick<HistoryChangeView, 'lastBefore' | 'firstAfter'>): string {
  return `after ${short(c.lastBefore.commit)} (${day(c.lastBefore.startedAt)}), by ${short(c.firstAfter.commit)} (${day(c.firstAfter.startedAt)})`;
}

/** One change in one line: what moved, by how much, where, and the runs on either side. */
function changeLine(figure: HistoryFigure, c: HistoryChangeView): string {
  return `${c.direction === 'worse' ? 'worse' : 'better'} ${changeSizeText(c)} ${commitRangeText(c)}; ${c.runsBefore} run${c.runsBefore === 1 ? '' : 's'} before at ${historyValue(figure, c.levelBefore)}, ${c.runsAfter} after at ${historyValue(figure, c.levelAfter)} (p ${c.pValue < 0.001 ? '< 0.001' : `= ${c.pValue.toFixed(3)}`})`;
}

const ruleText = (r: HistoryRuleView) =>
  `E-Divisive means on the logs of each series, permutation test at α = ${r.alpha} over ${r.permutations} shuffles, changes under ${fmtPct(r.minMagnitude, 0)} merged away; series never mix machines or designs`;

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
const pText = (p: number) => (p < 0.001 ? 'p < 0.001' : `p = ${p.toFixed(3)}`);

/**
 * The tool's own check of its intervals, from the A/A controls of the runs kept: `37 of 39 intervals
 * held 1 (95%) over 13 runs; expected about 95%.`, then, when a one-sided binomial test finds the
 * share clearly below that, that the intervals are too narrow `where` (`on this machine`), and one
 * process's own SD over the runs.
 */
function coverageText(c: HistoryCoverageView, where = 'on this machine'): string {
  if (!c.controlled) return `none of the ${plural(c.runs, 'run')} kept had one (results from before it, or runs with --control none), so the intervals' coverage goes unchecked.`;
  const without = c.runs - c.controlled;
  const over = `over ${plural(c.controlled, 'run')}${without ? ` (the other ${without} kept had no control)` : ''}`;
  const sd = c.processSd
    ? ` One process's own level varies by ${fmtPct(c.processSd.median, 1)} (SD of its log; ${c.processSd.runs === 1 ? 'one run' : `median of ${c.processSd.runs} runs, range ${fmtPct(c.processSd.min, 1)}–${fmtPct(c.processSd.max, 1)}`}).`
    : '';
  if (!c.intervals || c.share === null) return `${plural(c.controlled, 'run')} had one, but no interval yet (one block each).${sd}`;
  const verdict =
    c.tooNarrow && c.pValue !== null
      ? ` That is clearly fewer (one-sided binomial test, ${pText(c.pValue)} < ${c.alpha}): the tool's intervals are too narrow ${where}; read every interval ${where} as wider than it says.`
      : '';
  return `${c.held} of ${plural(c.intervals, 'interval')} held 1 (${fmtPct(c.share, 0)}) ${over}; expected about ${fmtPct(c.nominal, 0)}.${verdict}${sd}`;
}

/**
 * The design's own check over the runs kept (issue 38's figure, which one run reads to ±3–5%):
 * `Round 1 ÷ its block's later rounds (the pairs' ratios to the reference), pooled over 5 runs of
 * this design (133 blocks): 0.988 [0.965, 1.011], not yet resolved to ±1% (about 6 more runs like
 * these would).`, then which interval stood and the runs of other designs left out.
 */
export function roundOneText(r: HistoryRoundOneView): string {
  const ci = r.ci95 ? ` [${r.ci95[0].toFixed(3)}, ${r.ci95[1].toFixed(3)}]` : ' (no interval: one block)';
  const head = `Round 1 ÷ its block's later rounds (the pairs' ratios to the reference), pooled over ${plural(r.runs, 'run')} of this design (${plural(r.blocks, 'block')}): ${r.point.toFixed(3)}${ci}`;
  const others = r.otherDesigns ? ` ${plural(r.otherDesigns, 'run')} of other designs not pooled.` : '';
  const byRuns =
    r.widthFrom === 'runs'
      ? ` The interval is over the ${r.runs} runs' own figures (Student's t on ${r.runs - 1} degree${r.runs === 2 ? '' : 's'} of freedom), wider than the blocks' pooled one: an hour may have a trend of its own.`
      : '';
  const pct = fmtPct(r.flag, 0);
  if (r.verdict === 'within') return `${head}, within ±${pct}: the warm-up leaves no trend this design carries into its figures.${byRuns}${others}`;
  if (r.verdict === 'beyond')
    return `${head}, ${fmtPct(Math.abs(r.point - 1), 1)} ${r.point < 1 ? 'low' : 'high'}, beyond ±${pct}: this design's warm-up leaves a trend on this machine that one run's own check is too coarse to see; a longer warm-up (design.warmup.served or maxSec in a config file) would take it out.${byRuns}${others}`;
  const more = r.runsToResolve !== null ? ` (about ${plural(r.runsToResolve, 'more run')} like these would)` : '';
  return `${head}, not yet resolved to ±${pct}${more}.${byRuns}${others}`;
}

/**
 * The tool's check of its forecasts over the runs kept: `Forecast: the half-width reached fell inside
 * the forecast's range in 7 of 9 runs (78%); expected about 80%; outside, 1 narrower and 1 wider.`,
 * then, when a two-sided binomial test finds the share clearly off, which way.
 */
export function forecastCoverageText(f: HistoryForecastCoverageView, where = 'on this machine'): string {
  const outside = f.runs - f.inside;
  const sides = outside ? `; outside, ${[f.narrower ? `${f.narrower} narrower` : '', f.wider ? `${f.wider} wider` : ''].filter(Boolean).join(' and ')}` : '';
  const head = `Forecast: the half-width reached fell inside the forecast's range in ${f.inside} of ${plural(f.runs, 'run')} (${fmtPct(f.share, 0)}); expected about ${fmtPct(f.nominal, 0)}${sides}.`;
  if (f.verdict === 'too-narrow')
    return `${head} That is clearly fewer (two-sided binomial test, ${pText(f.pValue)} < ${f.alpha}): the forecast's ranges are too narrow ${where}; give a budget room beyond them.`;
  if (f.verdict === 'too-wide') return `${head} That is clearly more (two-sided binomial test, ${pText(f.pValue)} < ${f.alpha}): the forecast's ranges are wider than they need be ${where}.`;
  return head;
}

/** A machine's checks over the runs kept after its A/A line: its design's round 1 pooled, then its forecasts. */
function runCheckLines(m: HistoryCoverageView, where = 'on this machine'): string[] {
  return [...(m.roundOne ? [roundOneText(m.roundOne)] : []), ...(m.forecast ? [forecastCoverageText(m.forecast, where)] : [])];
}

/** The coverage lines of `history changes`: one for a single machine, else all of them and each; each machine's round-1 and forecast lines after its A/A line. */
function coverageLines(c: HistoryCoverageReportView): string[] {
  if (c.machines.length <= 1) {
    const m = c.machines[0] ?? c.overall;
    return [`A/A control: ${coverageText(m)}`, ...runCheckLines(m)];
  }
  return [
    `A/A control, all ${c.machines.length} machines: ${coverageText(c.overall, 'on these machines')}`,
    ...(c.overall.forecast ? [forecastCoverageText(c.overall.forecast, 'on these machines')] : []),
    ...c.machines.flatMap((m) => [`  machine ${m.fingerprint}: ${coverageText(m)}`, ...runCheckLines(m).map((l) => `    ${l}`)]),
  ];
}

/** `benchsuite history changes`: every change found, grouped by machine, then pair and figure; and the A/A coverage check. */
export function renderHistoryChanges(series: readonly HistorySeriesView[], rule: HistoryRuleView, control?: HistoryCoverageReportView): string {
  const out: string[] = [];
  const runs = new Set(series.flatMap((s) => s.points.map((p) => p.runId))).size;
  const found = series.filter((s) => s.changes.length);
  const machines = [...new Map(series.map((s) => [s.key.fingerprint, s.key.machine])).entries()];
  out.push(
    `${series.length} series over ${runs} run${runs === 1 ? '' : 's'} on ${machines.length} machine${machines.length === 1 ? '' : 's'}; ${found.length ? `changes in ${found.length}` : 'no lasting change found'}.`,
  );
  out.push(`Rule: ${ruleText(rule)}.`);
  if (control) out.push(...coverageLines(control));
  for (const [fp, m] of machines) {
    const mine = found.filter((s) => s.key.fingerprint === fp);
    if (!mine.length) continue;
    out.push('', `machine ${fp} (${machineText(m)})`);
    for (const s of mine) {
      out.push(`  ${seriesTitle(s.key)}, ${s.points.length} runs:`);
      for (const c of s.changes) out.push(`    ${changeLine(s.key.figure, c)}`);
    }
  }
  return `${out.join('\n')}\n`;
}

const PART_TEXT: Record<HistoryMachinePart, string> = { cpu: 'hardware (CPU model, cores, architecture, memory)', kernel: 'kernel', node: 'Node', python: 'Python' };
const PART_NAME: Record<HistoryMachineChangeView['part'], string> = { kernel: 'The kernel', node: 'Node', python: 'Python' };
const versionText = (part: HistoryMachineChangeView['part'], v: string | null) => (v === null ? 'none' : part === 'node' ? v.replace(/^v/, '') : v);
const andList = (xs: readonly string[]) => (xs.length < 2 ? (xs[0] ?? '') : `${xs.slice(0, -1).join(', ')} and ${xs.at(-1)}`);

/**
 * What changed under the same hardware, and what the gate made of it: `The kernel changed 6.1.0-18 →
 * 6.1.0-21 since the last run of this machine.`, then whether the runs before count, and the
 * `--same-machine` that would count them.
 */
function machineChangeLines(changes: readonly HistoryMachineChangeView[], parts: readonly HistoryMachinePart[]): string[] {
  const out = changes.map(
    (c) =>
      `${PART_NAME[c.part]} changed ${versionText(c.part, c.from)} → ${versionText(c.part, c.to)} ${
        c.runsSince === 0
          ? 'since the last run of this machine'
          : `${c.runsSince} run${c.runsSince === 1 ? '' : 's'} ago (the last run before it: ${short(c.lastBefore.commit)}, ${day(c.lastBefore.startedAt)})`
      }.`,
  );
  const flag = (ps: readonly HistoryMachinePart[]) => `--same-machine ${ps.join(',')}`;
  const counted = changes.filter((c) => c.counted);
  if (counted.length)
    out.push(
      `The runs before ${counted.length === 1 ? 'that change' : 'those changes'} count as another machine (${flag(parts)}), so this run is judged without them; to count them as this machine: ${flag(parts.filter((p) => !counted.some((c) => c.part === p)))}.`,
    );
  const ignored = changes.filter((c) => !c.counted);
  if (ignored.length) out.push(`The runs before the ${andList(ignored.map((c) => PART_TEXT[c.part]))} change${ignored.length === 1 ? '' : 's'} count as this machine (${flag(parts)}).`);
  return out;
}

/** Whose earlier runs the gate had: the fingerprint's, or the same hardware's with the parts `--same-machine` named. */
function machineWords(fingerprint: string, parts: readonly HistoryMachinePart[]): string {
  const all = (['cpu', 'kernel', 'node', 'python'] as const).every((p) => parts.includes(p));
  return all ? `machine ${fingerprint}` : `the same ${andList(parts.map((p) => PART_TEXT[p]))} as machine ${fingerprint}`;
}

/** `benchsuite history check`: the regressions the new run confirms, or why it passes. */
export function renderHistoryCheck(
  checks: readonly HistoryCheckView[],
  o: {
    rule: HistoryRuleView;
    window: number;
    fingerprint: string;
    file: string;
    /** What of the machine had to match (default all of it), and what changed under the same hardware. */
    sameMachine?: readonly HistoryMachinePart[];
    machineChanges?: readonly HistoryMachineChangeView[];
    /** The A/A coverage check over this machine's runs, this one included. */
    control?: HistoryCoverageView;
  },
): string {
  const parts = o.sameMachine ?? ['cpu', 'kernel', 'node', 'python'];
  const out: string[] = [];
  const regressions = checks.filter((c) => c.verdict.status === 'regression');
  const short = checks.flatMap((c) => (c.verdict.status === 'too-short' ? [c.verdict] : []));
  const judged = checks.length - short.length;
  if (!checks.length) out.push('The result has no figure the history follows (relative throughput, relative CPU per request, instruction counts): nothing to judge.');
  else if (regressions.length) out.push(`REGRESSION: ${regressions.length} of ${checks.length} figures moved the wrong way in a lasting step that this run confirms.`);
  else if (judged) out.push(`No regression: ${judged} of ${checks.length} figures judged against the recent runs of this machine and design.`);
  for (const c of regressions) {
    const v = c.verdict as Extract<HistoryCheckView['verdict'], { status: 'regression' }>;
    out.push(`  ${c.target} on ${c.scenario}, ${FIGURE_TEXT[c.figure]('the reference')}: ${changeLine(c.figure, v.change)}; this run ${historyValue(c.figure, c.value)}`);
  }
  out.push(...machineChangeLines(o.machineChanges ?? [], parts));
  if (short.length) {
    const have = Math.min(...short.map((s) => s.have));
    const need = short[0]!.need;
    out.push(
      `${short.length} of ${checks.length} figures have too little history to judge: ${have} earlier run${have === 1 ? '' : 's'} of ${machineWords(o.fingerprint, parts)} with this design in ${o.file}, and the gate needs ${need} (${need - have} more). Not a failure.`,
    );
  }
  if (o.control) out.push(`A/A control on this machine: ${coverageText(o.control)}`);
  if (o.control) out.push(...runCheckLines(o.control));
  out.push(`Rule: the last ${o.window} runs before this one, then this run; ${ruleText(o.rule)}. A regression is the last change of that series, for the worse, with this run on its far side.`);
  return `${out.join('\n')}\n`;
}

// ---------------------------------------------------------------------------------------------
// Charts

const n1 = (x: number) => (Math.round(x * 10) / 10).toString();

/**
 * A series over runs: each run's figure with its interval, the level of each segment between
 * change points, and a dashed line at every change with its size. Inline SVG, no script.
 */
function historyChartSvg(s: HistorySeriesView, width = 560): string {
  const pts = s.points;
  const title = `${seriesTitle(s.key)}: ${pts.length} runs${s.changes.length ? `, ${s.changes.length} change${s.changes.length === 1 ? '' : 's'}` : ''}`;
  const left = 70;
  const right = width - 14;
  const top = 30;
  const plotH = 180;
  // The scale follows the points: one run's interval can be ±200% on a noisy host and would
  // flatten the series. Whiskers are clipped to the plot (an open end marks a clipped one).
  const values = pts.map((p) => p.value).filter((v) => Number.isFinite(v) && v > 0);
  let lo = Math.min(...values);
  let hi = Math.max(...values);
  const pad = (hi - lo || Math.abs(hi) * 0.05 || 1) * 0.15;
  lo = Math.max(0, lo - pad);
  hi += pad;
  const sx = (i: number) => (pts.length <= 1 ? (left + right) / 2 : left + (i / (pts.length - 1)) * (right - left));
  const sy = (v: number) => top + plotH - ((v - lo) / (hi - lo)) * plotH;
  const parts: string[] = [`<text class="chart-title" x="0" y="16">${esc(title)}</text>`];
  for (let k = 0; k <= 4; k++) {
    const v = lo + ((hi - lo) * k) / 4;
    parts.push(
      `<line class="grid" x1="${left}" x2="${right}" y1="${n1(sy(v))}" y2="${n1(sy(v))}"/><text class="tick" x="${left - 6}" y="${n1(sy(v) + 4)}" text-anchor="end">${esc(historyValue(s.key.figure, v))}</text>`,
    );
  }
  const every = Math.max(1, Math.ceil(pts.length / 8));
  pts.forEach((p, i) => {
    if (i % every === 0) parts.push(`<text class="tick" x="${n1(sx(i))}" y="${top + plotH + 15}" text-anchor="middle">${esc(p.commit ? p.commit.slice(0, 7) : `#${i + 1}`)}</text>`);
  });
  parts.push(`<text class="axis" x="${n1((left + right) / 2)}" y="${top + plotH + 31}" text-anchor="middle">runs, oldest first (commit)</text>`);
  // Segment levels.
  const cuts = [0, ...s.changes.map((c) => c.index), pts.length];
  for (let k = 0; k + 1 < cuts.length; k++) {
    const seg = pts.slice(cuts[k], cuts[k + 1]);
    if (!seg.length) continue;
    const level = Math.exp(seg.reduce((a, p) => a + Math.log(p.value), 0) / seg.length);
    parts.push(`<path class="level" d="M${n1(sx(cuts[k]!))} ${n1(sy(level))}H${n1(sx(cuts[k + 1]! - 1))}" stroke="#94a3b8" stroke-width="2" fill="none"/>`);
  }
  parts.push('<g class="series">');
  pts.forEach((p, i) => {
    if (p.lo != null && p.hi != null && p.lo > 0) parts.push(`<path d="M${n1(sx(i))} ${n1(sy(Math.max(lo, p.lo)))}V${n1(sy(Math.min(hi, p.hi)))}" stroke="#93c5fd" stroke-width="1.3"/>`);
  });
  parts.push(`<path d="${pts.map((p, i) => `${i ? 'L' : 'M'}${n1(sx(i))} ${n1(sy(p.value))}`).join('')}" fill="none" stroke="#2563eb" stroke-width="1.5"/>`);
  pts.forEach((p, i) => {
    parts.push(
      `<circle cx="${n1(sx(i))}" cy="${n1(sy(p.value))}" r="2.8" fill="#2563eb"><title>${esc(`${short(p.commit)} ${day(p.startedAt)}: ${historyValue(s.key.figure, p.value)}`)}</title></circle>`,
    );
  });
  parts.push('</g>');
  for (const c of s.changes) {
    const x = (sx(c.index - 1) + sx(c.index)) / 2;
    parts.push(
      `<g class="change ${c.direction}"><line class="marker" x1="${n1(x)}" x2="${n1(x)}" y1="${top}" y2="${top + plotH}" style="stroke:${c.direction === 'worse' ? '#dc2626' : '#059669'}"/><text class="tick" x="${n1(x + 3)}" y="${top + 11}">${esc(fmtSignedPct(c.size * 100))}</text><title>${esc(changeLine(s.key.figure, c))}</title></g>`,
    );
  }
  return `<svg class="chart history" viewBox="0 0 ${width} ${top + plotH + 40}" width="${width}" height="${top + plotH + 40}" role="img" aria-label="${esc(title)}">${parts.join('')}</svg>`;
}

/**
 * A machine's A/A intervals over runs: each run's twin ÷ reference per scenario with its interval, a
 * dashed line at 1, and the intervals that miss 1 in red. Inline SVG, no script.
 */
function controlChartSvg(runs: readonly HistoryControlRunView[], c: HistoryCoverageView, width = 560): string {
  const pts = runs.flatMap((r) => (r.control?.scenarios ?? []).flatMap((s) => (s.point !== null && s.point > 0 ? [{ run: r, s, point: s.point }] : [])));
  const twin = runs.find((r) => r.control)?.control?.twin;
  const title = `A/A control${twin ? `, ${twin} ÷ the reference` : ''}: ${c.held} of ${plural(c.intervals, 'interval')} held 1`;
  const left = 70;
  const right = width - 14;
  const top = 30;
  const plotH = 150;
  const values = [1, ...pts.map((p) => p.point)];
  let lo = Math.min(...values);
  let hi = Math.max(...values);
  const pad = (hi - lo || 0.05) * 0.3;
  lo = Math.max(0, lo - pad);
  hi += pad;
  const sx = (i: number) => (pts.length <= 1 ? (left + right) / 2 : left + (i / (pts.length - 1)) * (right - left));
  const sy = (v: number) => top + plotH - ((Math.min(hi, Math.max(lo, v)) - lo) / (hi - lo)) * plotH;
  const parts: string[] = [`<text class="chart-title" x="0" y="16">${esc(title)}</text>`];
  for (let k = 0; k <= 4; k++) {
    const v = lo + ((hi - lo) * k) / 4;
    parts.push(`<line class="grid" x1="${left}" x2="${right}" y1="${n1(sy(v))}" y2="${n1(sy(v))}"/><text class="tick" x="${left - 6}" y="${n1(sy(v) + 4)}" text-anchor="end">${v.toFixed(3)}</text>`);
  }
  parts.push(`<line class="marker" x1="${left}" x2="${right}" y1="${n1(sy(1))}" y2="${n1(sy(1))}"/>`);
  const every = Math.max(1, Math.ceil(pts.length / 8));
  pts.forEach((p, i) => {
    if (i % every === 0) parts.push(`<text class="tick" x="${n1(sx(i))}" y="${top + plotH + 15}" text-anchor="middle">${esc(p.run.commit ? p.run.commit.slice(0, 7) : `#${p.run.runId}`)}</text>`);
  });
  parts.push(`<text class="axis" x="${n1((left + right) / 2)}" y="${top + plotH + 31}" text-anchor="middle">runs, oldest first, a point per scenario (commit)</text>`);
  pts.forEach((p, i) => {
    const missed = p.s.containsOne === false;
    const colour = missed ? '#dc2626' : '#2563eb';
    const interval = p.s.lo !== null && p.s.hi !== null ? ` [${p.s.lo.toFixed(3)}, ${p.s.hi.toFixed(3)}]` : '';
    if (p.s.lo !== null && p.s.hi !== null) parts.push(`<path d="M${n1(sx(i))} ${n1(sy(p.s.lo))}V${n1(sy(p.s.hi))}" stroke="${missed ? '#fca5a5' : '#93c5fd'}" stroke-width="1.3"/>`);
    parts.push(
      `<circle class="${missed ? 'aa missed' : 'aa'}" cx="${n1(sx(i))}" cy="${n1(sy(p.point))}" r="2.8" fill="${colour}"><title>${esc(`${short(p.run.commit)} ${day(p.run.startedAt)}, ${p.s.scenario}: ${p.point.toFixed(3)}${interval}${missed ? ', misses 1' : ''}`)}</title></circle>`,
    );
  });
  return `<svg class="chart history control" viewBox="0 0 ${width} ${top + plotH + 40}" width="${width}" height="${top + plotH + 40}" role="img" aria-label="${esc(title)}">${parts.join('')}</svg>`;
}

/** A machine's coverage check on the page: its sentence, and its chart when it had intervals. */
function coverageHtml(c: HistoryCoverageView, runs: readonly HistoryControlRunView[]): string {
  const sentence = `<p class="${c.tooNarrow ? 'note bad' : 'muted'}">A/A control: ${esc(coverageText(c))}</p>`;
  const checks = machineChecks(c)
    .slice(1)
    .map((x) => `<p class="${x.bad ? 'note bad' : 'muted'}">${esc(x.text)}</p>`)
    .join('');
  return c.intervals ? `${sentence}${checks}<div class="charts two"><div class="history-series">${controlChartSvg(runs, c)}</div></div>` : `${sentence}${checks}`;
}

/** The changes of a series as a list (HTML). */
function changesListHtml(s: HistorySeriesView): string {
  if (!s.changes.length) return '<p class="muted small">No lasting change.</p>';
  // Styled inline: the run report's stylesheet stays as it is for runs without a history.
  return `<ul class="changes" style="margin:4px 0 10px;padding-left:18px;font-size:12.5px">${s.changes.map((c) => `<li class="${c.direction}" style="color:${c.direction === 'worse' ? '#991b1b' : '#166534'}">${esc(changeLine(s.key.figure, c))}</li>`).join('')}</ul>`;
}

/** The machine's checks over the runs kept: the A/A coverage, the design's round 1 pooled, the forecasts; each with whether it is bad news (drawn as a note). */
function machineChecks(control: HistoryCoverageView | undefined): { text: string; bad: boolean }[] {
  if (!control) return [];
  return [
    { text: `A/A control on this machine: ${coverageText(control)}`, bad: control.tooNarrow },
    ...(control.roundOne ? [{ text: roundOneText(control.roundOne), bad: control.roundOne.verdict === 'beyond' }] : []),
    ...(control.forecast ? [{ text: forecastCoverageText(control.forecast), bad: control.forecast.verdict === 'too-narrow' }] : []),
  ];
}

/** The run report's history section (its body): the machine's checks, then each pair's series, this run last, with its changes. */
export function historySectionHtml(series: readonly HistorySeriesView[], rule: HistoryRuleView, control?: HistoryCoverageView): string {
  const charts = series.map((s) => `<div class="history-series">${historyChartSvg(s)}${changesListHtml(s)}</div>`).join('\n');
  const checks = machineChecks(control)
    .map((c) => `<p class="${c.bad ? 'note bad' : 'muted'}">${esc(c.text)}</p>`)
    .join('');
  return `<p class="muted">This run among the earlier runs of the same machine and design in the history. ${esc(ruleText(rule))}.</p>${checks}
<div class="charts two">${charts}</div>`;
}

/** The history section in Markdown: the machine's checks, then each series with a change, and its changes. */
export function historySectionMarkdown(series: readonly HistorySeriesView[], rule: HistoryRuleView, control?: HistoryCoverageView): string[] {
  const found = series.filter((s) => s.changes.length);
  const out = [
    `${series.length} series of this run's pairs in the history (${ruleText(rule)}); ${found.length ? `changes in ${found.length}:` : 'no lasting change.'}`,
    '',
    ...machineChecks(control).flatMap((c) => [escapeMarkdown(c.text), '']),
  ];
  for (const s of found) out.push(...s.changes.map((c) => `- ${escapeMarkdown(seriesTitle(s.key))}: ${escapeMarkdown(changeLine(s.key.figure, c))}`));
  if (found.length) out.push('');
  return out;
}

/** `benchsuite history report`: one self-contained page for the whole history, by machine. */
export function renderHistoryPage(
  series: readonly HistorySeriesView[],
  o: { rule: HistoryRuleView; css: string; generator: string; file: string; control?: { coverage: HistoryCoverageReportView; runs: readonly HistoryControlRunView[] } },
): string {
  const machines = [...new Map([...series.map((s) => [s.key.fingerprint, s.key.machine] as const), ...(o.control?.coverage.machines ?? []).map((m) => [m.fingerprint, m.machine] as const)]).entries()];
  const runs = new Set(series.flatMap((s) => s.points.map((p) => p.runId))).size;
  const sections = machines.map(([fp, m]) => {
    const mine = series.filter((s) => s.key.fingerprint === fp);
    const charts = mine.map((s) => `<div class="history-series">${historyChartSvg(s)}${changesListHtml(s)}</div>`).join('\n');
    const coverage = o.control?.coverage.machines.find((c) => c.fingerprint === fp);
    const control = coverage ? coverageHtml(coverage, o.control?.runs.filter((r) => r.fingerprint === fp) ?? []) : '';
    return `<section id="m-${esc(fp)}"><h2>Machine ${esc(fp)}</h2><p class="muted">${esc(machineText(m))}; ${mine.length} series.</p>${control}<div class="charts two">${charts}</div></section>`;
  });
  const changes = series.reduce((a, s) => a + s.changes.length, 0);
  const all = o.control?.coverage.overall;
  const overall =
    all && machines.length > 1
      ? `<p class="${all.tooNarrow ? 'note bad' : 'muted'}">A/A control, all ${machines.length} machines: ${esc(coverageText(all, 'on these machines'))}</p>${
          all.forecast ? `<p class="${all.forecast.verdict === 'too-narrow' ? 'note bad' : 'muted'}">${esc(forecastCoverageText(all.forecast, 'on these machines'))}</p>` : ''
        }`
      : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'">
<meta name="generator" content="${esc(o.generator)}">
<title>benchsuite history</title>
<style>${o.css}</style>
</head>
<body>
<main>
<header class="card"><h1>benchsuite history</h1>
<p class="lead">${series.length} series over ${runs} run${runs === 1 ? '' : 's'} on ${machines.length} machine${machines.length === 1 ? '' : 's'}; ${changes} change${changes === 1 ? '' : 's'} found.</p>
<p class="muted">${esc(o.file)}. ${esc(ruleText(o.rule))}.</p>${overall}</header>
${sections.join('\n') || '<section><p>The history holds no run yet: <code>benchsuite history add results.json</code> adds one.</p></section>'}
</main>
</body>
</html>
`;
}
