import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { toolCacheDir } from '@benchsuite/sdk';

/** The virtualenv scripts/test-prereqs.sh makes for Apache Otava (the oracle; never a runtime dependency). */
const python = join(toolCacheDir(), 'otava-venv-0.8.0', 'bin', 'python');
const script = fileURLToPath(new URL('./otava-oracle.py', import.meta.url));

/** Why the agreement test is skipped, or null when Otava is there. */
export const otavaMissing = existsSync(python) ? null : `no Apache Otava virtualenv at ${python}; scripts/test-prereqs.sh makes it (pip install apache-otava==0.8.0)`;

export interface OtavaAnswer {
  candidate: { index: number; qhat: number };
  /** E-Divisive's change points (Otava's permutation test), sorted by index. */
  changes: { index: number; pValue: number }[];
  /** The same after Otava's merge step, when `minMagnitude` was given. */
  merged?: { index: number; magnitude: number }[];
}

export interface OtavaSettings {
  /** Otava's `max_pvalue`: a point passes when (shuffles with Q̂ at least as large) ÷ (shuffles + 1) ≤ it. */
  maxPvalue: number;
  permutations: number;
  /** Otava's merge step's `min_magnitude` (relative, on the figure's segment means); none: no merge. */
  minMagnitude?: number;
  seed: number;
}

/** Otava's first candidate split, E-Divisive change points and (optionally) its merge step, on each series of logs. */
export function otava(series: number[][], o: OtavaSettings): OtavaAnswer[] {
  const out = execFileSync(python, [script], { input: JSON.stringify({ series, ...o }), encoding: 'utf8', maxBuffer: 64 << 20 });
  return JSON.parse(out) as OtavaAnswer[];
}
