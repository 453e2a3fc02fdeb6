import { DEFAULTS } from '../defaults.js';
import type { ControlRecord, ControlScenario } from '../result/control.js';
import type { WindowRecord } from '../result-schema.js';
import { meansVariance, varianceComponents } from './components.js';
import { chiSquareQuantile } from './student-t.js';
import { twinOf } from '../replicas.js';
import { AA_METHOD, estimate, ratioGroups, WindowIndex, type EstimatorOptions } from './summarize.js';

export { twinOf };

/** The run's A/A twin, when its design has the control. */
export const controlTwin = (design: { control?: 'aa' | 'none' | undefined; reference: string }): string | undefined => (design.control === 'aa' ? twinOf(design.reference) : undefined);

/**
 * The SD of one process's level from the A/A between-block SDs of the scenarios it served: each
 * A/A log-ratio carries two independent processes' levels, so its variance is twice one's. Pooled
 * over scenarios (mean of the variances); degrees of freedom blocks − 1 with shared processes (a
 * block's processes serve all its scenarios, so scenarios add no processes), and the sum of each
 * scenario's blocks − 1 with processes per scenario (each scenario's are its own); the interval
 * from the chi-square distribution. Its upper end, where each scenario's SD of its block means is
 * given (`meansSd`), from those: their variance is the processes' plus the rounds' share, so its
 * chi-square bound bounds the processes' from above (Williams 1962) also where the between part
 * reads 0, as it often does from few blocks; a bound scaled from that 0 would read [0, 0], as if a
 * few blocks had shown the processes identical.
 */
export function processSdOf(
  scenarios: ReadonlyArray<Pick<ControlScenario, 'between' | 'blocks'> & { meansSd?: number | null | undefined }>,
  confidence: number = DEFAULTS.confidence,
  processes: 'shared' | 'per-scenario' = 'shared',
): ControlRecord['processSd'] {
  const known = scenarios.filter((s) => s.between !== null && s.blocks >= 2);
  if (!known.length) return null;
  const variance = known.reduce((a, s) => a + s.between! ** 2, 0) / known.length / 2;
  const df = processes === 'shared' ? Math.max(...known.map((s) => s.blocks)) - 1 : known.reduce((a, s) => a + s.blocks - 1, 0);
  const point = Math.sqrt(variance);
  const a = (1 - confidence) / 2;
  const means = known.every((s) => Number.isFinite(s.meansSd)) ? Math.sqrt(known.reduce((a, s) => a + s.meansSd! ** 2, 0) / known.length / 2) : point;
  const ci95: [number, number] = [point * Math.sqrt(df / chiSquareQuantile(1 - a, df)), Math.max(point, means) * Math.sqrt(df / chiSquareQuantile(a, df))];
  return { point, ci95, df };
}

/** The run's A/A figures per scenario, from the twin's and the reference's windows in the same rounds. */
export function controlOf(
  windows: readonly WindowRecord[],
  scenarios: readonly string[],
  est: EstimatorOptions,
  index = new WindowIndex(windows),
  processes: 'shared' | 'per-scenario' = 'shared',
): ControlRecord | undefined {
  const reference = est.reference;
  const twin = twinOf(reference);
  if (!windows.some((w) => w.target === twin)) return undefined;
  const out: ControlScenario[] = [];
  const meansSd: number[] = [];
  for (const scenario of scenarios) {
    const groups = ratioGroups(windows, scenario, twin, reference, index).filter((g) => g.length > 0);
    if (!groups.length) continue;
    const ratio = estimate(groups, est, [scenario, twin, 'ratio'], AA_METHOD);
    const logs = groups.map((g) => g.filter((x) => x > 0).map(Math.log));
    const vc = varianceComponents(logs);
    meansSd.push(Math.sqrt(meansVariance(logs) ?? Number.NaN));
    out.push({
      scenario,
      blocks: groups.length,
      ratio,
      containsOne: ratio.ci95 ? ratio.ci95[0] <= 1 && 1 <= ratio.ci95[1] : null,
      between: vc.between,
      within: vc.within,
    });
  }
  if (!out.length) return undefined;
  const judged = out.filter((s) => s.containsOne !== null);
  return {
    reference,
    twin,
    scenarios: out,
    processSd: processSdOf(
      out.map((s, i) => ({ ...s, meansSd: meansSd[i] })),
      est.confidence,
      processes,
    ),
    holds: judged.length ? judged.every((s) => s.containsOne) : null,
  };
}
