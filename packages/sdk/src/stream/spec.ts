import { z } from 'zod';
import { DEFAULTS } from '../defaults.js';

const positiveInt = z.number().int().positive();
const d = DEFAULTS.stream;

/** Bodies posted to the observer's `POST /debug/config` before a phase (e.g. the stub's chunk spacing). */
const observerConfigSchema = z.record(z.string(), z.unknown());

/**
 * What a streaming scenario (`kind: 'stream'`) measures, on the scenario's request answered with
 * server-sent events. Defaults in `DEFAULTS.stream`; `docs/streaming.md` says how each figure is taken.
 */
export const streamSpecSchema = z.strictObject({
  /** Concurrent streams, one level after another, each kept full for `durationSec` (closed loop). */
  streams: z
    .array(positiveInt)
    .min(1)
    .default([...d.streams]),
  /** Seconds measured per level, per block. */
  durationSec: z.number().positive().default(d.durationSec),
  /** Seconds of streams at the first level before the first measured level (unrecorded). */
  warmupSec: z.number().nonnegative().default(d.warmupSec),
  /** The SSE event that carries a token: its first arrival is the first token, its spacing the inter-event gap. */
  deltaEvent: z.string().default(d.deltaEvent),
  /** The SSE event that ends a complete stream. */
  endEvent: z.string().default(d.endEvent),
  /**
   * The backend service behind the target that speaks the stream observer protocol
   * (`GET /debug/requests?after=<id>`, `POST /debug/config`): cancellation and backpressure need
   * it, to see what the target did upstream. `configure` holds the bodies posted before each phase.
   */
  observer: z
    .strictObject({
      service: z.string(),
      configure: z.strictObject({ load: observerConfigSchema.optional(), cancel: observerConfigSchema.optional(), backpressure: observerConfigSchema.optional() }).default({}),
    })
    .optional(),
  /** Disconnects, one after another, each once `afterEvents` token events arrived; the observer times the upstream abort. */
  cancel: z
    .strictObject({
      count: positiveInt.default(d.cancel.count),
      afterEvents: positiveInt.default(d.cancel.afterEvents),
      /** How long an upstream request may go on after the disconnect before it counts as never aborted. */
      waitMs: positiveInt.default(d.cancel.waitMs),
    })
    .optional(),
  /** One client reading `readBytesPerSec` for `durationSec` while the backend streams fast: the target's memory growth. */
  backpressure: z
    .strictObject({
      readBytesPerSec: z.number().positive().default(d.backpressure.readBytesPerSec),
      durationSec: z.number().positive().default(d.backpressure.durationSec),
      /** The request body for this phase (a long answer needs a large `max_tokens`), else the scenario's. */
      body: z.string().optional(),
    })
    .optional(),
});
export type StreamSpec = z.output<typeof streamSpecSchema>;
export type StreamSpecInput = z.input<typeof streamSpecSchema>;

/**
 * One request as a stream observer saw it (`GET /debug/requests`, `docs/streaming.md`): when it
 * arrived and ended on the observer's clock (`performance.timeOrigin + performance.now()`, ms since
 * the epoch), how it ended, and how its writes went (writes that waited for `drain` were held back
 * by the reader behind them).
 */
export interface ObservedRequest {
  id: number;
  stream: boolean;
  startedAt: number;
  endedAt: number | null;
  outcome: 'in-flight' | 'completed' | 'aborted' | 'failed';
  /** Body bytes written (streamed answers). */
  bytes: number;
  /** Writes that returned false (the socket's buffer was full) and waited for `drain`. */
  waits: number;
  /** Time spent waiting for `drain`, ms. */
  blockedMs: number;
}
