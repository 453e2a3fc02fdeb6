import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

/**
 * The tool's cache folder, where built drivers (`bin/`), installed runtimes (`runtimes/`) and
 * virtualenvs live: `$BENCHSUITE_CACHE_DIR`, else `$XDG_CACHE_HOME/benchsuite`, else `~/.cache/benchsuite`.
 */
export function toolCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.BENCHSUITE_CACHE_DIR) return env.BENCHSUITE_CACHE_DIR;
  const xdg = env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : join(homedir(), '.cache');
  return join(xdg, 'benchsuite');
}
