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
  changes: { index: number; pValue: number }[];
}

/** Otava's first candidate split and `compute_change_points_orig` on each series. */
export function otava(series: number[][], alpha: number, seed: number): OtavaAnswer[] {
  const out = execFileSync(python, [script], { input: JSON.stringify({ series, alpha, seed }), encoding: 'utf8', maxBuffer: 64 << 20 });
  return JSON.parse(out) as OtavaAnswer[];
}
