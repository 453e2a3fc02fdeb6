import { DEFAULTS } from '../defaults.js';
import type { LoaderFloor, PairSummary } from '../result-schema.js';

/**
 * A pair's loader share: at each of its steps with a floor, its median req/s ÷ the floor's; the
 * highest of them, flagged above `flagShare`. Undefined without a floor step in common.
 */
export function loaderShareOf(
  steps: ReadonlyArray<{ connections: number; rps: { point: number } }>,
  floor: Pick<LoaderFloor, 'steps'> | undefined,
  flagShare: number = DEFAULTS.loaderFloor.flagShare,
): { perStep: Array<number | undefined>; pair: PairSummary['loaderShare'] } {
  let pair: PairSummary['loaderShare'];
  const perStep = steps.map((s) => {
    const f = floor?.steps.find((x) => x.connections === s.connections);
    if (!f || !(f.rps.point > 0) || !(s.rps.point > 0)) return undefined;
    const share = s.rps.point / f.rps.point;
    if (!pair || share > pair.share) pair = { connections: s.connections, share, rps: s.rps.point, floorRps: f.rps.point, flagged: share > flagShare };
    return share;
  });
  return { perStep, pair };
}
