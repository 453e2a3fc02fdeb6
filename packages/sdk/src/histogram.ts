import * as hdr from 'hdr-histogram-js';
import type { Latency } from './result-schema.js';

/** Latency histogram in microseconds: 1 µs to 10 min, 3 significant digits (≤ 0.1% error, well under 10 µs below 10 ms). */
export type Histogram = hdr.Histogram;

const HIGHEST_US = 600_000_000;

/** A fresh µs histogram. Pure JS (no WebAssembly) so it works in any worker and costs ~20 ns per record. */
export function createHistogram(): Histogram {
  return hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: HIGHEST_US, numberOfSignificantValueDigits: 3, bitBucketSize: 32, useWebAssembly: false });
}

export function encodeHistogram(h: Histogram): string {
  return hdr.encodeIntoCompressedBase64(h);
}

export function decodeHistogram(s: string): Histogram {
  const decoded = hdr.decodeFromCompressedBase64(s, 32, false);
  // Decoded histograms keep their own range; copy into a standard one so merges never overflow.
  const h = createHistogram();
  h.add(decoded);
  return h;
}

/** Merge histograms (the only honest way to combine percentiles across windows and blocks). */
export function mergeHistograms(hs: Iterable<Histogram>): Histogram {
  const out = createHistogram();
  for (const h of hs) out.add(h);
  return out;
}

export function latencyOf(h: Histogram): Latency {
  const count = h.totalCount;
  if (count === 0) return { p50: 0, p90: 0, p99: 0, p999: 0, min: 0, max: 0, mean: 0, stdev: 0, count: 0 };
  return {
    p50: h.getValueAtPercentile(50),
    p90: h.getValueAtPercentile(90),
    p99: h.getValueAtPercentile(99),
    p999: h.getValueAtPercentile(99.9),
    min: h.minNonZeroValue === Number.MAX_SAFE_INTEGER ? 0 : h.minNonZeroValue,
    max: h.maxValue,
    mean: h.mean,
    stdev: h.stdDeviation,
    count,
  };
}
