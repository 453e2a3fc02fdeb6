import type { BenchResult, FailedTrial, PairSummary, TargetInfo, Verdict } from '@benchsuite/sdk';

/** Options shared by `renderMarkdown` and `renderHtml`. */
export interface ReportOptions {
  /** Target whose RPS is 100% in the rankings; default `node-http` when present, else the first target. */
  reference?: string;
  /** Document title; default `benchsuite — <suite>`. */
  title?: string;
}

export type ScenarioInfo = BenchResult['scenarios'][number];

/** A target measured in a scenario (at least one ok trial). */
export interface PairRow {
  target: string;
  summary: PairSummary;
  /** Mean RPS as a fraction of the reference's in this scenario (1 = same). */
  ofReference: number | null;
  /** Trials of this pair that failed, shown beside the figures so a partial result is visible. */
  failures: FailedTrial[];
}

export type MissingKind = 'skipped' | 'setup-failed' | 'verify-failed' | 'crashed' | 'not-run';

/** A target with no figures in a scenario, and why: never silently absent. */
export interface MissingRow {
  target: string;
  kind: MissingKind;
  reason: string;
  /** Verify diff or the server's last output, when there is one. */
  detail?: string;
}

export interface PlaceView {
  place: number;
  tie: boolean;
  entries: { target: string; meanRps: number; ofReference: number | null }[];
}

export interface ScenarioView {
  info: ScenarioInfo;
  places: PlaceView[];
  rankingMethod: string | null;
  rows: PairRow[];
  missing: MissingRow[];
  /** More than one connection step: the report shows a row per step. */
  stepped: boolean;
}

export interface NoisyPair {
  scenario: string;
  target: string;
  verdict: Verdict;
  okTrials: number;
  covRps: number | null;
  covP99: number | null;
}

export interface ReportModel {
  result: BenchResult;
  title: string;
  reference: string | null;
  scenarios: ScenarioView[];
  noisy: NoisyPair[];
  /** Pairs whose verdict is noisy or unreliable, and how many pairs there are. */
  noisyCount: number;
  unreliableCount: number;
  pairCount: number;
  wallSec: number;
  targetsWithCosts: TargetInfo[];
  metadataKeys: string[];
}

export const MISSING_LABEL: Record<MissingKind, string> = {
  'skipped': 'skipped',
  'setup-failed': 'setup failed',
  'verify-failed': 'failed verify',
  'crashed': 'crashed',
  'not-run': 'not run',
};

/** The target that is 100%: explicit choice, else `node-http`, else the first target with figures. */
export function pickReference(result: BenchResult, wanted?: string): string | null {
  const names = result.targets.map((t) => t.name);
  if (wanted && names.includes(wanted)) return wanted;
  if (names.includes('node-http')) return 'node-http';
  const measured = result.summaries.find((s) => s.okTrials > 0)?.target;
  return measured ?? names[0] ?? null;
}

function failureText(f: FailedTrial['failure']): string {
  const how = f.signal ? `signal ${f.signal}` : f.exitCode != null ? `exit code ${f.exitCode}` : null;
  return `${f.phase}: ${f.message}${how && !f.message.includes(how) ? ` (${how})` : ''}`;
}

/** Why a (scenario, target) pair has no figures. */
function missingFor(result: BenchResult, scenario: string, target: TargetInfo, summary: PairSummary | undefined): MissingRow {
  if (target.status === 'skipped') return { target: target.name, kind: 'skipped', reason: target.reason ?? 'skipped (no reason given)' };
  if (target.status === 'failed') return { target: target.name, kind: 'setup-failed', reason: target.reason ?? 'setup failed (no reason given)' };
  const verify = result.verify.find((v) => v.scenario === scenario && v.target === target.name && !v.ok);
  if (verify) {
    return { target: target.name, kind: 'verify-failed', reason: verify.reason ?? 'the response did not match the scenario', ...(verify.diff ? { detail: verify.diff } : {}) };
  }
  const failed = result.trials.filter((t): t is FailedTrial => t.scenario === scenario && t.target === target.name && t.status === 'failed');
  const first = failed[0];
  if (first) {
    const n = summary?.trials ?? failed.length;
    return {
      target: target.name, kind: 'crashed',
      reason: `${failed.length === n ? (n === 1 ? 'the only' : `all ${n}`) : `${failed.length} of ${n}`} trial${n === 1 ? '' : 's'} failed — ${failureText(first.failure)}`,
      ...(first.failure.stderrTail ? { detail: first.failure.stderrTail } : {}),
    };
  }
  return { target: target.name, kind: 'not-run', reason: result.interrupted ? 'not run: the run was interrupted before this pair' : 'no trials recorded for this pair' };
}

export { failureText };

/** Everything both renderers show, computed once. Pure. */
export function buildModel(result: BenchResult, options: ReportOptions = {}): ReportModel {
  const reference = pickReference(result, options.reference);
  const scenarioNames = [...result.scenarios.map((s) => s.name)];
  for (const s of result.summaries) if (!scenarioNames.includes(s.scenario)) scenarioNames.push(s.scenario);

  const scenarios = scenarioNames.map((name): ScenarioView => {
    const info: ScenarioInfo = result.scenarios.find((s) => s.name === name) ?? {
      name, requests: [], expect: { status: [] }, load: { connections: [], warmupSec: 0, durationSec: 0, timeoutSec: 0 },
    };
    const summaries = result.summaries.filter((s) => s.scenario === name);
    const refMean = summaries.find((s) => s.target === reference && s.okTrials > 0)?.rps.mean ?? null;
    const ofRef = (mean: number) => (refMean && refMean > 0 ? mean / refMean : null);
    const ranking = result.rankings.find((r) => r.scenario === name);
    const places: PlaceView[] = (ranking?.places ?? []).map((p) => ({
      place: p.place,
      tie: p.targets.length > 1,
      entries: p.targets.map((t, i) => {
        const meanRps = p.meanRps[i] ?? summaries.find((s) => s.target === t)?.rps.mean ?? 0;
        return { target: t, meanRps, ofReference: ofRef(meanRps) };
      }),
    }));
    const rankOrder = places.flatMap((p) => p.entries.map((e) => e.target));
    const measured = summaries
      .filter((s) => s.okTrials > 0)
      .sort((a, b) => {
        const ia = rankOrder.indexOf(a.target);
        const ib = rankOrder.indexOf(b.target);
        if (ia !== -1 && ib !== -1) return ia - ib;
        if (ia !== -1 || ib !== -1) return ia === -1 ? 1 : -1;
        return b.rps.mean - a.rps.mean;
      });
    const rows = measured.map((summary): PairRow => ({
      target: summary.target,
      summary,
      ofReference: ofRef(summary.rps.mean),
      failures: result.trials.filter((t): t is FailedTrial => t.scenario === name && t.target === summary.target && t.status === 'failed'),
    }));
    const measuredNames = new Set(rows.map((r) => r.target));
    const missing = result.targets
      .filter((t) => !measuredNames.has(t.name))
      .map((t) => missingFor(result, name, t, summaries.find((s) => s.target === t.name)));
    const stepped = info.load.connections.length > 1 || summaries.some((s) => s.steps.length > 1);
    return { info, places, rankingMethod: ranking?.method ?? null, rows, missing, stepped };
  });

  const noisy: NoisyPair[] = result.summaries
    .filter((s) => s.verdict === 'noisy' || s.verdict === 'unreliable')
    .map((s) => ({ scenario: s.scenario, target: s.target, verdict: s.verdict, okTrials: s.okTrials, covRps: s.rps.cov, covP99: s.p99.cov }));

  const metadataKeys: string[] = [];
  for (const t of result.targets) for (const k of Object.keys(t.metadata)) if (!metadataKeys.includes(k)) metadataKeys.push(k);

  return {
    result,
    title: options.title ?? `benchsuite — ${result.suite}`,
    reference,
    scenarios,
    noisy,
    noisyCount: result.summaries.filter((s) => s.verdict === 'noisy').length,
    unreliableCount: result.summaries.filter((s) => s.verdict === 'unreliable').length,
    pairCount: result.summaries.length,
    wallSec: Math.max(0, (Date.parse(result.finishedAt) - Date.parse(result.startedAt)) / 1000),
    targetsWithCosts: result.targets.filter((t) => t.costs),
    metadataKeys,
  };
}

/** What the overall verdict means, in words. */
export const OVERALL_MEANING: Record<BenchResult['verdict']['overall'], string> = {
  clean: 'every pair repeated within 3% (CoV of RPS and of p99): differences of a few percent are real',
  acceptable: 'every pair repeated within 5% (CoV of RPS and of p99): treat differences under ~5% with care',
  noisy: 'some pairs varied 5–10% between trials (CoV of RPS or p99): small differences there are not meaningful',
  unreliable: 'some pairs varied more than 10% between trials (CoV of RPS or p99): their figures should not be trusted',
  insufficient: 'some pairs have fewer than 2 successful trials: no spread could be measured',
};

/** Why a client-bound figure is not the server's (one sentence, no label). */
export const CLIENT_BOUND_NOTE =
  'The load generator\'s core was saturated during the trial, so the RPS shown is the load generator\'s ceiling, not the server\'s; the server may be faster than measured.';

/** Pinning in one line. */
/** Host noise in words: mean and worst CPU steal (hypervisor) over ok trials, when recorded. */
export function hostNoiseText(result: BenchResult): string | null {
  const steals = result.trials.flatMap((t) => (t.status === 'ok' && t.resources.cpuSteal !== undefined ? [t.resources.cpuSteal] : []));
  if (!steals.length) return null;
  const mean = steals.reduce((a, b) => a + b, 0) / steals.length;
  const worst = Math.max(...steals);
  const over = steals.filter((x) => x > 0.05).length;
  return `CPU steal (time the hypervisor took from the measured cores): mean ${(mean * 100).toFixed(1)}%, worst ${(worst * 100).toFixed(1)}%` +
    (over ? `; over 5% in ${over} of ${steals.length} trials, so those figures are disturbed by the host` : '; quiet host');
}

export function pinningText(p: BenchResult['environment']['pinning']): string {
  if (!p.enabled) return `off${p.reason ? ` (${p.reason})` : ''}`;
  return `${p.tool ?? 'on'}: server CPUs ${cpuList(p.serverCpus)}, loader CPUs ${cpuList(p.loaderCpus)}`;
}

/** `[2,3,4,5,7]` → `2-5,7`. */
export function cpuList(cpus: readonly number[]): string {
  if (cpus.length === 0) return 'none';
  const sorted = [...cpus].sort((a, b) => a - b);
  const parts: string[] = [];
  let start = sorted[0]!;
  let prev = start;
  for (const c of [...sorted.slice(1), Number.NaN]) {
    if (c === prev + 1) { prev = c; continue; }
    parts.push(start === prev ? String(start) : `${start}-${prev}`);
    start = c;
    prev = c;
  }
  return parts.join(',');
}

/** `warmup 3 s + 10 s measured at 64 connections` */
export function loadText(info: ScenarioInfo): string {
  const l = info.load;
  const conns = l.connections.length ? l.connections.join(' → ') : '?';
  const each = l.connections.length > 1 ? ' per step' : '';
  return `warmup ${l.warmupSec} s + ${l.durationSec} s measured${each} at ${conns} connection${l.connections.length === 1 && l.connections[0] === 1 ? '' : 's'}${l.rate ? `, ${l.rate} req/s target rate` : ''}`;
}
