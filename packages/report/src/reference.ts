import { median, overallOf, rankScenario, summarizePair, WindowIndex, type BenchResult, type EstimatorOptions } from '@benchsuite/sdk';

/** The reference asked for has no figures in the result. */
export class UnknownReferenceError extends Error {
  constructor(
    readonly reference: string,
    readonly measured: string[],
  ) {
    super(`reference "${reference}" has no figures in this result; measured targets: ${measured.join(', ') || 'none'}`);
    this.name = 'UnknownReferenceError';
  }
}

/**
 * The result with its relative figures re-estimated against another target, from the raw windows
 * with the run's own estimators and seed (`summarizePair`, `rankScenario`): summaries, rankings and
 * the precision part of `overall` change; the windows, blocks and stops stay as they were run.
 * Pure; returns the input when the reference is already the run's.
 * @example renderMarkdown(withReference(result, 'fastify'))
 */
export function withReference(result: BenchResult, reference: string): BenchResult {
  if (reference === result.design.reference) return result;
  const measured = [...new Set(result.summaries.filter((s) => s.windows.ok > 0).map((s) => s.target))];
  if (!measured.includes(reference)) throw new UnknownReferenceError(reference, measured);
  const design = { ...result.design, reference };
  const o: EstimatorOptions = {
    reference,
    precision: design.precision,
    practicalBand: design.practicalBand,
    bootstrapResamples: design.bootstrapResamples,
    confidence: design.confidence,
    seed: result.seed,
  };
  const index = new WindowIndex(result.windows);
  const ceiling = (scenario: string) => result.ceilings.find((c) => c.scenario === scenario)?.rps.point;
  const summaries = result.summaries.map((s) =>
    summarizePair({
      scenario: s.scenario,
      target: s.target,
      windows: result.windows,
      estimator: o,
      serverCpus: s.serverCpus,
      thresholds: design,
      index,
      ceilingRps: ceiling(s.scenario),
      blocks: result.blocks,
    }),
  );
  const rankings = result.rankings.map((r) => rankScenario(r.scenario, summaries, design.practicalBand));
  const reached = summaries.map((s) => s.precision.reached).filter((h): h is number => h !== null);
  return {
    ...result,
    design,
    summaries,
    rankings,
    overall: {
      ...result.overall,
      pairs: summaries.length,
      precisionMet: summaries.filter((s) => s.precision.met).length,
      medianHalfWidth: reached.length ? median(reached) : null,
      worstHalfWidth: reached.length ? Math.max(...reached) : null,
      ...(result.overall.verdict !== undefined && { verdict: overallOf(summaries, [], null, design).verdict }),
    },
  };
}
