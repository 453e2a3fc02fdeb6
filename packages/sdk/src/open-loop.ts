import type { OpenLoopFigures } from './driver.js';
import { decodeHistogram, encodeHistogram, latencyOf, mergeHistograms } from './histogram.js';
import type { OpenLoop } from './result-schema.js';

/** A driver's open-loop figures as recorded in a step. */
export function openLoopRecord(figures: OpenLoopFigures | undefined, offeredRate: number | undefined): OpenLoop | undefined {
  if (!figures || !offeredRate) return undefined;
  return { offeredRate, corrected: latencyOf(figures.corrected), correctedHistogram: encodeHistogram(figures.corrected), late: figures.late, dropped: figures.dropped };
}

/** Open-loop records merged (steps of a window, or windows of a pair): histograms merged, counts summed. */
export function mergeOpenLoop(records: ReadonlyArray<OpenLoop | undefined>): OpenLoop | undefined {
  const all = records.filter((r): r is OpenLoop => r !== undefined);
  if (!all.length) return undefined;
  if (all.length === 1) return all[0];
  const merged = mergeHistograms(all.map((r) => decodeHistogram(r.correctedHistogram)));
  return {
    offeredRate: all.reduce((a, r) => a + r.offeredRate, 0) / all.length,
    corrected: latencyOf(merged),
    correctedHistogram: encodeHistogram(merged),
    late: all.reduce((a, r) => a + r.late, 0),
    dropped: all.reduce((a, r) => a + r.dropped, 0),
    ...(all.every((r) => r.scheduled !== undefined) ? { scheduled: all.reduce((a, r) => a + r.scheduled!, 0) } : {}),
  };
}
