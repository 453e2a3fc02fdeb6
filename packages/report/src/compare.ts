import { CHANGE_METHOD, DEFAULTS, changeEstimate, headlineGroups, median, subSeed, upgradeResult, type BenchResult, type Change, type NoiseLabel } from '@benchsuite/sdk';
import { noteText } from './notes.js';
import { escapeMarkdown as md } from './escape.js';
import { DASH, cpuList, fmtDate, fmtInt, fmtMs, fmtPct, fmtRatio, fmtRps, fmtSignedPct, fmtUs } from './units.js';
import { markdownTable } from './markdown.js';
import { noteSentence, sentence } from './model.js';
import type { Column } from './tables.js';

export interface CompareOptions {
  /** Percent: a regression is a drop whose whole 95% interval lies beyond it; default `DEFAULTS.compareThresholdPct`. */
  thresholdPct?: number;
  /** Compare even when the environments differ in a field that changes the numbers. */
  force?: boolean;
  /**
   * What fails the gate: `all` (throughput and instruction counts) or `instructions` (only the
   * deterministic instruction counts; throughput is shown, not gated: for noisy CI runners).
   */
  gate?: 'all' | 'instructions';
}

/** What happened to a pair's instructions per request (`--instructions` in both runs); see `classifyInstructions`. */
export type InstructionStatus = 'regression' | 'improvement' | 'no-change' | 'unstable' | 'plan-differs';

interface InstructionChange {
  scenario: string;
  target: string;
  connections: number;
  base: number;
  head: number;
  /** head ÷ base of the median instructions per request. */
  ratio: number;
  /** The larger of the two runs' spreads over their processes ((max − min) ÷ median). */
  spread: number;
  status: InstructionStatus;
}

export interface EnvironmentDifference {
  field: string;
  base: string;
  head: string;
  /** The numbers would measure the machine or the design, not the change (CPU model, arch, cores, driver, pinning, reference, processes). */
  blocking: boolean;
}

/**
 * What happened to a pair's headline figure; see `classifyChange` for the rule.
 * `slower`/`faster`: the interval excludes no change but does not lie wholly beyond the threshold.
 */
export type ChangeStatus = 'regression' | 'improvement' | 'slower' | 'faster' | 'no-change' | 'insufficient' | 'only-in-base' | 'only-in-head';

interface PairChange {
  scenario: string;
  target: string;
  /** `relative`: throughput ÷ the reference, measured side by side in each run; `absolute`: the reference's own req/s. */
  figure: 'relative' | 'absolute' | null;
  /** The headline figure in each run (median of its per-round samples). */
  base: number | null;
  head: number | null;
  /** head ÷ base with its 95% interval (rounds as samples, blocks and rounds resampled in each run). */
  change: Change | null;
  status: ChangeStatus;
  /** Rounds (relative) or windows (absolute) behind each side. */
  samples: { base: number; head: number };
  /** Informative, not gated: p99 of the merged histograms and server CPU per request. */
  p99Us: { base: number | null; head: number | null };
  cpuPerRequestUs: { base: number | null; head: number | null };
  headNoise: NoiseLabel | null;
}

interface RunRef {
  suite: string;
  startedAt: string;
  commit: string | null;
  seed: number;
  reference: string;
}

/** The environments differ in a field that changes the numbers, and the comparison was not forced (exit 2). */
interface Incomparable {
  status: 'incomparable';
  base: RunRef;
  head: RunRef;
  /** The blocking fields, named. */
  fields: string[];
  differences: EnvironmentDifference[];
  message: string;
}

export interface Comparison {
  status: 'compared';
  base: RunRef;
  head: RunRef;
  thresholdPct: number;
  band: number;
  /** Compared although a blocking field differs. */
  forced: boolean;
  differences: EnvironmentDifference[];
  pairs: PairChange[];
  counts: Record<ChangeStatus, number>;
  /** Instructions per request per (scenario, target, connections) counted in both runs. */
  instructions: InstructionChange[];
  /** What failed or would fail the gate. */
  gate: 'all' | 'instructions';
  /** At least one regression that the gate counts: a CI gate should fail (exit 1). */
  regressed: boolean;
  /** The regression rule in words, with this comparison's threshold. */
  rule: string;
  method: string;
}

export type CompareOutcome = Comparison | Incomparable;

/**
 * THE regression rule, in one place. With t = thresholdPct / 100 and the 95% interval [lo, hi] of
 * head ÷ base of a pair's headline figure:
 * - `regression`  when hi < 1 − t (the whole interval is a drop of more than the threshold);
 * - `improvement` when lo > 1 + t;
 * - `no-change`   when the ratio is within the practical band (|ratio − 1| ≤ band), or the interval contains 1;
 * - `slower` / `faster` when the interval lies below / above 1 but not wholly beyond the threshold;
 * - `insufficient` without an interval (too few rounds).
 * A drop that is certain but may be smaller than the threshold (interval reaching above 1 − t) is `slower`: it does not fail the gate.
 */
export function classifyChange(change: Change | null, thresholdPct: number, band: number = DEFAULTS.practicalBand): ChangeStatus {
  if (!change?.ci95) return 'insufficient';
  const t = thresholdPct / 100;
  const [lo, hi] = change.ci95;
  if (hi < 1 - t) return 'regression';
  if (lo > 1 + t) return 'improvement';
  if (Math.abs(change.ratio - 1) <= band) return 'no-change';
  if (hi < 1) return 'slower';
  if (lo > 1) return 'faster';
  return 'no-change';
}

/**
 * THE instruction rule. Instruction counts are deterministic up to the spread between fresh
 * processes, so there is no bootstrap: with t = thresholdPct / 100 and s the larger spread of the
 * two runs, head ÷ base above 1 + max(t, 3s) is a `regression`, below 1 − max(t, 3s) an
 * `improvement`; `unstable` when 3s alone exceeds t (the count moves more than the threshold
 * between processes: it cannot gate); `plan-differs` when the two runs counted with different
 * warm-ups, request counts, runtime flags or ways of counting (the counts depend on them).
 */
export function classifyInstructions(ratio: number, spread: number, thresholdPct: number, samePlan: boolean): InstructionStatus {
  if (!samePlan) return 'plan-differs';
  const t = thresholdPct / 100;
  if (3 * spread > t) return 'unstable';
  if (ratio > 1 + t) return 'regression';
  if (ratio < 1 - t) return 'improvement';
  return 'no-change';
}

function instructionChanges(base: BenchResult, head: BenchResult, thresholdPct: number): InstructionChange[] {
  const planOf = (r: BenchResult) => JSON.stringify(r.design.instructions ?? null);
  const out: InstructionChange[] = [];
  for (const h of head.instructions ?? []) {
    const b = base.instructions?.find((x) => x.scenario === h.scenario && x.target === h.target);
    if (b?.status !== 'ok' || h.status !== 'ok') continue;
    // The same plan, flags and way of counting (re-settled connections, collections left out).
    const way = (x: typeof h) => JSON.stringify([x.flags ?? [], x.resettleRequests ?? null, x.excluded ?? []]);
    const samePlan = planOf(base) === planOf(head) && way(b) === way(h);
    for (const hl of h.levels) {
      const bl = b.levels.find((l) => l.connections === hl.connections);
      if (!bl || bl.perRequest <= 0) continue;
      const ratio = hl.perRequest / bl.perRequest;
      const spread = Math.max(bl.spread, hl.spread);
      out.push({
        scenario: h.scenario,
        target: h.target,
        connections: hl.connections,
        base: bl.perRequest,
        head: hl.perRequest,
        ratio,
        spread,
        status: classifyInstructions(ratio, spread, thresholdPct, samePlan),
      });
    }
  }
  return out;
}

/** Differences between the two runs' environments and designs; `blocking` ones make the numbers incomparable. */
export function environmentDifferences(base: BenchResult, head: BenchResult): EnvironmentDifference[] {
  const a = base.environment;
  const b = head.environment;
  const out: EnvironmentDifference[] = [];
  const check = (field: string, x: string, y: string, blocking: boolean) => {
    if (x !== y) out.push({ field, base: x, head: y, blocking });
  };
  const pin = (p: BenchResult['environment']['pinning']) => (p.enabled ? `${p.tool ?? 'on'} server ${cpuList(p.serverCpus)} / loader ${cpuList(p.loaderCpus)}` : 'off');
  check('CPU model', a.cpuModel, b.cpuModel, true);
  check('architecture', a.arch, b.arch, true);
  check('cores', String(a.cores), String(b.cores), true);
  check('driver', a.driver.name, b.driver.name, true);
  check('pinning', pin(a.pinning), pin(b.pinning), true);
  check('reference', base.design.reference, head.design.reference, true);
  // A process that also served the suite's other scenarios runs each at another level than a fresh one.
  check('processes', base.design.processes, head.design.processes, true);
  check('driver version', a.driver.version, b.driver.version, false);
  check('driver flags', a.driver.flags.join(' '), b.driver.flags.join(' '), false);
  check('node', a.node, b.node, false);
  check('kernel', a.kernel, b.kernel, false);
  check('memory', String(a.memoryBytes), String(b.memoryBytes), false);
  check('window', `${base.design.windowSec} s`, `${head.design.windowSec} s`, false);
  // Said, not blocking: the warm-up order only decides what a fresh process did before round 1.
  check('fresh warm-up', base.design.freshWarmup, head.design.freshWarmup, false);
  check('precision target', String(base.design.precision), String(head.design.precision), false);
  for (const s of base.scenarios) {
    const t = head.scenarios.find((x) => x.name === s.name);
    if (!t) continue;
    const load = (l: typeof s.load) => `${l.connections.join('→')} connections, ${l.durationSec} s windows${l.rate ? `, ${l.rate} req/s` : ''}`;
    check(`load of ${s.name}`, load(s.load), load(t.load), false);
  }
  return out;
}

const runRef = (r: BenchResult): RunRef => ({ suite: r.suite, startedAt: r.startedAt, commit: r.environment.git?.commit ?? null, seed: r.seed, reference: r.design.reference });

function pairChange(base: BenchResult, head: BenchResult, scenario: string, target: string, thresholdPct: number, band: number): PairChange {
  const bs = base.summaries.find((s) => s.scenario === scenario && s.target === target && s.windows.ok > 0);
  const hs = head.summaries.find((s) => s.scenario === scenario && s.target === target && s.windows.ok > 0);
  const info = {
    scenario,
    target,
    p99Us: { base: bs?.latency.p99 ?? null, head: hs?.latency.p99 ?? null },
    cpuPerRequestUs: { base: bs?.cpuPerRequestUs?.point ?? null, head: hs?.cpuPerRequestUs?.point ?? null },
    headNoise: hs?.noise.label ?? null,
  };
  if (!bs || !hs) return { ...info, figure: null, base: null, head: null, change: null, status: bs ? 'only-in-base' : 'only-in-head', samples: { base: 0, head: 0 } };
  const b = headlineGroups(base, scenario, target);
  const h = headlineGroups(head, scenario, target);
  const nb = b.groups.flat();
  const nh = h.groups.flat();
  const change = changeEstimate(b.groups, h.groups, {
    resamples: head.design.bootstrapResamples,
    confidence: head.design.confidence,
    seed: subSeed(head.seed, 'compare', base.seed, scenario, target),
  });
  return {
    ...info,
    figure: h.kind,
    base: nb.length ? median(nb) : null,
    head: nh.length ? median(nh) : null,
    change,
    status: classifyChange(change, thresholdPct, band),
    samples: { base: nb.length, head: nh.length },
  };
}

/**
 * Compare two runs pair by pair with the SDK's estimator (`changeEstimate` over `headlineGroups`):
 * the change of each (scenario, target)'s headline figure — throughput relative to the reference,
 * or the reference's own median req/s — with its 95% interval, classified by `classifyChange`.
 * Refuses (`status: 'incomparable'`) when CPU model, arch, cores, driver, pinning, reference or processes
 * differ, unless `force`. Pure; `compareExitCode` maps the outcome to the CLI's exit code.
 * @example const out = compareResults(base, head, { thresholdPct: 5 }); process.exitCode = compareExitCode(out);
 */
export function compareResults(givenBase: BenchResult, givenHead: BenchResult, options: CompareOptions = {}): CompareOutcome {
  // A caller that parsed older documents itself gets them read as the current version.
  const [base, head] = [givenBase, givenHead].map((r) => upgradeResult(r) as BenchResult) as [BenchResult, BenchResult];
  const thresholdPct = options.thresholdPct ?? DEFAULTS.compareThresholdPct;
  const band = head.design.practicalBand;
  const differences = environmentDifferences(base, head);
  const fields = differences.filter((d) => d.blocking).map((d) => d.field);
  if (fields.length && !options.force) {
    return { status: 'incomparable', base: runRef(base), head: runRef(head), fields, differences, message: noteText({ kind: 'incomparable', fields }) };
  }
  const keys: { scenario: string; target: string }[] = [];
  for (const s of [...base.summaries, ...head.summaries]) {
    if (s.windows.ok > 0 && !keys.some((k) => k.scenario === s.scenario && k.target === s.target)) keys.push({ scenario: s.scenario, target: s.target });
  }
  const pairs = keys.map((k) => pairChange(base, head, k.scenario, k.target, thresholdPct, band));
  const counts: Record<ChangeStatus, number> = {
    regression: 0,
    improvement: 0,
    slower: 0,
    faster: 0,
    'no-change': 0,
    insufficient: 0,
    'only-in-base': 0,
    'only-in-head': 0,
  };
  for (const p of pairs) counts[p.status]++;
  const gate = options.gate ?? 'all';
  const instructions = instructionChanges(base, head, thresholdPct);
  const instructionRegressions = instructions.filter((x) => x.status === 'regression').length;
  return {
    status: 'compared',
    base: runRef(base),
    head: runRef(head),
    thresholdPct,
    band,
    forced: fields.length > 0,
    differences,
    pairs,
    counts,
    instructions,
    gate,
    regressed: instructionRegressions > 0 || (gate === 'all' && counts.regression > 0),
    rule: noteText({ kind: 'regression-rule', thresholdPct, band }),
    method: CHANGE_METHOD,
  };
}

/** The exit code of `benchsuite compare`: 2 incomparable (not forced), 1 a regression, 0 otherwise. */
export function compareExitCode(outcome: CompareOutcome): 0 | 1 | 2 {
  return outcome.status === 'incomparable' ? 2 : outcome.regressed ? 1 : 0;
}

const CHANGE_LABEL: Record<ChangeStatus, string> = {
  regression: '❌ regression',
  improvement: '✅ improvement',
  slower: '↓ slower, within the threshold',
  faster: '↑ faster, within the threshold',
  'no-change': '· no change',
  insufficient: '? too few rounds for an interval',
  'only-in-base': '— only in base',
  'only-in-head': '— only in head',
};

const ORDER: ChangeStatus[] = ['regression', 'slower', 'improvement', 'faster', 'no-change', 'insufficient', 'only-in-base', 'only-in-head'];

/** The comparison table, specified once (Markdown here; JSON carries the same fields). */
function compareColumns(c: Comparison): Column<PairChange>[] {
  const fig = (p: PairChange, x: number | null) => (x === null ? DASH : p.figure === 'relative' ? fmtRatio(x) : fmtRps(x));
  const arrow = (a: string, b: string) => `${a} → ${b}`;
  return [
    { id: 'scenario', label: 'Scenario', align: 'left', text: (p) => p.scenario },
    { id: 'target', label: 'Target', align: 'left', text: (p) => p.target },
    { id: 'figure', label: 'Figure', align: 'left', text: (p) => (p.figure === 'relative' ? `req/s ÷ ${c.head.reference}` : p.figure === 'absolute' ? 'req/s (median)' : DASH) },
    { id: 'values', label: 'Base → head', align: 'right', numeric: true, text: (p) => arrow(fig(p, p.base), fig(p, p.head)) },
    {
      id: 'change',
      label: 'Change (95% interval)',
      align: 'right',
      numeric: true,
      text: (p) =>
        p.change ? `${fmtSignedPct((p.change.ratio - 1) * 100)}${p.change.ci95 ? ` [${fmtSignedPct((p.change.ci95[0] - 1) * 100)}, ${fmtSignedPct((p.change.ci95[1] - 1) * 100)}]` : ''}` : DASH,
      tone: (p) => (p.status === 'regression' ? 'bad' : p.status === 'slower' ? 'warn' : null),
    },
    { id: 'p99', label: 'p99 base → head', align: 'right', text: (p) => arrow(fmtMs(p.p99Us.base), fmtMs(p.p99Us.head)) },
    { id: 'cpu', label: 'CPU µs/req base → head', align: 'right', text: (p) => arrow(fmtUs(p.cpuPerRequestUs.base), fmtUs(p.cpuPerRequestUs.head)) },
    { id: 'result', label: 'Result', align: 'left', text: (p) => CHANGE_LABEL[p.status] + (p.headNoise && p.headNoise !== 'quiet' ? ` (head ${p.headNoise})` : '') },
  ];
}

const INSTRUCTION_LABEL: Record<InstructionStatus, string> = {
  regression: '❌ regression',
  improvement: '✅ improvement',
  'no-change': '· no change',
  unstable: '? spread over the threshold',
  'plan-differs': '? counted with another plan',
};

/** The instruction-count table of a comparison. */
function instructionColumns(): Column<InstructionChange>[] {
  return [
    { id: 'scenario', label: 'Scenario', align: 'left', text: (x) => x.scenario },
    { id: 'target', label: 'Target', align: 'left', text: (x) => x.target },
    { id: 'connections', label: 'Connections', align: 'right', numeric: true, text: (x) => String(x.connections) },
    { id: 'values', label: 'Base → head', align: 'right', numeric: true, text: (x) => `${fmtInt(x.base)} → ${fmtInt(x.head)}` },
    { id: 'change', label: 'Change', align: 'right', numeric: true, text: (x) => fmtSignedPct((x.ratio - 1) * 100, 2), tone: (x) => (x.status === 'regression' ? 'bad' : null) },
    { id: 'spread', label: 'Spread', align: 'right', numeric: true, text: (x) => fmtPct(x.spread, 2) },
    { id: 'result', label: 'Result', align: 'left', text: (x) => INSTRUCTION_LABEL[x.status] },
  ];
}

/**
 * A comparison as Markdown fit for a pull-request comment: the gate's outcome first, environment
 * differences, one row per (scenario, target) with regressions first, then the rule and method.
 */
export function renderCompareMarkdown(outcome: CompareOutcome): string {
  const ref = (r: RunRef) => `${md(r.suite)}${r.commit ? ` @ ${md(r.commit.slice(0, 12))}` : ''} (${fmtDate(r.startedAt)})`;
  const diffs = (ds: EnvironmentDifference[]) => ds.map((d) => `- ${md(d.field)}: ${md(d.base)} → ${md(d.head)}${d.blocking ? ' **(blocking)**' : ''}`);
  if (outcome.status === 'incomparable') {
    return ['## benchsuite compare: refused', '', `Base: ${ref(outcome.base)} · Head: ${ref(outcome.head)}`, '', `⚠ ${md(sentence(outcome.message))}`, '', ...diffs(outcome.differences), ''].join(
      '\n',
    );
  }
  const c = outcome;
  const gated = (c.gate === 'all' ? c.counts.regression : 0) + c.instructions.filter((x) => x.status === 'regression').length;
  const n = gated;
  const title = n ? `❌ ${n} regression${n === 1 ? '' : 's'} beyond ${c.thresholdPct}%` : `✅ no regression beyond ${c.thresholdPct}%`;
  const out = [`## benchsuite compare: ${title}`, '', `Base: ${ref(c.base)} · Head: ${ref(c.head)}`, ''];
  if (c.forced) out.push(`> ⚠ ${md(noteSentence({ kind: 'forced-comparison', fields: c.differences.filter((d) => d.blocking).map((d) => d.field) }))}`, '');
  if (c.counts.improvement) out.push(`${c.counts.improvement} improvement${c.counts.improvement === 1 ? '' : 's'} beyond ${c.thresholdPct}%.`, '');
  if (c.differences.length) out.push(c.forced ? '**Environment differences:**' : '**Environment differences** (not blocking):', '', ...diffs(c.differences), '');
  const rows = [...c.pairs].sort((a, b) => ORDER.indexOf(a.status) - ORDER.indexOf(b.status));
  if (c.gate === 'instructions') out.push('Gate: instruction counts only; the throughput rows below are shown, not gated.', '');
  out.push(...markdownTable({ columns: compareColumns(c), rows }), '');
  if (c.instructions.length) {
    out.push('**Instructions per request** (callgrind, user space):', '', ...markdownTable({ columns: instructionColumns(), rows: c.instructions }), '');
    out.push(`<sub>${md(sentence(noteText({ kind: 'instruction-rule', thresholdPct: c.thresholdPct })))}</sub>`, '');
  }
  out.push(`<sub>${md(sentence(c.rule))} Method: ${md(c.method)}.</sub>`);
  return `${out.join('\n')}\n`;
}

/** A comparison as JSON (the `CompareOutcome` structure, pretty-printed). */
export function renderCompareJson(outcome: CompareOutcome): string {
  return `${JSON.stringify(outcome, null, 2)}\n`;
}
