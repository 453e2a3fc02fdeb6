import type { Design } from '../design-options.js';
import type { SuiteEvent } from '../options.js';
import type { DesignRecord } from '../result-schema.js';
import type { Executor } from './executor.js';
import type { RunJournal } from './journal.js';
import type { WindowContext } from './window.js';

/** The design a run measures with: the options, the reference and what the run recorded of its method. */
export type RunDesign = DesignRecord & Design & { reference: string };

/**
 * What every part of a run after its plan works with: the driver and pinning (`WindowContext`),
 * the design as it stands, the journal (the run's state and where events go), the executor (where
 * blocks meet servers and time) and the events the caller renders.
 */
export interface RunContext extends WindowContext {
  /** The plan's design with the run's replans applied (a warm-up cut holds from its event on). */
  readonly design: RunDesign;
  readonly seed: number;
  readonly journal: RunJournal;
  readonly executor: Executor;
  emit(e: SuiteEvent): void;
  /** Seconds since the run began (a resumed run counts its earlier part too). */
  elapsed(): number;
  /** Commands produced by targets' setup hooks. */
  readonly commands: ReadonlyMap<string, readonly string[]>;
  /** Seconds under load outside a recorded window (warm-ups, streams, probes), for the overhead figure. */
  addLoad(sec: number): void;
}
