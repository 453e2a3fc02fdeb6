/**
 * Streaming scenarios (`kind: 'stream'`): levels of concurrent streams, cancellation and
 * backpressure, specified once and drawn by the markdown, HTML and terminal renderers; and the
 * progress line of each streaming phase (the CLI prints it).
 */
import { median, type BenchResult, type StreamResult, type SuiteEvent } from '@benchsuite/sdk';
import { DASH, fmtBytes, fmtInt, fmtPct, fmtRps } from './format.js';
import type { Table } from './tables.js';

type Level = StreamResult['blocks'][number]['levels'][number];
type Cancel = NonNullable<StreamResult['blocks'][number]['cancel']>;
type Backpressure = NonNullable<StreamResult['blocks'][number]['backpressure']>;

/** A latency held in µs as ms with two decimals (streams are slower than requests). */
const ms = (us: number | null | undefined) => (us == null || !Number.isFinite(us) ? DASH : `${(us / 1000).toFixed(2)} ms`);
const med = (xs: number[]) => (xs.length ? median(xs) : null);
/** The median over blocks, with the lowest and highest block when there are several: `812 (790–830)`. */
function acrossBlocks(xs: number[], f: (x: number) => string): string {
  if (!xs.length) return DASH;
  const m = f(med(xs)!);
  return xs.length > 1 ? `${m} (${f(Math.min(...xs))}–${f(Math.max(...xs))})` : m;
}

interface LevelRow {
  scenario: string;
  target: string;
  streams: number;
  levels: Level[];
}

/** One row per (scenario, target, level of concurrent streams): figures over blocks. */
function streamLevelTable(result: BenchResult): Table<LevelRow> {
  const rows: LevelRow[] = [];
  for (const r of result.streaming ?? []) {
    const levels = r.blocks.flatMap((b) => b.levels);
    for (const streams of [...new Set(levels.map((l) => l.streams))].sort((a, b) => a - b)) {
      rows.push({ scenario: r.scenario, target: r.target, streams, levels: levels.filter((l) => l.streams === streams) });
    }
  }
  const lat = (pick: (l: Level) => number) => (r: LevelRow) => acrossBlocks(r.levels.map(pick), ms);
  return {
    columns: [
      { id: 'scenario', label: 'Scenario', align: 'left', brief: true, text: (r) => r.scenario },
      { id: 'target', label: 'Target', align: 'left', brief: true, target: true, text: (r) => r.target },
      { id: 'streams', label: 'Streams', help: 'concurrent streams kept open (closed loop)', align: 'right', brief: true, numeric: true, text: (r) => fmtInt(r.streams) },
      {
        id: 'streams-per-sec',
        label: 'Completed/s',
        help: 'streams completed per second inside the window: median over blocks (fresh processes), lowest–highest block in brackets',
        align: 'right',
        brief: true,
        numeric: true,
        text: (r) =>
          acrossBlocks(
            r.levels.map((l) => l.streamsPerSec),
            fmtRps,
          ),
        sort: (r) => med(r.levels.map((l) => l.streamsPerSec)),
      },
      {
        id: 'events-per-sec',
        label: 'Events/s',
        help: 'SSE events received per second inside the window',
        align: 'right',
        numeric: true,
        text: (r) =>
          acrossBlocks(
            r.levels.map((l) => l.eventsPerSec),
            fmtRps,
          ),
      },
      { id: 'ttfb', label: 'TTFB p50', help: 'request sent → response headers', align: 'right', numeric: true, text: lat((l) => l.ttfb.p50) },
      { id: 'first', label: 'First token p50', help: 'request sent → the first token event', align: 'right', brief: true, numeric: true, text: lat((l) => l.firstDelta.p50) },
      { id: 'first99', label: 'First token p99', align: 'right', numeric: true, text: lat((l) => l.firstDelta.p99) },
      { id: 'gap50', label: 'Gap p50', help: 'time between consecutive token events of a stream', align: 'right', brief: true, numeric: true, text: lat((l) => l.gap.p50) },
      { id: 'gap99', label: 'Gap p99', align: 'right', brief: true, numeric: true, text: lat((l) => l.gap.p99) },
      {
        id: 'errors',
        label: 'Errors',
        help: 'streams that failed (status, socket error, no end event, timeout), over all blocks',
        align: 'right',
        numeric: true,
        text: (r) => fmtInt(r.levels.reduce((a, l) => a + l.errors, 0)),
        tone: (r) => (r.levels.some((l) => l.errors > 0) ? 'bad' : null),
      },
      { id: 'rss', label: 'Peak RSS', align: 'right', numeric: true, text: (r) => fmtBytes(Math.max(0, ...r.levels.map((l) => l.peakRssBytes ?? 0)) || null) },
      { id: 'steal', label: 'Steal', help: 'mean CPU steal over the windows', align: 'right', numeric: true, text: (r) => fmtPct(r.levels.reduce((a, l) => a + l.cpuSteal, 0) / r.levels.length) },
    ],
    rows,
  };
}

interface CancelRow {
  scenario: string;
  target: string;
  cancels: Cancel[];
}

/** One row per (scenario, target): disconnects, upstream aborts, never aborted, and the abort latency. */
function streamCancelTable(result: BenchResult): Table<CancelRow> {
  const rows: CancelRow[] = (result.streaming ?? [])
    .map((r) => ({ scenario: r.scenario, target: r.target, cancels: r.blocks.flatMap((b) => (b.cancel ? [b.cancel] : [])) }))
    .filter((r) => r.cancels.length);
  const sum = (r: CancelRow, f: (c: Cancel) => number) => r.cancels.reduce((a, c) => a + f(c), 0);
  const lat = (pick: (c: Cancel) => number) => (r: CancelRow) => acrossBlocks(r.cancels.filter((c) => c.aborted > 0).map(pick), ms);
  return {
    columns: [
      { id: 'scenario', label: 'Scenario', align: 'left', brief: true, text: (r) => r.scenario },
      { id: 'target', label: 'Target', align: 'left', brief: true, target: true, text: (r) => r.target },
      {
        id: 'disconnects',
        label: 'Disconnects',
        help: 'clients that went away mid-stream, one after another, over all blocks',
        align: 'right',
        brief: true,
        numeric: true,
        text: (r) => fmtInt(sum(r, (c) => c.disconnects)),
      },
      { id: 'aborted', label: 'Aborted upstream', align: 'right', brief: true, numeric: true, text: (r) => fmtInt(sum(r, (c) => c.aborted)) },
      {
        id: 'never',
        label: 'Never aborted',
        help: 'upstream requests that completed, or still ran when the wait ended, after their client had gone',
        align: 'right',
        brief: true,
        numeric: true,
        text: (r) => fmtInt(sum(r, (c) => c.neverAborted)),
        tone: (r) => (sum(r, (c) => c.neverAborted) > 0 ? 'bad' : null),
      },
      {
        id: 'p50',
        label: 'Abort p50',
        help: 'client disconnect → the backend saw its request aborted: median over blocks',
        align: 'right',
        brief: true,
        numeric: true,
        text: lat((c) => c.latency.p50),
      },
      { id: 'p99', label: 'Abort p99', align: 'right', brief: true, numeric: true, text: lat((c) => c.latency.p99) },
      { id: 'max', label: 'Abort max', align: 'right', numeric: true, text: lat((c) => c.latency.max) },
      {
        id: 'clock',
        label: '± clock',
        help: "uncertainty of the alignment of the two processes' clocks (half the quickest round trip)",
        align: 'right',
        numeric: true,
        text: (r) => `${Math.max(...r.cancels.map((c) => c.clockUncertaintyMs)).toFixed(2)} ms`,
      },
    ],
    rows,
  };
}

interface BackpressureRow {
  scenario: string;
  target: string;
  runs: Backpressure[];
}

/** One row per (scenario, target): the slow reader's memory growth and whether the backend was throttled. */
function streamBackpressureTable(result: BenchResult): Table<BackpressureRow> {
  const rows: BackpressureRow[] = (result.streaming ?? [])
    .map((r) => ({ scenario: r.scenario, target: r.target, runs: r.blocks.flatMap((b) => (b.backpressure ? [b.backpressure] : [])) }))
    .filter((r) => r.runs.length);
  return {
    columns: [
      { id: 'scenario', label: 'Scenario', align: 'left', brief: true, text: (r) => r.scenario },
      { id: 'target', label: 'Target', align: 'left', brief: true, target: true, text: (r) => r.target },
      { id: 'reader', label: 'Reader', align: 'right', numeric: true, text: (r) => `${fmtBytes(r.runs[0]!.readBytesPerSec)}/s for ${r.runs[0]!.durationSec} s` },
      {
        id: 'growth',
        label: 'RSS growth',
        help: "peak − start RSS of the target's process tree while one client read slowly: median over blocks",
        align: 'right',
        brief: true,
        numeric: true,
        text: (r) =>
          acrossBlocks(
            r.runs.map((x) => x.rssGrowthBytes),
            fmtBytes,
          ),
        sort: (r) => med(r.runs.map((x) => x.rssGrowthBytes)),
      },
      {
        id: 'upstream',
        label: 'Backend wrote',
        help: 'bytes the backend wrote for the slow stream',
        align: 'right',
        brief: true,
        numeric: true,
        text: (r) =>
          acrossBlocks(
            r.runs.map((x) => x.upstream?.bytes ?? 0),
            fmtBytes,
          ),
      },
      {
        id: 'late',
        label: 'Backend wrote, 2nd half',
        help: "bytes the backend wrote in the phase's second half: near the client's reading when throttled",
        align: 'right',
        numeric: true,
        text: (r) =>
          acrossBlocks(
            r.runs.map((x) => x.upstream?.lateBytes ?? 0),
            fmtBytes,
          ),
      },
      {
        id: 'client',
        label: 'Client read',
        align: 'right',
        numeric: true,
        text: (r) =>
          acrossBlocks(
            r.runs.map((x) => x.clientBytes),
            fmtBytes,
          ),
      },
      {
        id: 'throttled',
        label: 'Backend throttled',
        help: "the backend was still streaming and, in the phase's second half, wrote little more than the slow reader read: the target passed the reader's pace upstream",
        align: 'left',
        brief: true,
        numeric: true,
        text: (r) => {
          const n = r.runs.filter((x) => x.upstream?.throttled).length;
          return n === r.runs.length ? 'yes' : n === 0 ? 'no' : `${n} of ${r.runs.length} blocks`;
        },
        tone: (r) => (r.runs.some((x) => x.upstream && !x.upstream.throttled) ? 'bad' : null),
      },
    ],
    rows,
  };
}

/** The three streaming tables, titled, those with rows. */
export function streamTables(result: BenchResult): Array<{ title: string; table: Table<unknown> }> {
  return [
    { title: 'Streaming', table: streamLevelTable(result) as Table<unknown> },
    { title: 'Cancellation on client disconnect', table: streamCancelTable(result) as Table<unknown> },
    { title: 'Backpressure from a slow reader', table: streamBackpressureTable(result) as Table<unknown> },
  ].filter((t) => t.table.rows.length > 0);
}

/** The progress line of a streaming phase (stderr). */
export function streamEventText(e: Extract<SuiteEvent, { type: 'stream' }>): string {
  const where = `${e.scenario} × ${e.target} block ${e.block}`;
  switch (e.phase) {
    case 'start':
      return `${where}: starting (streaming levels, then cancellation and backpressure)`;
    case 'level': {
      const l = e.level!;
      return `  ${l.streams} streams: ${fmtRps(l.streamsPerSec)} completed/s, ${fmtRps(l.eventsPerSec)} events/s, first token p50 ${ms(l.firstDelta.p50)}, gap p50/p99 ${ms(l.gap.p50)}/${ms(l.gap.p99)}${l.errors ? `, ${l.errors} errors (${(l.errorSamples ?? []).join('; ')})` : ''}, steal ${fmtPct(l.cpuSteal)}`;
    }
    case 'cancel': {
      const c = e.cancel!;
      return `  cancellation: ${c.aborted} of ${c.disconnects} upstream requests aborted (p50 ${ms(c.latency.p50)}, p99 ${ms(c.latency.p99)}), ${c.neverAborted} never aborted${c.failed ? `, ${c.failed} failed (${(c.failures ?? []).join('; ')})` : ''}`;
    }
    case 'backpressure': {
      const b = e.backpressure!;
      const up = b.upstream ? `backend wrote ${fmtBytes(b.upstream.bytes)}, ${b.upstream.throttled ? 'throttled' : 'not throttled'}` : 'backend request not seen';
      return `  backpressure: RSS +${fmtBytes(b.rssGrowthBytes)} in ${b.durationSec} s with a ${fmtBytes(b.readBytesPerSec)}/s reader; ${up}`;
    }
    default:
      return `${where}: FAILED: ${e.message ?? 'unknown error'}`;
  }
}
