/**
 * Tables and charts of open-loop runs, capacity searches and thresholds: specified once, drawn by
 * the markdown, HTML and terminal renderers like every other table.
 */
import type { BenchResult, Capacity, PairSummary, ThresholdOutcome } from '@benchsuite/sdk';
import { DASH, fmtInt, fmtMs, fmtPct, fmtRps, fmtSignedPct } from './units.js';
import { lineChart, PALETTE } from './svg.js';
import type { Column, Table } from './tables.js';

/** A threshold's limit or measured value in its metric's unit. */
function thresholdValue(metric: string, v: number | null): string {
  if (v === null) return DASH;
  if (metric === 'errors') return fmtPct(v, 3);
  if (metric === 'rps') return fmtRps(v);
  if (metric === 'cpu') return `${v.toFixed(1)} µs`;
  return fmtMs(v);
}

/**
 * What stands behind a threshold's measured value: on a stepped load, each step's value (a
 * latency term holds only when it holds at every step; a failing step is marked ✗); for errors,
 * the failed windows whose sends were counted as failed, and the windows left out for steal whose
 * errors still count; a target that failed verify, why (it has no figures, and fails the term).
 */
function thresholdDetail(t: ThresholdOutcome): string {
  const parts: string[] = [];
  if (t.steps) parts.push(t.steps.map((s) => `${s.connections} conn ${thresholdValue(t.metric, s.measured)}${s.pass ? '' : ' ✗'}`).join(' · '));
  if (t.missed) parts.push(`${fmtInt(t.missed.windows)} failed window${t.missed.windows === 1 ? '' : 's'}: ${fmtInt(t.missed.requests)} expected sends counted as failed`);
  if (t.excludedSteal)
    parts.push(`${fmtInt(t.excludedSteal)} window${t.excludedSteal === 1 ? '' : 's'} left out of the estimates for steal: ${t.excludedSteal === 1 ? 'its' : 'their'} errors still counted`);
  if (t.failedVerify !== undefined) parts.push(`failed verify${t.failedVerify ? `: ${t.failedVerify}` : ''}`);
  return parts.join('; ') || DASH;
}

const detailColumn: Column<ThresholdOutcome> = {
  id: 'detail',
  label: 'Per step / counted',
  help: "a stepped load: each step's value (a latency threshold must hold at every step; ✗ marks a step where it fails); errors: the windows that failed or were missed, whose expected sends count as failed, and the windows left out of the estimates for steal, whose errors still count; a target that failed verify fails every threshold named on it",
  align: 'left',
  brief: true,
  numeric: true,
  text: thresholdDetail,
  tone: (t) => (t.failedVerify !== undefined ? 'bad' : t.steps?.some((s) => !s.pass) || t.missed ? 'warn' : null),
};

/** Every threshold with its measured value, failed ones first. */
export function thresholdTable(result: BenchResult): Table<ThresholdOutcome> {
  const rows = [...(result.thresholds ?? [])].sort((a, b) => Number(a.pass) - Number(b.pass));
  return {
    columns: [
      { id: 'result', label: 'Result', align: 'left', brief: true, numeric: true, text: (t) => (t.pass ? 'passed' : 'FAILED'), tone: (t) => (t.pass ? null : 'bad') },
      { id: 'scenario', label: 'Scenario', align: 'left', brief: true, text: (t) => t.scenario },
      { id: 'target', label: 'Target', align: 'left', brief: true, target: true, text: (t) => t.target },
      { id: 'threshold', label: 'Threshold', align: 'left', brief: true, text: (t) => t.expression },
      {
        id: 'measured',
        label: 'Measured',
        help: 'the merged figure the threshold was checked against (latency from the merged histogram; for open-loop load, timed from each intended send)',
        align: 'right',
        brief: true,
        numeric: true,
        text: (t) => thresholdValue(t.metric, t.measured),
        sort: (t) => t.measured,
      },
      { id: 'limit', label: 'Limit', align: 'right', brief: true, numeric: true, text: (t) => `${t.op} ${thresholdValue(t.metric, t.limit)}` },
      // Only when some term has something behind its value (older results have none).
      ...(rows.some((t) => t.steps || t.missed || t.excludedSteal || t.failedVerify !== undefined) ? [detailColumn] : []),
    ],
    rows,
  };
}

/** A capacity's figure: `≥ X` when it is a lower bound (the loader gave out, or no rate failed). */
function capacityText(c: Capacity): string {
  const lower = c.bound === 'loader' || c.bound === 'probes';
  if (c.capacity === null) return c.bound === 'loader' ? 'none met (loader-bound)' : 'none met the SLO';
  return lower ? `≥ ${fmtRps(c.capacity)}` : fmtRps(c.capacity);
}

/** Why a capacity has no interval, in a cell. */
const NO_INTERVAL: Record<NonNullable<Capacity['ci95Missing']>, string> = {
  'lower-bound': 'none (a lower bound)',
  blocks: 'none (under 2 blocks gave one)',
  interrupted: 'none (interrupted)',
  'no-capacity': DASH,
};

/** One row per (scenario, target) of a capacity search. */
export function capacityTable(result: BenchResult): Table<Capacity> {
  const range = (x: readonly [number, number]) => `[${fmtRps(x[0])}, ${fmtRps(x[1])}]`;
  return {
    columns: [
      { id: 'scenario', label: 'Scenario', align: 'left', brief: true, text: (c) => c.scenario },
      { id: 'target', label: 'Target', align: 'left', brief: true, target: true, text: (c) => c.target },
      {
        id: 'capacity',
        label: 'Capacity (req/s)',
        help: 'the highest offered open-loop rate that met the SLO: the median over blocks (fresh processes); ≥ marks a lower bound (the loader could not send a higher rate, or no rate failed)',
        align: 'right',
        brief: true,
        numeric: true,
        text: capacityText,
        sort: (c) => c.capacity,
        tone: (c) => (c.capacity === null ? 'bad' : c.bound === 'loader' || c.bound === 'probes' ? 'warn' : null),
      },
      {
        id: 'interval',
        label: '95% interval',
        help: "over blocks: Student's t on the blocks' capacities, widened to their bisection brackets; results before it was computed show the lowest and highest over blocks (with one block, the last bracket)",
        align: 'right',
        brief: true,
        numeric: true,
        text: (c) => (c.ci95 ? range(c.ci95) : c.ci95Missing ? NO_INTERVAL[c.ci95Missing] : c.ci95 === undefined && c.interval ? `${range(c.interval)} (range)` : DASH),
      },
      {
        id: 'bound',
        label: 'Bounded by',
        help: 'what stopped the search going higher: the server (a rate that failed twice at the server), the loader (a rate it could not send on schedule while the server had room: its core busy, or its late sends alone failed the SLO), or the probes allowed',
        align: 'left',
        brief: true,
        text: (c) => (c.bound === 'loader' ? `loader at ${fmtRps(c.loaderBoundAt)} (${c.driver})` : c.bound === 'probes' ? 'no rate failed' : c.bound === 'server' ? 'server' : DASH),
        tone: (c) => (c.bound === 'loader' || c.bound === 'probes' ? 'warn' : null),
      },
      { id: 'driver', label: 'Driver', align: 'left', brief: true, text: (c) => c.driver },
      { id: 'slo', label: 'SLO', align: 'left', brief: true, text: (c) => c.slo },
      {
        id: 'blocks',
        label: 'Blocks',
        help: 'blocks (fresh processes) that ran their search; in brackets, those that failed (a crash, a start that failed): their searches did not finish',
        align: 'right',
        brief: true,
        numeric: true,
        text: (c) => {
          const ran = c.blocks.filter((b) => !b.interrupted);
          const failed = ran.filter((b) => b.failure !== undefined).length;
          return failed ? `${fmtInt(ran.length)} (${fmtInt(failed)} failed)` : fmtInt(ran.length);
        },
        tone: (c) => (c.blocks.some((b) => b.failure !== undefined) ? 'bad' : null),
      },
      {
        id: 'probes',
        label: 'Probes',
        help: 'open-loop probes over all blocks; in brackets, the second probes that confirmed or overruled a failure',
        align: 'right',
        numeric: true,
        text: (c) => {
          const all = c.blocks.flatMap((b) => b.probes);
          const again = all.filter((p) => p.confirmation).length;
          return again ? `${fmtInt(all.length)} (${fmtInt(again)})` : fmtInt(all.length);
        },
      },
    ],
    rows: result.capacity ?? [],
  };
}

/** `−12.0%`, and with a known schedule `−12.0% (1 200 of 10 000 sends not made)`. */
function shortfallText(s: PairSummary): string {
  const o = s.openLoop!;
  const rel = o.offeredRate > 0 ? fmtSignedPct((s.rps.point / o.offeredRate - 1) * 100) : DASH;
  if (o.scheduled === undefined) return rel;
  const sent = s.requests + s.errors + s.timeouts;
  return `${rel} (${fmtInt(Math.max(0, o.scheduled - sent))} of ${fmtInt(o.scheduled)} sends not made)`;
}

/** Open-loop pairs: offered rate, achieved, latency from the intended send next to the uncorrected one, late and dropped sends. */
export function openLoopTable(result: BenchResult): Table<PairSummary> {
  return {
    columns: [
      { id: 'scenario', label: 'Scenario', align: 'left', brief: true, text: (s) => s.scenario },
      { id: 'target', label: 'Target', align: 'left', brief: true, target: true, text: (s) => s.target },
      { id: 'offered', label: 'Offered req/s', align: 'right', brief: true, numeric: true, text: (s) => fmtRps(s.openLoop!.offeredRate) },
      { id: 'achieved', label: 'req/s (median)', align: 'right', brief: true, numeric: true, text: (s) => fmtRps(s.rps.point) },
      {
        id: 'shortfall',
        label: 'Shortfall',
        help: 'achieved ÷ offered req/s − 1; with the schedule known (a merged k6 run), also the sends it asked for that were never made (scheduled − sent)',
        align: 'right',
        brief: true,
        numeric: true,
        text: shortfallText,
        sort: (s) => (s.openLoop!.offeredRate > 0 ? s.rps.point / s.openLoop!.offeredRate - 1 : null),
        tone: (s) => (s.openLoop!.offeredRate > 0 && s.rps.point < s.openLoop!.offeredRate * 0.95 ? 'bad' : null),
      },
      {
        id: 'p99c',
        label: 'p99 from intended send',
        help: 'latency timed from when each request was scheduled to leave: what a user arriving on schedule waits (corrects coordinated omission)',
        align: 'right',
        brief: true,
        numeric: true,
        text: (s) => fmtMs(s.openLoop!.corrected.p99),
        sort: (s) => s.openLoop!.corrected.p99,
      },
      {
        id: 'p99',
        label: 'p99 from actual send',
        help: 'latency timed from when the request actually left (what a closed-loop tool reports)',
        align: 'right',
        brief: true,
        numeric: true,
        text: (s) => fmtMs(s.latency.p99),
      },
      { id: 'p50c', label: 'p50 from intended send', align: 'right', numeric: true, text: (s) => fmtMs(s.openLoop!.corrected.p50) },
      { id: 'late', label: 'Late sends', align: 'right', brief: true, numeric: true, text: (s) => fmtInt(s.openLoop!.late), tone: (s) => (s.openLoop!.late ? 'warn' : null) },
      { id: 'dropped', label: 'Dropped sends', align: 'right', brief: true, numeric: true, text: (s) => fmtInt(s.openLoop!.dropped), tone: (s) => (s.openLoop!.dropped ? 'bad' : null) },
    ],
    rows: result.summaries.filter((s) => s.openLoop),
  };
}

/** Rate vs p50/p99 of every probe, one chart per scenario (HTML). */
export function capacityCharts(result: BenchResult, color: (target: string) => string): string[] {
  const byScenario = new Map<string, Capacity[]>();
  for (const c of result.capacity ?? []) byScenario.set(c.scenario, [...(byScenario.get(c.scenario) ?? []), c]);
  return [...byScenario.entries()].map(([scenario, caps]) => {
    const series = caps.flatMap((c, i) => {
      const probes = c.blocks.flatMap((b) => b.probes).sort((a, b) => a.rate - b.rate);
      const col = color(c.target) || PALETTE[i % PALETTE.length]!;
      return [
        { name: `${c.target} p99`, color: col, points: probes.map((p) => ({ x: p.rate, y: p.p99 })) },
        { name: `${c.target} p50`, color: col, points: probes.map((p) => ({ x: p.rate, y: p.p50 })) },
      ];
    });
    const rates = [...new Set(caps.flatMap((c) => c.blocks.flatMap((b) => b.probes.map((p) => p.rate))))].sort((a, b) => a - b);
    const ticks = rates.length > 8 ? rates.filter((_, i) => i % Math.ceil(rates.length / 8) === 0) : rates;
    return lineChart({
      title: `${scenario}: latency from intended send vs offered rate (SLO ${caps[0]!.slo})`,
      series,
      xTicks: ticks.map((x) => ({ x, label: fmtRps(x) })),
      xLabel: 'offered req/s (open loop)',
      yLabel: 'latency',
      yLog: true,
      yFormat: (v) => fmtMs(v),
    });
  });
}
