import type { BenchResult, MethodName } from '@benchsuite/sdk';

/**
 * The sentences of each way of measuring a round (the SDK's `run/methods/` registry; its names type
 * this table, so a new method does not compile without its sentences). Every phrase about a method
 * in a report, a note or the run's header is here.
 */
interface MethodSentences {
  /** The design sentence's clause on how a round's targets share it. */
  readonly design: string;
  /** The forecast line's word for it. */
  readonly forecast: string;
  /** The relative-figures note's clause on how a round measures its targets. */
  readonly sideBySide: string;
  /** The run facts' Rounds line. */
  rounds(r: BenchResult): string;
}

const fmtSec = (s: number) => (s < 1 ? `${Math.round(s * 1000)} ms` : `${+s.toFixed(2)} s`);

const METHOD_TEXT: { readonly [K in MethodName]: MethodSentences } = {
  sliced: {
    design: 'every target in the same seconds of each round, in time slices',
    forecast: 'time-sliced',
    sideBySide: 'every round loads each target in the same seconds, in alternating time slices',
    rounds(r) {
      const slices = r.windows.flatMap((w) => (w.status === 'ok' ? w.steps.flatMap((s) => (s.slice ? [s.slice.sliceSec] : [])) : []));
      const range = slices.length ? (Math.min(...slices) === Math.max(...slices) ? `${fmtSec(slices[0]!)}` : `${fmtSec(Math.min(...slices))}–${fmtSec(Math.max(...slices))}`) : '?';
      return (
        `time-sliced: every target of a round loaded in the same seconds, in alternating slots of ${range} (a seeded order per cycle), ` +
        "so a ratio compares the same moments of the host; each figure is still the server's own, with the core to itself in its slots"
      );
    },
  },
  sequential: {
    design: 'every target once per round in a seeded random order',
    forecast: 'sequential',
    sideBySide: 'every round measures each target once for a short window, in a seeded random order',
    rounds: () => 'one window per target after another, in a seeded order per round',
  },
};

/** The sentences of the method a run measured with; a result from before methods were recorded measured one window after another. */
export const methodText = (method: MethodName | undefined): MethodSentences => METHOD_TEXT[method ?? 'sequential'];
