import { accessSync, constants, existsSync, realpathSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * Why a results folder cannot be used, or null: it (or its first existing ancestor) must be a
 * writable folder outside /proc and /sys. Checked before anything starts, without
 * `mkdir -p` (which loops forever under /proc on some kernels).
 */
export function unusableDir(dir: string): string | null {
  let probe = resolve(dir);
  while (!existsSync(probe)) {
    const parent = dirname(probe);
    if (parent === probe) break;
    probe = parent;
  }
  let real: string;
  try {
    real = realpathSync(probe);
  } catch (err) {
    return `cannot resolve ${probe} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`;
  }
  if (/^\/(proc|sys)(\/|$)/.test(real)) return `${real} is a kernel pseudo-filesystem, not a place for results`;
  try {
    if (!statSync(real).isDirectory()) return `${real} is a file, not a folder`;
    accessSync(real, constants.W_OK | constants.X_OK);
  } catch (err) {
    return `${real} is not writable (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`;
  }
  return null;
}
