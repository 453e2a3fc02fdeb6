import type { RoundCost } from '../../analysis/round-cost.js';
import type { NoiseComponents } from '../../analysis/forecast.js';
import type { Driver } from '../../driver.js';
import type { BenchResult } from '../../result-schema.js';
import type { Scenario } from '../../scenario.js';
import type { StartedTarget } from '../server-process.js';
import type { RoundItem, WindowContext, WindowFigures } from '../window.js';

/** A measured window of a round: its figures, or why it failed, and when it began. */
export type WindowOutcome = { startedAt: string } & ({ figures: WindowFigures } | { error: unknown });

/** What a method's rounds share within a run: the window's context, the run's clock and state kept between rounds. */
export interface MethodContext extends WindowContext {
  /** The date a window begins at (the run's clock). */
  date(): Date;
  /** The seed of the next round that draws an order of its own (each call a new one). */
  nextRoundSeed(): number;
  /** A target's latest req/s at its scenario's first connection step (warm-up or measured), when known. */
  lastRps(target: StartedTarget): number | undefined;
  /** Note a target's req/s at its scenario's first step (a later round may plan from it). */
  saw(target: StartedTarget, rps: number): void;
}

/**
 * Every phrase about a way of measuring a round, beside how it measures: the report's design
 * sentence, forecast line, relative-figures note and run facts read them through `methodSentences`
 * (`run/methods/index.ts`), and the CLI's `--method` help too. Plain text: a renderer escapes it.
 */
export interface MethodSentences {
  /** `--method`'s help: what a round does with it (after `<name>: `). */
  readonly help: string;
  /** The design sentence's clause on how a round's targets share it. */
  readonly design: string;
  /** The forecast line's word for it. */
  readonly forecast: string;
  /** The relative-figures note's clause on how a round measures its targets. */
  readonly sideBySide: string;
  /** The run facts' Rounds line, from the result it measured. */
  rounds(r: BenchResult): string;
}

/**
 * A way of measuring a round (k6's executors, hyperfine's `Executor`): when it applies, how it
 * measures a round and a warm-up round, what a round costs the budget planner, and the noise a
 * typical pair is expected to carry with it, and the sentences that say so. The executor asks the
 * registry (`run/methods/index.ts`) which one measures a round; nothing else names a method. A
 * method is its module and its line in that registry: its name is its key there.
 */
export interface RoundMethod {
  /** Whether a run can measure with it, given its driver's capabilities (else it runs with `fallbackMethod`). */
  runsOn(capabilities: Driver['capabilities']): boolean;
  /** Whether it measures the rounds of a scenario with this load (else they are `fallbackMethod`'s; so is any round of one target). */
  measures(scenario: Pick<Scenario, 'load'>): boolean;
  /** The budget planner's unrecorded settle seconds per window, from the window's own (`settleSecOf`). */
  plannedSettleSec(windowSettleSec: number): number;
  /** The budget planner's seconds of one round (`analysis/budget.ts`). */
  readonly roundSec: RoundCost;
  /** A typical pair's SD within a block with this method on a shared 2-vCPU VM: the forecast's prior until the run has measured its own (between blocks the design's, `priorBetween`). */
  readonly prior: Pick<NoiseComponents, 'within'>;
  /** What the reports, the run's header and `--method`'s help say of it (`methodSentences`). */
  readonly sentences: MethodSentences;
  /** A round of unrecorded windows of `windowSec`, one per item: each item's req/s, or its error (that target leaves). Throws when the run is interrupted. */
  warmRound(ctx: MethodContext, items: readonly RoundItem[], windowSec: number): Promise<Array<number | { error: unknown }>>;
  /** A round of measured windows, one per item: each outcome goes to `onWindow` as soon as it is known. Ends early when the run is interrupted. */
  measureRound(ctx: MethodContext, items: readonly RoundItem[], onWindow: (index: number, outcome: WindowOutcome) => void): Promise<void>;
}
