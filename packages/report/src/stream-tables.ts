/**
 * Streaming scenarios (`kind: 'stream'`): levels of concurrent streams, cancellation and
 * backpressure, specified once and drawn by the markdown, HTML and terminal renderers; and the
 * progress line of each streaming phase (the CLI prints it).
 */
import { median, type BenchResult, type StreamResult, type SuiteEvent } from '@benchsuite/sdk';
import { DASH, fmtBytes, fmtInt, fmtPct, fmtRps } from './units.js';
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

/** Marks a rate of an older result: streams or events counted inside the whole level ÷ its seconds. */
const WINDOW_COUNT = 'window count';
/** Marks a gap of an older result: one per token event, events of one read 1 µs apart. */
const PER_ARRIVAL = 'per arrival';

/** The defined values of `pick` over levels. */
function values(levels: Level[], pick: (l: Level) => number | null | undefined): number[] {
  return levels.flatMap((l) => {
    const v = pick(l);
    return v == null ? [] : [v];
  });
}

/** Marks a rate whose window opened at the cold start's cap, first streams of the burst still in it. */
const COLD_CAPPED = 'cold start capped';

/** A steady rate over blocks, or an older result's count over the level, marked. */
function rateText(levels: Level[], steady: (l: Level) => number | undefined, old: (l: Level) => number | undefined): string {
  const text = acrossBlocks(
    values(levels, (l) => (l.steady === undefined ? old(l) : steady(l))),
    fmtRps,
  );
  if (text === DASH) return text;
  const marks = [levels.some((l) => l.steady === undefined) ? WINDOW_COUNT : null, levels.some((l) => l.coldCapped) ? COLD_CAPPED : null].filter(Boolean);
  return marks.length ? `${text} (${marks.join(', ')})` : text;
}

/** The per-event gap over blocks, or an older result's gap per arrival, marked. */
function gapText(levels: Level[], pick: (g: Level['ttfb']) => number): string {
  const older = levels.some((l) => !l.eventGap);
  const text = acrossBlocks(
    values(levels, (l) => {
      const g = l.eventGap ?? l.gap;
      return g ? pick(g) : undefined;
    }),
    ms,
  );
  return older && text !== DASH ? `${text} (${PER_ARRIVAL})` : text;
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
  const lat = (pick: (l: Level) => number | undefined) => (r: LevelRow) => acrossBlocks(values(r.levels, pick), ms);
  return {
    columns: [
      { id: 'scenario', label: 'Scenario', align: 'left', brief: true, text: (r) => r.scenario },
      { id: 'target', label: 'Target', align: 'left', brief: true, target: true, text: (r) => r.target },
      { id: 'streams', label: 'Streams', help: 'concurrent streams kept open (closed loop)', align: 'right', brief: true, numeric: true, text: (r) => fmtInt(r.streams) },
      {
        id: 'streams-per-sec',
        label: 'Completed/s',
        help: `completed streams per second in the level's window, which opens once every lane (each of the concurrent streams, run one after another) has ended its first stream; each stream by the share of its length inside it: median over blocks (fresh processes), lowest–highest block in brackets; "${COLD_CAPPED}" marks a window that opened at the cap on the cold start with first streams still running; "${WINDOW_COUNT}" marks older results, which counted the streams that ended inside the level (low by up to one stream length ÷ level)`,
        align: 'right',
        brief: true,
        numeric: true,
        text: (r) =>
          rateText(
            r.levels,
            (l) => l.steady?.completedPerSec,
            (l) => l.streamsPerSec,
          ),
        sort: (r) => med(values(r.levels, (l) => (l.steady === undefined ? l.streamsPerSec : l.steady?.completedPerSec))),
      },
      {
        id: 'events-per-sec',
        label: 'Events/s',
        help: `SSE events per second in the level's window (each stream's events by the share of its length inside it); "${WINDOW_COUNT}" marks older results, which counted the whole level`,
        align: 'right',
        numeric: true,
        text: (r) =>
          rateText(
            r.levels,
            (l) => l.steady?.eventsPerSec,
            (l) => l.eventsPerSec,
          ),
      },
      { id: 'ttfb', label: 'TTFB p50', help: 'request sent → response headers', align: 'right', numeric: true, text: lat((l) => l.ttfb.p50) },
      { id: 'first', label: 'First token p50', help: 'request sent → the first token event', align: 'right', brief: true, numeric: true, text: lat((l) => l.firstDelta.p50) },
      { id: 'first99', label: 'First token p99', align: 'right', numeric: true, text: lat((l) => l.firstDelta.p99) },
      {
        id: 'read-gap50',
        label: 'Gap/read p50',
        help: "time between consecutive reads of a stream that brought token events (what a reader waits between updates); inside the level's window only (the cold start is not recorded, the drain has its own)",
        align: 'right',
        brief: true,
        numeric: true,
        text: lat((l) => l.readGap?.p50),
      },
      { id: 'read-gap99', label: 'Gap/read p99', align: 'right', numeric: true, text: lat((l) => l.readGap?.p99) },
      {
        id: 'event-gap50',
        label: 'Gap/event p50',
        help: `a read's gap shared by the token events it brought (3 events after 30 ms give three gaps of 10 ms); "${PER_ARRIVAL}" marks older results, which gave the events of one read 1 µs gaps`,
        align: 'right',
        brief: true,
        numeric: true,
        text: (r) => gapText(r.levels, (g) => g.p50),
      },
      { id: 'event-gap99', label: 'Gap/event p99', align: 'right', numeric: true, text: (r) => gapText(r.levels, (g) => g.p99) },
      {
        id: 'per-read',
        label: 'Tokens/read',
        help: 'token events per read of the loader: mean, and the most in one read (above 1: the target wrote them together, or the loader read late, see loader lag)',
        align: 'right',
        brief: true,
        numeric: true,
        text: (r) => {
          const b = r.levels.flatMap((l) => (l.batching ? [l.batching] : []));
          const reads = b.reduce((a, x) => a + x.reads, 0);
          if (!reads) return DASH;
          return `${(b.reduce((a, x) => a + x.tokens, 0) / reads).toFixed(2)} (max ${fmtInt(Math.max(...b.map((x) => x.maxPerRead)))})`;
        },
      },
      {
        id: 'loader-lag',
        label: 'Loader lag p99',
        help: "the loader's event-loop delay inside the level: reads later than the target's spacing bring several writes at once",
        align: 'right',
        numeric: true,
        text: lat((l) => l.loaderLag?.p99),
      },
      {
        id: 'drain',
        label: 'Drain',
        help: "streams still open at the window's end, and of them cut at the drain cap (counted as errors), over all blocks; their figures are apart from the window's (JSON: levels[].drain)",
        align: 'right',
        numeric: true,
        text: (r) => {
          const d = r.levels.flatMap((l) => (l.drain ? [l.drain] : []));
          return d.length ? `${fmtInt(d.reduce((a, x) => a + x.open, 0))} open, ${fmtInt(d.reduce((a, x) => a + x.cut, 0))} cut` : DASH;
        },
        tone: (r) => (r.levels.some((l) => (l.drain?.cut ?? 0) > 0) ? 'bad' : null),
      },
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
      const rate = l.steady ? `${fmtRps(l.steady.completedPerSec)} completed/s, ${fmtRps(l.steady.eventsPerSec)} events/s` : 'an empty window';
      const perRead = l.batching?.reads ? (l.batching.tokens / l.batching.reads).toFixed(2) : DASH;
      const gap = `gap p50 per read ${ms(l.readGap?.p50)}, per event ${ms(l.eventGap?.p50)} (${perRead} tokens/read)`;
      const drain = l.drain?.cut ? `, ${l.drain.cut} cut at the drain cap` : '';
      return `  ${l.streams} streams: ${rate}, first token p50 ${ms(l.firstDelta.p50)}, ${gap}${l.errors ? `, ${l.errors} errors (${(l.errorSamples ?? []).join('; ')})` : ''}${drain}, steal ${fmtPct(l.cpuSteal)}`;
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
