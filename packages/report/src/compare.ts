import type { BenchResult, PairSummary, Verdict } from '@benchsuite/sdk';
import { DASH, escapeMarkdown as md, fmtDate, fmtMs, fmtRps, fmtSignedPct } from './format.js';
import { cpuList } from './model.js';
import { welchDifference } from '@benchsuite/sdk';

export interface CompareOptions {
  /** Smallest change, in percent, that counts as a regression or an improvement; default 5. */
  threshold?: number;
}

/** How one figure moved from base to head. */
export interface MetricChange {
  metric: 'rps' | 'p99';
  /** Mean over trials (RPS, or p99 in µs). */
  base: number;
  head: number;
  /** head − base, with the 95% Welch CI of that difference (null with fewer than 2 trials on a side). */
  diff: number;
  ci95: [number, number] | null;
  /** The same as a percentage of base. */
  changePct: number;
  ci95Pct: [number, number] | null;
  /** The CI excludes 0. */
  significant: boolean;
  /** Lower RPS or higher p99 is worse. */
  direction: 'better' | 'worse' | 'same';
  /** Significant, worse, and by more than the threshold. */
  regression: boolean;
  /** Significant, better, and by more than the threshold. */
  improvement: boolean;
}

export type PairChangeStatus =
  | 'regression' | 'improvement' | 'within-threshold' | 'no-significant-change' | 'insufficient' | 'only-in-base' | 'only-in-head';

export interface PairComparison {
  scenario: string;
  target: string;
  status: PairChangeStatus;
  rps: MetricChange | null;
  p99: MetricChange | null;
  baseVerdict: Verdict | null;
  headVerdict: Verdict | null;
  baseOkTrials: number;
  headOkTrials: number;
}

export interface EnvironmentDifference {
  field: string;
  base: string;
  head: string;
  /** Differences that make the numbers incomparable (CPU, core count, driver, pinning). */
  blocking: boolean;
}

export interface CompareResult {
  threshold: number;
  base: { suite: string; startedAt: string; commit: string | null };
  head: { suite: string; startedAt: string; commit: string | null };
  environment: { comparable: boolean; differences: EnvironmentDifference[] };
  pairs: PairComparison[];
  counts: Record<PairChangeStatus, number>;
  /** At least one significant regression beyond the threshold: a CI gate should fail. */
  regressed: boolean;
}

/**
 * Environment differences between two runs. CPU model, architecture, core count, driver and pinning
 * are blocking (the numbers would measure the machine, not the change); the rest is informative.
 */
export function environmentDifferences(base: BenchResult, head: BenchResult): EnvironmentDifference[] {
  const a = base.environment;
  const b = head.environment;
  const out: EnvironmentDifference[] = [];
  const check = (field: string, x: string, y: string, blocking: boolean) => {
    if (x !== y) out.push({ field, base: x, head: y, blocking });
  };
  const pin = (p: BenchResult['environment']['pinning']) =>
    p.enabled ? `${p.tool ?? 'on'} server ${cpuList(p.serverCpus)} / loader ${cpuList(p.loaderCpus)}` : 'off';
  check('CPU model', a.cpuModel, b.cpuModel, true);
  check('architecture', a.arch, b.arch, true);
  check('cores', String(a.cores), String(b.cores), true);
  check('driver', a.driver.name, b.driver.name, true);
  check('pinning', pin(a.pinning), pin(b.pinning), true);
  check('driver version', a.driver.version, b.driver.version, false);
  check('driver flags', a.driver.flags.join(' '), b.driver.flags.join(' '), false);
  check('node', a.node, b.node, false);
  check('kernel', a.kernel, b.kernel, false);
  check('memory', String(a.memoryBytes), String(b.memoryBytes), false);
  check('trials per pair', String(base.trialsPerPair), String(head.trialsPerPair), false);
  for (const s of base.scenarios) {
    const t = head.scenarios.find((x) => x.name === s.name);
    if (!t) continue;
    const load = (l: typeof s.load) => `${l.connections.join('→')} connections, ${l.warmupSec} s warmup, ${l.durationSec} s${l.rate ? `, ${l.rate} req/s` : ''}`;
    check(`load of ${s.name}`, load(s.load), load(t.load), false);
  }
  return out;
}

function change(metric: 'rps' | 'p99', b: PairSummary, h: PairSummary, threshold: number): MetricChange {
  const bs = metric === 'rps' ? b.rps : b.p99;
  const hs = metric === 'rps' ? h.rps : h.p99;
  const bv = bs.values.length ? bs.values : [bs.mean];
  const hv = hs.values.length ? hs.values : [hs.mean];
  const w = welchDifference(bv, hv);
  const baseMean = bs.mean;
  const pct = (x: number) => (baseMean !== 0 ? (x / baseMean) * 100 : 0);
  const changePct = pct(w.diff);
  const sign = metric === 'rps' ? 1 : -1; // positive = better
  const goodness = sign * w.diff;
  const direction = !w.significant || goodness === 0 ? 'same' : goodness > 0 ? 'better' : 'worse';
  const beyond = Math.abs(changePct) > threshold;
  return {
    metric, base: baseMean, head: hs.mean, diff: w.diff, ci95: w.ci,
    changePct, ci95Pct: w.ci ? [pct(w.ci[0]), pct(w.ci[1])] : null,
    significant: w.significant, direction,
    regression: direction === 'worse' && beyond,
    improvement: direction === 'better' && beyond,
  };
}

/**
 * Per (scenario, target): the change in mean RPS and mean p99 from `base` to `head`, each with a 95%
 * Welch confidence interval over per-trial values. A change is significant when its interval
 * excludes 0, and a regression when it is also worse than `threshold` percent. Pure; the caller
 * decides what to do with `environment.comparable` and `regressed`.
 * @example const cmp = compareResults(base, head, { threshold: 5 }); process.exitCode = cmp.regressed ? 1 : 0;
 */
export function compareResults(base: BenchResult, head: BenchResult, options: CompareOptions = {}): CompareResult {
  const threshold = options.threshold ?? 5;
  const differences = environmentDifferences(base, head);
  const keys: { scenario: string; target: string }[] = [];
  for (const s of [...base.summaries, ...head.summaries]) {
    if (!keys.some((k) => k.scenario === s.scenario && k.target === s.target)) keys.push({ scenario: s.scenario, target: s.target });
  }
  const pairs = keys.map(({ scenario, target }): PairComparison => {
    const b = base.summaries.find((s) => s.scenario === scenario && s.target === target && s.okTrials > 0);
    const h = head.summaries.find((s) => s.scenario === scenario && s.target === target && s.okTrials > 0);
    const common = {
      scenario, target, baseVerdict: b?.verdict ?? null, headVerdict: h?.verdict ?? null,
      baseOkTrials: b?.okTrials ?? 0, headOkTrials: h?.okTrials ?? 0,
    };
    if (!b || !h) return { ...common, status: b ? 'only-in-base' : 'only-in-head', rps: null, p99: null };
    const rps = change('rps', b, h, threshold);
    const p99 = change('p99', b, h, threshold);
    const status: PairChangeStatus =
      b.okTrials < 2 || h.okTrials < 2 ? 'insufficient'
        : rps.regression || p99.regression ? 'regression'
          : rps.improvement || p99.improvement ? 'improvement'
            : rps.significant || p99.significant ? 'within-threshold'
              : 'no-significant-change';
    return { ...common, status, rps, p99 };
  });
  const counts: Record<PairChangeStatus, number> = {
    'regression': 0, 'improvement': 0, 'within-threshold': 0, 'no-significant-change': 0, 'insufficient': 0, 'only-in-base': 0, 'only-in-head': 0,
  };
  for (const p of pairs) counts[p.status]++;
  const who = (r: BenchResult) => ({ suite: r.suite, startedAt: r.startedAt, commit: r.environment.git?.commit ?? null });
  return {
    threshold,
    base: who(base),
    head: who(head),
    environment: { comparable: !differences.some((d) => d.blocking), differences },
    pairs,
    counts,
    regressed: counts.regression > 0,
  };
}

const STATUS_LABEL: Record<PairChangeStatus, string> = {
  'regression': '❌ regression',
  'improvement': '✅ improvement',
  'within-threshold': '≈ within threshold',
  'no-significant-change': '· no significant change',
  'insufficient': '? fewer than 2 trials',
  'only-in-base': '— only in base',
  'only-in-head': '— only in head',
};

const STATUS_ORDER: PairChangeStatus[] = ['regression', 'improvement', 'within-threshold', 'no-significant-change', 'insufficient', 'only-in-base', 'only-in-head'];

function deltaCell(c: MetricChange | null): string {
  if (!c) return DASH;
  const ci = c.ci95Pct ? ` [${fmtSignedPct(c.ci95Pct[0])}, ${fmtSignedPct(c.ci95Pct[1])}]` : '';
  const text = `${fmtSignedPct(c.changePct)}${ci}`;
  return c.significant ? `**${text}**` : text;
}

/**
 * A comparison as Markdown fit for a pull-request comment: the gate's outcome first, environment
 * differences, then one row per (scenario, target), regressions first.
 */
export function renderCompareMarkdown(cmp: CompareResult): string {
  const n = cmp.counts.regression;
  const title = n
    ? `❌ ${n} significant regression${n === 1 ? '' : 's'} beyond ${cmp.threshold}%`
    : `✅ no significant regression beyond ${cmp.threshold}%`;
  const ref = (r: CompareResult['base']) => `${md(r.suite)}${r.commit ? ` @ ${md(r.commit.slice(0, 12))}` : ''} (${fmtDate(r.startedAt)})`;
  const out = [`## benchsuite compare: ${title}`, '', `Base: ${ref(cmp.base)} · Head: ${ref(cmp.head)}`, ''];
  if (cmp.counts.improvement) out.push(`${cmp.counts.improvement} significant improvement${cmp.counts.improvement === 1 ? '' : 's'} beyond ${cmp.threshold}%.`, '');
  if (cmp.environment.differences.length) {
    out.push(cmp.environment.comparable ? '**Environment differences** (not blocking):' : '**⚠ Environments differ in ways that change the numbers** (compared with --force):', '');
    for (const d of cmp.environment.differences) out.push(`- ${md(d.field)}: ${md(d.base)} → ${md(d.head)}${d.blocking ? ' **(blocking)**' : ''}`);
    out.push('');
  }
  const rows = [...cmp.pairs].sort((a, b) => STATUS_ORDER.indexOf(a.status) - STATUS_ORDER.indexOf(b.status));
  out.push(
    '| Scenario | Target | RPS base → head | Δ RPS [95% CI] | p99 (mean of trials) base → head | Δ p99 [95% CI] | Result |',
    '|---|---|---:|---:|---:|---:|---|',
    ...rows.map((p) => `| ${[
      md(p.scenario), md(p.target),
      p.rps ? `${fmtRps(p.rps.base)} → ${fmtRps(p.rps.head)}` : DASH, deltaCell(p.rps),
      p.p99 ? `${fmtMs(p.p99.base)} → ${fmtMs(p.p99.head)}` : DASH, deltaCell(p.p99),
      STATUS_LABEL[p.status] + (p.headVerdict === 'noisy' || p.headVerdict === 'unreliable' ? ` (head ${p.headVerdict})` : ''),
    ].join(' | ')} |`),
    '',
    `<sub>Δ is head − base as a percentage of base, with the 95% confidence interval of a Welch two-sample test over per-trial means (RPS) and per-trial p99; **bold** when the interval excludes 0. A regression is significant and worse than ${cmp.threshold}%.</sub>`,
  );
  return out.join('\n') + '\n';
}

/** A comparison as JSON (the `CompareResult` structure, pretty-printed). */
export function renderCompareJson(cmp: CompareResult): string {
  return JSON.stringify(cmp, null, 2) + '\n';
}
