import { z } from 'zod';
import { blockSchema, stopSchema } from './block.js';
import { capacitySchema } from './capacity.js';
import { controlSchema } from './control.js';
import { designBiasSchema } from './design-bias.js';
import { int, nonneg } from './common.js';
import { designSchema, scenarioInfoSchema } from './design.js';
import { environmentSchema, targetInfoSchema, verifyOutcomeSchema } from './environment.js';
import { instructionsRecordSchema } from './instructions.js';
import { loaderFloorSchema } from './loader-floor.js';
import { profileRecordSchema } from './profiles.js';
import { streamResultSchema } from './streaming.js';
import { ceilingSchema, overallSchema, pairSummarySchema, rankingSchema } from './summary.js';
import { thresholdOutcomeSchema } from './thresholds.js';
import { windowSchema } from './window.js';

/**
 * The result document: the single source of truth for what a run produced. Its records have a file
 * each in this folder (window, block, summary, design, environment, and the extras a run asks for:
 * thresholds, capacity, instructions, streaming, profiles); `schema/result.schema.json` is
 * generated from it at build time for other tools.
 *
 * Bump `RESULT_SCHEMA_VERSION` on any incompatible change, and teach `upgradeResult` (upgrade.ts)
 * to bring the older version up, so every reader still sees one shape. A field added within a
 * version is optional and its absence has a meaning stated beside it (not asked for, not recorded).
 */
export const RESULT_SCHEMA_VERSION = 3 as const;

export const resultSchema = z.strictObject({
  schemaVersion: z.literal(RESULT_SCHEMA_VERSION),
  suite: z.string(),
  startedAt: z.iso.datetime(),
  finishedAt: z.iso.datetime(),
  /** Stopped early (SIGINT/SIGTERM): windows not run are absent; `--resume` continues it. */
  interrupted: z.boolean(),
  /** This result continues an interrupted run (its windows file was read back). */
  resumed: z.boolean(),
  seed: z.number().int(),
  design: designSchema,
  environment: environmentSchema,
  scenarios: z.array(scenarioInfoSchema),
  targets: z.array(targetInfoSchema),
  verify: z.array(verifyOutcomeSchema),
  blocks: z.array(blockSchema),
  /** Every measured window, excluded ones included, in the order measured. */
  windows: z.array(windowSchema),
  summaries: z.array(pairSummarySchema),
  rankings: z.array(rankingSchema),
  stops: z.array(stopSchema),
  /** CPU profiles under `--profile` (never part of any estimate). */
  profiles: z.array(profileRecordSchema),
  /** Backends' own ceilings (scenarios that declare a backend). */
  ceilings: z.array(ceilingSchema),
  /** The loader's round-trip floor per scenario with a step at or below `design.lowConnections`; absent when the run had none (or came before floors). */
  loaderFloors: z.array(loaderFloorSchema).optional(),
  /** Thresholds checked after the run (`--threshold`, scenarios' `thresholds`); absent when none were given. */
  thresholds: z.array(thresholdOutcomeSchema).optional(),
  /** Capacity under an SLO (`--slo`); absent when not asked for. */
  capacity: z.array(capacitySchema).optional(),
  /** Instructions per request under callgrind (`--instructions`); absent when not asked for. */
  instructions: z.array(instructionsRecordSchema).optional(),
  /** Streaming scenarios' figures (`kind: 'stream'`); absent when the run had none. */
  streaming: z.array(streamResultSchema).optional(),
  /** The run's A/A control: the reference's second process ÷ the reference, and the processes' own SD; absent when the run had none (`result/control.ts`). */
  control: controlSchema.optional(),
  /** The design's own biases measured in this run: round 1 ÷ later rounds, a slot's first half ÷ its second (`result/design-bias.ts`); absent in results from before. */
  designBias: designBiasSchema.optional(),
  /** The runner itself: its peak RSS and where the wall time went. */
  runner: z.strictObject({
    peakRssBytes: int,
    wallSec: nonneg,
    /** Seconds under load: warm-up and measured windows. */
    loadSec: nonneg,
    /** Seconds of measured windows. */
    measuredSec: nonneg,
  }),
  overall: overallSchema,
});
export type BenchResult = z.infer<typeof resultSchema>;
