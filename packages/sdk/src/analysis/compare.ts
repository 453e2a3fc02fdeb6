import { mulberry32 } from '../random.js';
import type { BenchResult } from '../result-schema.js';
import { median, quantileSorted, relativeHalfWidth, subSeed, type Grouped } from './bootstrap.js';
import { tQuantile } from './student-t.js';
import { ratioGroups, WindowIndex } from './summarize.js';

/** The samples behind a pair's headline: per-round ratios to the reference, or window req/s for the reference itself. */
export function headlineGroups(result: Pick<BenchResult, 'windows' | 'design'>, scenario: string, target: string): { groups: number[][]; kind: 'relative' | 'absolute' } {
  const ref = result.design.reference;
  if (target !== ref) return { groups: ratioGroups(result.windows, scenario, target, ref, new WindowIndex(result.windows)), kind: 'relative' };
  const ok = result.windows.filter((w) => w.status === 'ok' && w.excluded === null && w.scenario === scenario && w.target === target);
  const blocks = [...new Set(ok.map((w) => w.block))];
  return { groups: blocks.map((b) => ok.filter((w) => w.block === b).map((w) => (w.status === 'ok' ? w.rps : 0))), kind: 'absolute' };
}

export interface Change {
  /** head ÷ base of the headline medians (1.05 = 5% higher in head). */
  ratio: number;
  ci95: [number, number] | null;
  halfWidth: number | null;
  method: string;
}

export const CHANGE_METHOD =
  "ratio of medians (head ÷ base) of the per-round samples; 95% interval: the wider of a percentile bootstrap resampling each run's blocks, then rounds within blocks, independently, and (2 or more blocks in each run) a Welch t-interval on the two runs' per-block medians (log scale)";

/**
 * Welch t-interval of log(head ÷ base) from the two runs' per-block medians, as `blockInterval` does
 * for one run: a bootstrap over 2–3 blocks per run under-covers. Null unless both runs have 2+ blocks
 * of positive samples.
 */
function welchInterval(base: Grouped, head: Grouped, ratio: number, confidence: number): [number, number] | null {
  if (base.length < 2 || head.length < 2 || !(ratio > 0) || ![...base, ...head].every((g) => g.every((x) => x > 0))) return null;
  const spread = (gs: Grouped) => {
    const m = gs.map((g) => median(g.map(Math.log)));
    const mean = m.reduce((a, b) => a + b, 0) / m.length;
    return { v: m.reduce((a, x) => a + (x - mean) ** 2, 0) / (m.length - 1) / m.length, df: m.length - 1 };
  };
  const b = spread(base);
  const h = spread(head);
  const se2 = b.v + h.v;
  if (se2 === 0) return [ratio, ratio];
  const df = se2 ** 2 / ((b.v ** 2 || 0) / b.df + (h.v ** 2 || 0) / h.df);
  const half = tQuantile(1 - (1 - confidence) / 2, df) * Math.sqrt(se2);
  return [ratio * Math.exp(-half), ratio * Math.exp(half)];
}

/**
 * The change between two runs of the same figure, with the estimator of a run's own figures:
 * rounds are the samples (never requests), blocks and rounds resampled at both levels.
 */
export function changeEstimate(base: Grouped, head: Grouped, o: { resamples: number; confidence: number; seed: number }): Change | null {
  const b = base.filter((g) => g.length);
  const h = head.filter((g) => g.length);
  const nb = b.flat().length;
  const nh = h.flat().length;
  if (!nb || !nh) return null;
  const ratio = median(h.flat()) / median(b.flat());
  if (nb + nh < 4) return { ratio, ci95: null, halfWidth: null, method: CHANGE_METHOD };
  const rnd = mulberry32(subSeed(o.seed, 'change'));
  const draw = (gs: Grouped) => {
    const out: number[] = [];
    for (let k = 0; k < gs.length; k++) {
      const g = gs.length > 1 ? gs[Math.floor(rnd() * gs.length)]! : gs[k]!;
      for (let i = 0; i < g.length; i++) out.push(g[Math.floor(rnd() * g.length)]!);
    }
    return out;
  };
  const stats: number[] = [];
  for (let r = 0; r < o.resamples; r++) stats.push(median(draw(h)) / median(draw(b)));
  stats.sort((x, y) => x - y);
  const a = (1 - o.confidence) / 2;
  const boot: [number, number] = [quantileSorted(stats, a), quantileSorted(stats, 1 - a)];
  const welch = welchInterval(b, h, ratio, o.confidence);
  const ci: [number, number] = welch ? [Math.min(boot[0], welch[0]), Math.max(boot[1], welch[1])] : boot;
  return { ratio, ci95: ci, halfWidth: relativeHalfWidth(ratio, ci), method: CHANGE_METHOD };
}
