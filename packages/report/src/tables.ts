/**
 * Every table of the report, specified once: columns with a label, a one-sentence meaning, an
 * alignment, the cell text, a numeric sort key and a tone. Markdown, HTML and the terminal only
 * decide how a `Table` is drawn, never what is in it.
 */
import { VERDICT_BANDS, type Ceiling, type Estimate, type LoaderFloor, type ProfileRecord, type TargetInfo } from '@benchsuite/sdk';
import { pairVerdictText } from './notes.js';
import { shortFrame } from './flame.js';
import { DASH, fmtBytes, fmtEstimate, fmtHalfWidth, fmtInt, fmtMs, fmtPct, fmtRatio, fmtRps, fmtSignedPct, fmtUs, valueText } from './units.js';
import { placeText, type Fact, type PairRow, type PlaceRow, type ProfileView, type ReportModel, type StepRow } from './model.js';

type Align = 'left' | 'right';
/** How a cell should stand out: renderers map it to a mark, a class or a colour. */
export type Tone = 'good' | 'warn' | 'bad';

export interface Column<Row> {
  id: string;
  label: string;
  /** What the column holds, in one sentence (HTML `title`, Markdown legend). */
  help?: string;
  align: Align;
  /** Plain, unescaped cell text; renderers escape. */
  text: (row: Row) => string;
  /** Numeric sort key (HTML sortable tables); absent or null sorts last. */
  sort?: (row: Row) => number | null;
  tone?: (row: Row) => Tone | null;
  /** Kept in the narrow terminal table. */
  brief?: boolean;
  /** The column names a target (HTML adds its colour). */
  target?: boolean;
  /** The text holds only numbers and fixed words, never a string from the result: Markdown need not escape it (`[lo, hi]` stays readable). */
  numeric?: boolean;
}

export interface Table<Row> {
  columns: Column<Row>[];
  rows: Row[];
}

const point = (e: Estimate | null | undefined) => (e ? e.point : null);
/** `0`, or the non-zero counts by bottleneck: `2 client, 1 waiting, 2 loader`. */
const boundText = (client: number, backend: number, waiting: number, loader: number) =>
  [
    [client, 'client'],
    [backend, 'backend'],
    [waiting, 'waiting'],
    [loader, 'loader'],
  ]
    .filter(([n]) => n)
    .map(([n, w]) => `${n} ${w}`)
    .join(', ') || '0';
const ratioCell = (isRef: boolean, e: Estimate | null) => (isRef ? '1 (reference)' : fmtEstimate(e, fmtRatio));

/** The headline table of a scenario: one row per measured target. */
export function headlineColumns(m: ReportModel): Column<PairRow>[] {
  return [...figureColumns(m.reference), ...shareColumns(m), ...latencyColumns(), ...trustColumns(m.reference, m.result.design.precision), ...countColumns()];
}

/** The headline's place and figures: throughput and CPU per request, each alone and relative to the reference. */
function figureColumns(ref: string): Column<PairRow>[] {
  return [
    {
      id: 'place',
      label: 'Place',
      align: 'right',
      brief: true,
      help: 'place by relative throughput: the range of ranks its interval allows ("2–4": three places open to it; results before ranges mark a shared place "=")',
      text: (r) => (r.place === null ? DASH : placeText({ place: r.place, worst: r.worst, tie: r.tie }, '=')),
      sort: (r) => r.place,
    },
    { id: 'target', label: 'Target', align: 'left', brief: true, target: true, text: (r) => r.target },
    {
      id: 'relative',
      label: `Throughput ÷ ${ref}`,
      align: 'right',
      brief: true,
      numeric: true,
      help: `median of the per-round ratios of req/s to ${ref}, measured side by side, with its 95% interval`,
      text: (r) => ratioCell(r.isReference, r.summary.relativeRps),
      sort: (r) => (r.isReference ? 1 : point(r.summary.relativeRps)),
    },
    {
      id: 'rps',
      label: 'req/s (median)',
      align: 'right',
      brief: true,
      numeric: true,
      help: 'median req/s over the windows, with its 95% interval (blocks, then rounds, resampled)',
      text: (r) => fmtEstimate(r.summary.rps, fmtRps),
      sort: (r) => r.summary.rps.point,
    },
    {
      id: 'cpu',
      label: 'CPU µs/req',
      align: 'right',
      brief: true,
      numeric: true,
      help: 'server CPU time (user + system of its process tree) per response, µs, median over windows with its 95% interval',
      text: (r) => fmtEstimate(r.summary.cpuPerRequestUs, fmtUs),
      sort: (r) => point(r.summary.cpuPerRequestUs),
    },
    {
      id: 'relative-cpu',
      label: `CPU ÷ ${ref}`,
      align: 'right',
      brief: true,
      numeric: true,
      help: `median of the per-round ratios of CPU per request to ${ref}'s, with its 95% interval (lower is cheaper)`,
      text: (r) => ratioCell(r.isReference, r.summary.relativeCpu),
      sort: (r) => (r.isReference ? 1 : point(r.summary.relativeCpu)),
    },
  ];
}

/** What share of a ceiling the figure reached: the backend's own, and the loader's floor (each only when a pair has it). */
function shareColumns(m: ReportModel): Column<PairRow>[] {
  return [
    ...(m.result.summaries.some((s) => s.backendShare !== null)
      ? [
          {
            id: 'backend-share',
            label: 'Of backend ceiling',
            align: 'right',
            brief: true,
            help: "median req/s ÷ the backend's own ceiling (the helper service loaded directly): near 100% the backend, not the target, sets the figure",
            text: (r) => fmtPct(r.summary.backendShare, 0),
            sort: (r) => r.summary.backendShare,
          } satisfies Column<PairRow>,
        ]
      : []),
    ...(m.result.summaries.some((s) => s.loaderShare)
      ? [
          {
            id: 'loader-share',
            label: 'Loader share',
            align: 'right',
            brief: true,
            numeric: true,
            help: "median req/s ÷ the loader's own floor (the driver against a trivial responder on the server's cores) at the low connection count where it is highest: the loader's share of the round trip; a difference between targets shows at (1 − share) of its size; marked above the run's flag",
            text: (r) => (r.summary.loaderShare ? `${fmtPct(r.summary.loaderShare.share, 0)} at c=${r.summary.loaderShare.connections}` : DASH),
            sort: (r) => r.summary.loaderShare?.share ?? null,
            tone: (r) => (r.summary.loaderShare?.flagged ? 'warn' : null),
          } satisfies Column<PairRow>,
        ]
      : []),
  ];
}

/** Latency percentiles. */
function latencyColumns(): Column<PairRow>[] {
  return [
    {
      id: 'p50',
      label: 'p50',
      align: 'right',
      text: (r) => fmtMs(r.summary.latency.p50),
      sort: (r) => r.summary.latency.p50,
      help: 'latency percentiles of the histogram merged over the used windows',
    },
    { id: 'p99', label: 'p99', align: 'right', brief: true, text: (r) => fmtMs(r.summary.latency.p99), sort: (r) => r.summary.latency.p99 },
    { id: 'p999', label: 'p99.9', align: 'right', text: (r) => fmtMs(r.summary.latency.p999), sort: (r) => r.summary.latency.p999 },
  ];
}

/** How far the figure can be trusted: precision reached, CoV verdict, host noise. */
function trustColumns(ref: string, precision: number): Column<PairRow>[] {
  return [
    {
      id: 'precision',
      label: `Precision (target ${fmtHalfWidth(precision)})`,
      align: 'right',
      brief: true,
      help: `half-width of the headline figure's 95% interval (relative throughput; req/s for ${ref}); ✓ when within the target`,
      text: (r) => `${fmtHalfWidth(r.summary.precision.reached)} ${r.summary.precision.met ? '✓' : '✗'}`,
      sort: (r) => r.summary.precision.reached,
      tone: (r) => (r.summary.precision.met ? null : 'warn'),
    },
    {
      id: 'verdict',
      label: 'Verdict (CoV)',
      align: 'left',
      brief: true,
      help: "CoV verdict: the headline figure's CoV over blocks (fresh processes) and the windows' CoV within blocks; the word is the blocks' band (the windows' with one block)",
      text: (r) => pairVerdictText(r.summary.verdict),
      sort: (r) => (r.summary.verdict ? VERDICT_BANDS.indexOf(r.summary.verdict.band) : null),
      tone: (r) => (r.summary.verdict?.band === 'unreliable' ? 'bad' : r.summary.verdict?.band === 'noisy' ? 'warn' : null),
    },
    {
      id: 'noise',
      label: 'Noise',
      align: 'left',
      brief: true,
      help: 'host-noise label of this pair, with the mean CPU steal of its windows',
      text: (r) => `${r.summary.noise.label}, steal ${fmtPct(r.summary.noise.meanSteal)}`,
      sort: (r) => r.summary.noise.meanSteal,
      tone: (r) => (r.summary.noise.label === 'quiet' ? null : 'warn'),
    },
  ];
}

/** What is behind the figure: windows used and bound, errors, blocks, memory. */
function countColumns(): Column<PairRow>[] {
  return [
    {
      id: 'windows',
      label: 'Windows used / excluded',
      align: 'right',
      help: 'windows in the estimates / left out for CPU steal (kept in the raw data); failed windows counted apart',
      text: (r) => {
        const w = r.summary.windows;
        return `${w.ok - w.excludedSteal} / ${w.excludedSteal}${w.failed ? `, ${w.failed} failed` : ''}`;
      },
      sort: (r) => r.summary.windows.ok - r.summary.windows.excludedSteal,
      tone: (r) => (r.summary.windows.failed ? 'bad' : null),
    },
    {
      id: 'bound',
      label: 'Bound windows',
      align: 'right',
      help: "windows whose req/s was set by something other than the server's CPU: client (the load generator saturated), backend (a helper service saturated), waiting (the server's cores were far from busy), loader (judged by the server: its cores not all busy while the loader's core was)",
      text: (r) => boundText(r.summary.windows.clientBound, r.summary.windows.backendBound, r.summary.windows.serverNotSaturated, r.summary.windows.loaderBound),
      sort: (r) => r.summary.windows.clientBound + r.summary.windows.backendBound + r.summary.windows.serverNotSaturated + r.summary.windows.loaderBound,
      tone: (r) => (r.summary.windows.clientBound + r.summary.windows.backendBound + r.summary.windows.serverNotSaturated + r.summary.windows.loaderBound ? 'warn' : null),
    },
    {
      id: 'errors',
      label: 'Errors / unexpected',
      align: 'right',
      help: 'socket errors and timeouts / responses with a status the scenario does not expect',
      text: (r) => `${fmtInt(r.summary.errors + r.summary.timeouts)} / ${fmtInt(r.summary.unexpected)}`,
      sort: (r) => r.summary.errors + r.summary.timeouts + r.summary.unexpected,
      tone: (r) => (r.summary.errors + r.summary.timeouts + r.summary.unexpected ? 'bad' : null),
    },
    { id: 'blocks', label: 'Blocks', align: 'right', help: 'blocks (fresh server processes) behind the figures', text: (r) => String(r.summary.blocks), sort: (r) => r.summary.blocks },
    {
      id: 'rss',
      label: 'Peak RSS',
      align: 'right',
      help: "peak resident memory of the server's process tree under load",
      text: (r) => fmtBytes(r.summary.peakRssBytes),
      sort: (r) => r.summary.peakRssBytes,
    },
  ];
}

/** Per connection step of a stepped load. */
export function stepColumns(m: ReportModel): Column<StepRow>[] {
  const ref = m.reference;
  return [
    { id: 'target', label: 'Target', align: 'left', brief: true, target: true, text: (r) => r.target },
    { id: 'connections', label: 'Connections', align: 'right', brief: true, text: (r) => String(r.step.connections), sort: (r) => r.step.connections },
    {
      id: 'relative',
      label: `Throughput ÷ ${ref}`,
      align: 'right',
      brief: true,
      numeric: true,
      help: `median of the per-round ratios at this step, with its 95% interval`,
      text: (r) => ratioCell(r.isReference, r.step.relativeRps),
      sort: (r) => (r.isReference ? 1 : point(r.step.relativeRps)),
    },
    { id: 'rps', label: 'req/s (median)', align: 'right', brief: true, numeric: true, text: (r) => fmtEstimate(r.step.rps, fmtRps), sort: (r) => r.step.rps.point },
    { id: 'p50', label: 'p50', align: 'right', text: (r) => fmtMs(r.step.latency.p50), sort: (r) => r.step.latency.p50 },
    { id: 'p99', label: 'p99', align: 'right', brief: true, text: (r) => fmtMs(r.step.latency.p99), sort: (r) => r.step.latency.p99 },
    { id: 'p999', label: 'p99.9', align: 'right', text: (r) => fmtMs(r.step.latency.p999), sort: (r) => r.step.latency.p999 },
    {
      id: 'status',
      label: 'Status mix',
      align: 'left',
      brief: true,
      help: 'answers by status code at this step over the used windows, then socket errors and timeouts; ✓ clean (every answer expected, none failed)',
      text: (r) => statusMixText(r.step),
      sort: (r) => (r.step.unexpected ?? 0) + (r.step.errors ?? 0) + (r.step.timeouts ?? 0),
      tone: (r) => (r.step.clean === false ? 'bad' : null),
    },
    {
      id: 'bound',
      label: 'Bound windows',
      align: 'right',
      brief: true,
      text: (r) => boundText(r.step.clientBoundWindows, r.step.backendBoundWindows, r.step.serverNotSaturatedWindows, r.step.loaderBoundWindows),
      sort: (r) => r.step.clientBoundWindows + r.step.backendBoundWindows + r.step.serverNotSaturatedWindows + r.step.loaderBoundWindows,
      tone: (r) => (r.step.clientBoundWindows + r.step.backendBoundWindows + r.step.serverNotSaturatedWindows + r.step.loaderBoundWindows ? 'warn' : null),
    },
  ];
}

/** `200×1 234 ✓` or `200×1 227, 500×7, 2 errors, 1 timeout ✗`; a dash for results recorded before the status mix was kept. */
function statusMixText(step: { statusCounts?: Record<string, number> | undefined; errors?: number | undefined; timeouts?: number | undefined; clean?: boolean | undefined }): string {
  if (!step.statusCounts) return DASH;
  const parts = Object.entries(step.statusCounts)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([code, n]) => `${code}×${fmtInt(n)}`);
  if (step.errors) parts.push(`${fmtInt(step.errors)} error${step.errors === 1 ? '' : 's'}`);
  if (step.timeouts) parts.push(`${fmtInt(step.timeouts)} timeout${step.timeouts === 1 ? '' : 's'}`);
  return `${parts.join(', ') || 'no answer'} ${step.clean ? '✓' : '✗'}`;
}

/** A concurrency sweep per target: the best clean point and the knee read off its curve. */
export function sweepColumns(m: ReportModel): Column<PairRow>[] {
  const gain = m.result.summaries.find((x) => x.sweep)?.sweep?.kneeGain;
  const sweep = (r: PairRow) => r.summary.sweep;
  return [
    { id: 'target', label: 'Target', align: 'left', brief: true, target: true, text: (r) => r.target },
    {
      id: 'best-clean',
      label: 'Best clean point',
      align: 'right',
      brief: true,
      numeric: true,
      help: 'the highest median req/s at a level where every answer had an expected status, with no error or timeout: at how many connections, and its 95% interval',
      text: (r) => {
        const b = sweep(r)?.bestClean;
        return b ? `${fmtEstimate(b.rps, fmtRps)} at ${b.connections}` : 'no clean level';
      },
      sort: (r) => sweep(r)?.bestClean?.rps.point ?? null,
      tone: (r) => (sweep(r)?.bestClean ? null : 'bad'),
    },
    { id: 'best-p50', label: 'p50 there', align: 'right', text: (r) => fmtMs(sweep(r)?.bestClean?.p50), sort: (r) => sweep(r)?.bestClean?.p50 ?? null },
    { id: 'best-p99', label: 'p99 there', align: 'right', brief: true, text: (r) => fmtMs(sweep(r)?.bestClean?.p99), sort: (r) => sweep(r)?.bestClean?.p99 ?? null },
    {
      id: 'knee',
      label: 'Knee',
      align: 'right',
      brief: true,
      help: `the first level past which req/s gains less than ${fmtPct(gain ?? null, 0)} while p99 still grows: its connections, then the next level's gain`,
      text: (r) => {
        const k = sweep(r)?.knee;
        return k ? `${k.connections} (→ ${k.nextConnections}: ${fmtSignedPct(k.nextGain * 100)})` : 'none within the levels';
      },
      sort: (r) => sweep(r)?.knee?.connections ?? null,
    },
    {
      id: 'unclean',
      label: 'Unclean levels',
      align: 'right',
      brief: true,
      help: 'levels with errors, timeouts or unexpected statuses, left out of the best clean point',
      text: (r) => sweep(r)?.uncleanLevels.join(', ') || 'none',
      sort: (r) => sweep(r)?.uncleanLevels.length ?? null,
      tone: (r) => (sweep(r)?.uncleanLevels.length ? 'warn' : null),
    },
  ];
}

/** Throughput per server process and per server core used. */
export function perProcessColumns(): Column<PairRow>[] {
  const pp = (r: PairRow) => r.summary.perProcess;
  return [
    { id: 'target', label: 'Target', align: 'left', brief: true, target: true, text: (r) => r.target },
    {
      id: 'processes',
      label: 'Processes',
      align: 'right',
      brief: true,
      help: "processes of the server's tree that did the work (each over a small share of its CPU), median over windows; the tree's largest size in brackets",
      text: (r) => (pp(r) ? `${Number(pp(r)!.processes.toFixed(1))} (${pp(r)!.treeProcesses})` : DASH),
      sort: (r) => pp(r)?.processes ?? null,
    },
    {
      id: 'cores',
      label: 'Cores used',
      align: 'right',
      brief: true,
      numeric: true,
      help: 'server tree CPU seconds ÷ window seconds, median with its 95% interval',
      text: (r) => fmtEstimate(pp(r)?.coresUsed, (x) => x.toFixed(2)),
      sort: (r) => pp(r)?.coresUsed.point ?? null,
    },
    {
      id: 'per-process',
      label: 'req/s per process',
      align: 'right',
      brief: true,
      numeric: true,
      help: 'req/s ÷ working processes, median over windows with its 95% interval',
      text: (r) => fmtEstimate(pp(r)?.rpsPerProcess, fmtRps),
      sort: (r) => pp(r)?.rpsPerProcess.point ?? null,
    },
    {
      id: 'per-core',
      label: 'req/s per core',
      align: 'right',
      brief: true,
      numeric: true,
      help: 'req/s ÷ cores used = responses per server CPU-second, median over windows with its 95% interval',
      text: (r) => fmtEstimate(pp(r)?.rpsPerCore, fmtRps),
      sort: (r) => pp(r)?.rpsPerCore.point ?? null,
    },
  ];
}

/** A scenario's ranking: each target's place, a range of ranks where its interval allows several. */
export function rankingColumns(m: ReportModel): Column<PlaceRow>[] {
  return [
    { id: 'place', label: 'Place', align: 'left', brief: true, text: (r) => placeText(r, ' (tie)'), sort: (r) => r.place },
    { id: 'target', label: 'Target', align: 'left', brief: true, target: true, text: (r) => r.target },
    {
      id: 'relative',
      label: `Throughput ÷ ${m.reference}`,
      align: 'right',
      brief: true,
      numeric: true,
      text: (r) => ratioCell(r.isReference, r.relative),
      sort: (r) => (r.isReference ? 1 : point(r.relative)),
    },
    { id: 'rps', label: 'req/s (median)', align: 'right', brief: true, numeric: true, text: (r) => fmtEstimate(r.rps, fmtRps), sort: (r) => point(r.rps) },
  ];
}

/** Backends' own ceilings (scenarios whose targets call a helper service). */
export function ceilingColumns(): Column<Ceiling>[] {
  return [
    { id: 'scenario', label: 'Scenario', align: 'left', brief: true, text: (c) => c.scenario },
    { id: 'service', label: 'Service', align: 'left', brief: true, text: (c) => `${c.service} (of ${c.from})` },
    { id: 'connections', label: 'Connections', align: 'right', brief: true, text: (c) => String(c.connections), sort: (c) => c.connections },
    {
      id: 'rps',
      label: 'req/s (median)',
      align: 'right',
      brief: true,
      numeric: true,
      text: (c) => `${fmtEstimate(c.rps, fmtRps)}${c.clientBound ? ' (client-bound: at least)' : ''}`,
      sort: (c) => c.rps.point,
      tone: (c) => (c.clientBound ? 'warn' : null),
    },
  ];
}

/** One row per (scenario, connections) of the loader's round-trip floors. */
export interface FloorRow {
  floor: LoaderFloor;
  step: LoaderFloor['steps'][number];
}

/** The loader's round-trip floors: the driver against a trivial responder, per scenario and low connection count. */
export function floorColumns(): Column<FloorRow>[] {
  return [
    { id: 'scenario', label: 'Scenario', align: 'left', brief: true, text: (r) => r.floor.scenario },
    { id: 'driver', label: 'Driver', align: 'left', brief: true, text: (r) => r.floor.driver },
    { id: 'connections', label: 'Connections', align: 'right', brief: true, text: (r) => String(r.step.connections), sort: (r) => r.step.connections },
    {
      id: 'rps',
      label: 'Floor req/s (median)',
      align: 'right',
      brief: true,
      numeric: true,
      help: 'req/s the driver reached against the trivial responder, median over its windows (after every block) with its 95% interval: the most it can send at this connection count, its own time per request included',
      text: (r) => fmtEstimate(r.step.rps, fmtRps),
      sort: (r) => r.step.rps.point,
    },
    {
      id: 'windows',
      label: 'Windows (client-bound)',
      align: 'right',
      help: "the floor's windows, and those whose loader was saturated (there the floor is the loader's ceiling, not a round trip)",
      text: (r) => `${r.step.rps.n}${r.step.clientBoundWindows ? ` (${r.step.clientBoundWindows})` : ''}`,
      sort: (r) => r.step.clientBoundWindows,
      tone: (r) => (r.step.clientBoundWindows ? 'warn' : null),
    },
    { id: 'p50', label: 'p50', align: 'right', brief: true, text: (r) => fmtMs(r.step.latency.p50), sort: (r) => r.step.latency.p50 },
    { id: 'mean', label: 'Mean', align: 'right', brief: true, text: (r) => fmtMs(r.step.latency.mean), sort: (r) => r.step.latency.mean },
    { id: 'p99', label: 'p99', align: 'right', text: (r) => fmtMs(r.step.latency.p99), sort: (r) => r.step.latency.p99 },
  ];
}

/** The rows of the floors table, in the result's order. */
export const floorRows = (floors: readonly LoaderFloor[] | undefined): FloorRow[] => (floors ?? []).flatMap((floor) => floor.steps.map((step) => ({ floor, step })));

/** Startup, memory and size of each target that measured costs. */
export function costColumns(): Column<TargetInfo>[] {
  const c = (t: TargetInfo) => t.costs!;
  return [
    { id: 'target', label: 'Target', align: 'left', brief: true, target: true, text: (t) => t.name },
    {
      id: 'startup',
      label: 'Startup (median)',
      align: 'right',
      brief: true,
      help: 'spawn to the first 200 on the health path, median of cold starts',
      text: (t) => `${c(t).startupMs.median.toFixed(1)} ms (n=${c(t).startupMs.samples.length})`,
      sort: (t) => c(t).startupMs.median,
    },
    { id: 'idle-rss', label: 'Idle RSS', align: 'right', brief: true, text: (t) => fmtBytes(c(t).idleRssBytes), sort: (t) => c(t).idleRssBytes },
    { id: 'idle-pss', label: 'Idle PSS', align: 'right', brief: true, text: (t) => fmtBytes(c(t).idlePssBytes), sort: (t) => c(t).idlePssBytes },
    { id: 'processes', label: 'Processes', align: 'right', brief: true, text: (t) => String(c(t).processCount), sort: (t) => c(t).processCount },
    { id: 'peak-rss', label: 'Peak RSS under load', align: 'right', brief: true, text: (t) => fmtBytes(c(t).peakRssBytes), sort: (t) => c(t).peakRssBytes },
    { id: 'artifact', label: 'Artifact size', align: 'right', brief: true, text: (t) => (c(t).artifact ? fmtBytes(c(t).artifact!.bytes) : DASH), sort: (t) => c(t).artifact?.bytes ?? null },
  ];
}

type ProfileSummary = NonNullable<ProfileRecord['summary']>;

/** Functions shown per profile in the reports (the result keeps more). */
const PROFILE_TOP_ROWS = 10;

/** One line of a profile's top functions. */
export interface ProfileFunctionRow {
  rank: number;
  fn: ProfileSummary['top'][number];
}

/** The first `n` functions of a profile by self share, ranked. */
export const topFunctionRows = (summary: ProfileSummary, n = PROFILE_TOP_ROWS): ProfileFunctionRow[] => summary.top.slice(0, n).map((fn, i) => ({ rank: i + 1, fn }));

/** A profile's top functions by self time (long file paths cut to their last segments). */
export function profileFunctionColumns(): Column<ProfileFunctionRow>[] {
  return [
    { id: 'rank', label: '#', align: 'right', numeric: true, text: (r) => String(r.rank), sort: (r) => r.rank },
    { id: 'function', label: 'Function', align: 'left', text: (r) => shortFrame(r.fn.name) },
    { id: 'group', label: 'Group', align: 'left', help: 'the package, or own code, contract code, runtime, gc, kernel, other', text: (r) => r.fn.group },
    {
      id: 'self',
      label: 'Self',
      align: 'right',
      numeric: true,
      help: 'share of busy CPU time with this function on top of the stack',
      text: (r) => fmtPct(r.fn.self),
      sort: (r) => r.fn.self,
    },
    {
      id: 'total',
      label: 'Total',
      align: 'right',
      numeric: true,
      help: 'share of busy CPU time with this function anywhere on the stack',
      text: (r) => fmtPct(r.fn.total),
      sort: (r) => r.fn.total,
    },
  ];
}

/** One group of code across the targets of a scenario: its self share in each target's profile. */
export interface PackageShareRow {
  name: string;
  kind: string;
  /** Self share per target, in the table's column order; null when the profile has no such group. */
  shares: (number | null)[];
}

/**
 * Time by package, the targets of a scenario side by side: one row per group (a package, own code,
 * the runtime…), the `maxGroups` largest by their biggest share in any target, the rest summed into
 * one `other` row. Only profiles with a summary take part.
 */
export function packageTable(views: readonly ProfileView[], maxGroups = 8): Table<PackageShareRow> {
  const ok = views.filter((v): v is ProfileView & { summary: ProfileSummary } => v.summary !== null);
  const key = (g: { kind: string; name: string }) => `${g.kind}\u0000${g.name}`;
  const groups = new Map<string, { name: string; kind: string; peak: number }>();
  for (const v of ok) {
    for (const g of v.summary.byPackage) {
      const k = key(g);
      const e = groups.get(k) ?? { name: g.name, kind: g.kind, peak: 0 };
      e.peak = Math.max(e.peak, g.self);
      groups.set(k, e);
    }
  }
  const ordered = [...groups].sort((a, b) => b[1].peak - a[1].peak || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const kept = ordered.slice(0, maxGroups);
  const rest = ordered.slice(maxGroups);
  const shareOf = (v: (typeof ok)[number], keys: readonly string[]) => {
    const found = v.summary.byPackage.filter((g) => keys.includes(key(g)));
    return found.length ? found.reduce((a, g) => a + g.self, 0) : null;
  };
  const rows: PackageShareRow[] = kept.map(([k, g]) => ({ name: g.name, kind: g.kind, shares: ok.map((v) => shareOf(v, [k])) }));
  if (rest.length)
    rows.push({
      name: `other (${rest.length} groups)`,
      kind: DASH,
      shares: ok.map((v) =>
        shareOf(
          v,
          rest.map(([k]) => k),
        ),
      ),
    });
  return {
    columns: [
      { id: 'group', label: 'Group', align: 'left', text: (r) => r.name },
      { id: 'kind', label: 'Kind', align: 'left', help: "own: the target's code; contract: the shared contract code; package: a dependency; runtime, kernel, other", text: (r) => r.kind },
      ...ok.map(
        (v, i): Column<PackageShareRow> => ({
          id: `t${i}`,
          label: v.target,
          align: 'right',
          numeric: true,
          help: `share of ${v.target}'s busy CPU time with this group's code on top of the stack`,
          text: (r) => fmtPct(r.shares[i]),
          sort: (r) => r.shares[i] ?? null,
        }),
      ),
    ],
    rows,
  };
}

/** One row of the targets table (a property, one value per target). */
export interface TargetProperty {
  label: string;
  values: string[];
  meta: boolean;
}

/** Targets side by side: status, version, command, then every fairness-manifest key. */
export function targetTable(m: ReportModel): Table<TargetProperty> {
  const ts = m.result.targets;
  const row = (label: string, f: (t: TargetInfo) => string, meta = false): TargetProperty => ({ label, values: ts.map(f), meta });
  return {
    columns: [
      { id: 'property', label: '', align: 'left', text: (r) => r.label },
      ...ts.map((t, i): Column<TargetProperty> => ({ id: `t${i}`, label: t.name, align: 'left', target: true, text: (r) => r.values[i] ?? DASH })),
    ],
    rows: [
      row('Status', (t) => (t.status === 'ok' ? 'ok' : `${t.status}: ${t.reason ?? 'no reason given'}`)),
      row('Version', (t) => t.version ?? DASH),
      row('Language', (t) => t.language ?? DASH),
      row('Framework', (t) => t.framework ?? DASH),
      row('Kind', (t) => t.kind),
      row('Command / URL', (t) => (t.command ? t.command.join(' ') : (t.url ?? DASH))),
      ...m.metadataKeys.map((k) => row(k, (t) => (k in t.metadata ? valueText(t.metadata[k]) : DASH), true)),
    ],
  };
}

/** The machine and runtimes as label/value rows. */
export function machineFacts(m: ReportModel): Fact[] {
  const e = m.result.environment;
  return [
    { label: 'OS', text: `${e.os} (kernel ${e.kernel}, ${e.arch})` },
    { label: 'CPU', text: `${e.cpuModel}, ${e.cores} cores` },
    { label: 'Memory', text: fmtBytes(e.memoryBytes) },
    ...(e.hostname ? [{ label: 'Host', text: e.hostname }] : []),
    { label: 'Load average at start', text: e.loadavgAtStart.map((x) => x.toFixed(2)).join(' / ') || DASH },
    { label: 'Runtimes', text: `Node ${e.node}, Python ${e.python ?? 'not found'}` },
    { label: 'benchsuite', text: `${e.benchsuite}${e.git ? ` @ ${e.git.commit.slice(0, 12)}${e.git.dirty ? ' (dirty)' : ''}` : ''}` },
    {
      label: 'Server environment',
      text: `unset: ${e.serverEnv.unset.join(', ') || 'none'}; set: ${
        Object.entries(e.serverEnv.set)
          .map(([k, v]) => `${k}=${v}`)
          .join(', ') || 'none'
      }`,
    },
  ];
}
