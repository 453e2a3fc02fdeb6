import { z } from 'zod';
import { int, latencySchema, nonneg } from './common.js';

/** One level of concurrent streams in one block (`kind: 'stream'` scenarios). */
export const streamLevelSchema = z.strictObject({
  /** Concurrent streams kept open. */
  streams: z.number().int().positive(),
  durationSec: nonneg,
  /** Streams started in the window (they give the latency figures). */
  started: int,
  /** Streams that ended with their end event inside the window. */
  completed: int,
  /** Streams that failed: a status other than 200, a socket error, no end event, a timeout. */
  errors: int,
  errorSamples: z.array(z.string()).optional(),
  /** Events of any name received inside the window. */
  events: int,
  eventsPerSec: nonneg,
  streamsPerSec: nonneg,
  /** Request sent → response headers (time to first byte), µs. */
  ttfb: latencySchema,
  /** Request sent → the first token event, µs. */
  firstDelta: latencySchema,
  /** Between consecutive token events of a stream, µs. */
  gap: latencySchema,
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
