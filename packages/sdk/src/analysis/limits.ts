import type { MethodName } from '../run/methods/index.js';
import { median } from './bootstrap.js';
import { medianVariance, type NoiseComponents, type PairNoise } from './forecast.js';
import { tQuantile } from './student-t.js';

/** One change a run's intervals would answer to, and the typical half-width it is expected to give. */
interface LimitOption {
  change: 'budget' | 'sliced';
  halfWidth: number;
}

/**
 * What set a run's intervals, from its typical pair: the share of a block median's variance that
 * comes from the host window by window (`within`) and from the processes (`between`), and how much
 * wider few blocks make the interval (Student's t over the normal quantile). `setBy` names the
 * largest: `host`, `processes`, or `blocks` when the t-quantile's premium outweighs both shares'
 * difference (fewer than 4 blocks). `options`: what twice the budget would give (the same as half
 * the pairs, near enough: the fixed costs are small beside the rounds), and sliced rounds for a run
 * that measured one window after another; `best` the narrower.
 */
export interface IntervalLimits {
  components: NoiseComponents;
  blocks: number;
  rounds: number;
  withinShare: number;
  betweenShare: number;
  /** t(0.975, blocks − 1) ÷ 1.96: how much wider the interval is for estimating the processes' spread from few blocks. */
  blocksFactor: number | null;
  setBy: 'host' | 'processes' | 'blocks';
  options: LimitOption[];
  best: LimitOption['change'] | null;
}

/**
 * The run's limits, from every pair's components and blocks/rounds (medians over pairs) and the
 * forecasts of the changes considered (`forecast(noise, budgetFactor)`: the typical half-width with
 * this noise and this multiple of the budget). Pure.
 */
export function intervalLimits(
  pairs: ReadonlyArray<Pick<PairNoise, 'components' | 'blocks' | 'rounds'>>,
  o: {
    method: MethodName;
    canSlice: boolean;
    forecast: (noise: NoiseComponents, budgetFactor: number, method: MethodName) => number | undefined;
    slicedWithinFactor: number;
  },
): IntervalLimits | undefined {
  if (!pairs.length) return undefined;
  const components = { between: median(pairs.map((p) => p.components.between)), within: median(pairs.map((p) => p.components.within)) };
  const blocks = Math.round(median(pairs.map((p) => p.blocks)));
  const rounds = Math.round(median(pairs.map((p) => p.rounds)));
  const vb = components.between ** 2;
  const vw = medianVariance(components.within, rounds);
  const total = vb + vw;
  const withinShare = total > 0 ? vw / total : 0;
  const betweenShare = total > 0 ? vb / total : 0;
  const blocksFactor = blocks >= 2 ? tQuantile(0.975, blocks - 1) / 1.959964 : null;
  const setBy = blocks < 4 ? 'blocks' : withinShare >= betweenShare ? 'host' : 'processes';
  const options: LimitOption[] = [];
  const twice = o.forecast(components, 2, o.method);
  if (twice !== undefined) options.push({ change: 'budget', halfWidth: twice });
  if (o.method === 'sequential' && o.canSlice) {
    const sliced = o.forecast({ between: components.between, within: components.within * o.slicedWithinFactor }, 1, 'sliced');
    if (sliced !== undefined) options.push({ change: 'sliced', halfWidth: sliced });
  }
  const best = options.length ? options.reduce((a, b) => (b.halfWidth < a.halfWidth ? b : a)).change : null;
  return { components, blocks, rounds, withinShare, betweenShare, blocksFactor, setBy, options, best };
}
