import { accessSync, constants } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, isAbsolute, join } from 'node:path';

/**
 * The tool's cache folder, where built drivers (`bin/`), installed runtimes (`runtimes/`) and
 * virtualenvs live: `$BENCHSUITE_CACHE_DIR`, else `$XDG_CACHE_HOME/benchsuite`, else `~/.cache/benchsuite`.
 */
export function toolCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.BENCHSUITE_CACHE_DIR) return env.BENCHSUITE_CACHE_DIR;
  const xdg = env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : join(homedir(), '.cache');
  return join(xdg, 'benchsuite');
}

const executable = (p: string) => {
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/**
 * Where a Go-built tool is: `$BENCHSUITE_<NAME>`, the tool's cache (`benchsuite setup <name>`
 * builds it there from the Go module proxy), PATH, then Go's own bin folders. Null when none has it.
 */
export function findGoTool(name: string, env: NodeJS.ProcessEnv = process.env): string | null {
  const candidates = [
    env[`BENCHSUITE_${name.toUpperCase()}`],
    join(toolCacheDir(env), 'bin', name),
    ...(env.PATH ?? '').split(delimiter).map((d) => d && join(d, name)),
    env.GOBIN && join(env.GOBIN, name),
    env.GOPATH && join(env.GOPATH, 'bin', name),
    join(homedir(), 'go', 'bin', name),
  ];
  return candidates.find((c): c is string => !!c && executable(c)) ?? null;
}

/**
 * Where a Rust-built tool is: `$BENCHSUITE_<NAME>`, the tool's cache (`benchsuite setup <name>`
 * installs it there with `cargo install --root`), PATH, then cargo's own bin folder. Null when none has it.
 */
export function findCargoTool(name: string, env: NodeJS.ProcessEnv = process.env): string | null {
  const candidates = [
    env[`BENCHSUITE_${name.toUpperCase()}`],
    join(toolCacheDir(env), 'bin', name),
    ...(env.PATH ?? '').split(delimiter).map((d) => d && join(d, name)),
    env.CARGO_HOME && join(env.CARGO_HOME, 'bin', name),
    join(homedir(), '.cargo', 'bin', name),
  ];
  return candidates.find((c): c is string => !!c && executable(c)) ?? null;
}
