import { DEFAULTS } from './defaults.js';
import type { Design } from './design-options.js';
import type { Target } from './target.js';

/** The reference of the relative figures: the design's, else `node-http` when present, else the first target. */
export function resolveReference(design: Pick<Design, 'reference'>, targets: readonly Pick<Target, 'name'>[]): string {
  if (design.reference) return design.reference;
  if (targets.some((t) => t.name === DEFAULTS.reference)) return DEFAULTS.reference;
  // With runtimes as a dimension, the reference on the host's Node (its variant comes first).
  return targets.find((t) => t.name.startsWith(`${DEFAULTS.reference}@`))?.name ?? targets[0]!.name;
}
