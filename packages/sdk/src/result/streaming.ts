import { z } from 'zod';
import { int, latencySchema, nonneg } from './common.js';

/**
 * How token events arrived: per socket read of the loader (`docs/streaming.md`). Events the target
 * wrote together, or wrote while the loader was late, arrive in one read.
 */
export const streamBatchingSchema = z.strictObject({
  /** Reads that brought at least one token event. */
  reads: int,
  /** Token events those reads brought (their mean per read is tokens ÷ reads). */
  tokens: int,
  /** Reads that brought more than one token event. */
  batchedReads: int,
  /** The most token events one read brought. */
  maxPerRead: int,
});
export type StreamBatching = z.infer<typeof streamBatchingSchema>;

/** A level's stream latencies over one part of it (its window, or its drain). */
const streamLatenciesShape = {
  /** Request sent → response headers (time to first byte), µs. */
  ttfb: latencySchema,
  /** Request sent → the first token event, µs. */
  firstDelta: latencySchema,
  /**
   * Per read: between consecutive reads of a stream that brought token events, µs (what a reader of
   * the stream waits between updates).
   */
  readGap: latencySchema,
  /**
   * Per event: a read's gap shared by the token events it brought (m events after a gap g give m
   * gaps of g ÷ m), µs; token events that came with a stream's first token give none.
   */
  eventGap: latencySchema,
  batching: streamBatchingSchema,
};

/** One level of concurrent streams in one block (`kind: 'stream'` scenarios). */
export const streamLevelSchema = z.strictObject({
  /** Concurrent streams kept open. */
  streams: z.number().int().positive(),
  durationSec: nonneg,
  /** Streams started in the level, its cold start included (the figures take what arrived inside the window). */
  started: int,
  /** Streams that ended with their end event inside the window. */
  completed: int,
  /** Streams that failed, in the cold start, the window or the drain: a status other than 200, a socket error, no end event, cut at the drain cap. */
  errors: int,
  errorSamples: z.array(z.string()).optional(),
  /** Events of any name received inside the window. */
  events: int,
  /**
   * The level's rates over its window, which starts once every lane (one of the `streams`, a closed
   * loop of one stream after another) has ended its first stream: past the cold start, when all
   * were opened at once. Each completed stream, and each stream's events, count by the share of its
   * length inside the window (the one in flight at its end completes in the drain). Null when the
   * window is empty (the run was stopped first).
   */
  steady: z
    .strictObject({
      /** The window's seconds. */
      sec: nonneg,
      /** Streams completed (end event) in it, each by the share of its length inside it. */
      completed: nonneg,
      /** Events of any name the streams received, each stream's by the same share. */
      events: nonneg,
      completedPerSec: nonneg,
      eventsPerSec: nonneg,
    })
    .nullable()
    .optional(),
  /** The cold start: the level's first streams, before its window, seconds (unrecorded but for `started` and `errors`). */
  coldSec: nonneg.optional(),
  /**
   * The window opened at `DEFAULTS.stream.coldMaxSec` with first streams still running: a target
   * that took longer than that to end every lane's first stream (its figures include them).
   */
  coldCapped: z.boolean().optional(),
  /** Results before the steady rates: events inside the level (no cold start apart) ÷ its seconds. */
  eventsPerSec: nonneg.optional(),
  /** Results before the steady rates: streams that ended inside the level ÷ its seconds (low by up to one stream length ÷ the level). */
  streamsPerSec: nonneg.optional(),
  /** Figures from what arrived inside the window (what arrived later is in `drain`; in the cold start, nowhere). */
  ttfb: latencySchema,
  firstDelta: latencySchema,
  readGap: latencySchema.optional(),
  eventGap: latencySchema.optional(),
  batching: streamBatchingSchema.optional(),
  /** Results before per-read and per-event gaps: one gap per token event, events of one read 1 µs apart. */
  gap: latencySchema.optional(),
  /**
   * After the window's end no stream starts; those still open may finish until the drain cap
   * (`DEFAULTS.stream.drainSec` after the window's end). Their figures from then on, apart.
   */
  drain: z
    .strictObject({
      /** Streams still open at the window's end. */
      open: int,
      /** Of them, completed (end event) in the drain. */
      completed: int,
      /** Of them, cut at the drain cap (counted in the level's errors). */
      cut: int,
      /** The window's end → the last stream ended, seconds. */
      sec: nonneg,
      /** Events of any name received in the drain. */
      events: int,
      ...streamLatenciesShape,
    })
    .optional(),
  /**
   * The loader's event-loop delay inside the window, µs: a read later than the spacing of the
   * target's writes brings several of them at once (batching that is the loader's, not the target's).
   */
  loaderLag: latencySchema.optional(),
  /** Peak RSS of the target's process tree during the level. */
  peakRssBytes: int.nullable(),
  cpuSteal: nonneg,
});
export type StreamLevel = z.infer<typeof streamLevelSchema>;

/** Disconnects mid-stream and the backend's view of them (the stream observer protocol). */
export const streamCancelSchema = z.strictObject({
  /** Disconnects whose upstream request the observer saw. */
  disconnects: int,
  /** Upstream requests aborted within `waitMs` of the disconnect. */
  aborted: int,
  /** Upstream requests that completed or still ran `waitMs` after the disconnect. */
  neverAborted: int,
  /** Streams that ended before the disconnect point, or whose upstream request was not seen. */
  failed: int,
  failures: z.array(z.string()).optional(),
  afterEvents: z.number().int().positive(),
  waitMs: nonneg,
  /** Disconnect → upstream abort seen by the backend, µs (the aborted ones). */
  latency: latencySchema,
  /** Half the quickest round trip used to align the two processes' clocks, ms. */
  clockUncertaintyMs: nonneg,
});
export type StreamCancel = z.infer<typeof streamCancelSchema>;

/** One slow reader against a fast backend stream. */
export const streamBackpressureSchema = z.strictObject({
  readBytesPerSec: nonneg,
  /** Seconds the phase ran: the scenario's `durationSec`, or longer while the backend was still streaming and not yet throttled. */
  durationSec: nonneg,
  /** Bytes the slow client read. */
  clientBytes: int,
  rssStartBytes: int,
  rssEndBytes: int,
  rssPeakBytes: int,
  /** Peak − start RSS of the target's process tree. */
  rssGrowthBytes: int,
  /** RSS of the target's tree about once a second. */
  rssSeries: z.array(z.strictObject({ sec: nonneg, bytes: int })),
  /**
   * The backend's side: bytes it wrote (`lateBytes` in the phase's second half), writes that waited
   * for drain and for how long. Throttled: still streaming at the end, and in the second half it
   * wrote no more than the client read plus `DEFAULTS.stream.backpressure.stallSlackBytes` (the
   * reader's pace reached the backend); a target that buffers lets it write on, or finish.
   */
  upstream: z
    .strictObject({
      bytes: int,
      lateBytes: int,
      waits: int,
      blockedMs: nonneg,
      outcome: z.enum(['in-flight', 'completed', 'aborted', 'failed']),
      throttled: z.boolean(),
    })
    .nullable(),
});
export type StreamBackpressure = z.infer<typeof streamBackpressureSchema>;

/** One target's streaming figures in one block (one fresh process). */
export const streamBlockSchema = z.strictObject({
  block: z.number().int().positive(),
  status: z.enum(['ok', 'failed']),
  failure: z.string().optional(),
  levels: z.array(streamLevelSchema),
  cancel: streamCancelSchema.nullable(),
  backpressure: streamBackpressureSchema.nullable(),
  wallSec: nonneg,
});
export type StreamBlock = z.infer<typeof streamBlockSchema>;

/** A streaming scenario's figures for one target: each block's levels, cancellation and backpressure. */
export const streamResultSchema = z.strictObject({
  scenario: z.string(),
  target: z.string(),
  blocks: z.array(streamBlockSchema),
});
export type StreamResult = z.infer<typeof streamResultSchema>;
