/**
 * Which code a frame belongs to. One rule list for every profiler, applied to the frame names the
 * parsers produce: `function (path:line)` (V8, py-spy) or `symbol (dso)` (perf).
 */

/**
 * - `own`: the target's code — under an `own` prefix, or (without `own` prefixes) any other file;
 * - `contract`: the shared contract code every server of a suite runs (under a `contract` prefix);
 * - `package`: a dependency, `node_modules/<pkg>` (scoped `@a/b` too) or `site-packages/<pkg>`;
 * - `runtime`: the language runtime — `node:` modules, V8's `(program)` and `(garbage collector)`
 *   (group `gc`), natives, Python's standard library, the interpreter and system libraries;
 * - `kernel`: kernel frames (perf);
 * - `idle`: V8's `(idle)` — the event loop waiting. Never part of any share (see `summarizeProfile`);
 * - `meta`: synthetic frames a profiler adds (py-spy's `process 123:"…"` and `thread (0x…)`, perf's
 *   `[comm]`) — they are not code and are left out of the per-group totals;
 * - `other`: anything else (unresolved addresses, JIT maps, files outside `own` prefixes).
 */
export type FrameKind = 'own' | 'contract' | 'package' | 'runtime' | 'kernel' | 'idle' | 'meta' | 'other';

/** A frame's group: the package name for `package`, `gc` or `runtime` for `runtime`, else the kind. */
export interface FrameClass {
  kind: FrameKind;
  group: string;
}

export interface ClassifyOptions {
  /**
   * Path prefixes of the target's own code. An absolute prefix (`/srv/app/`) must start the path;
   * a relative one (`packages/servers/dist/adapters/`) may start at any `/` of it. Without it,
   * every file that is not a package, the runtime or contract code counts as own.
   */
  own?: readonly string[] | undefined;
  /** Path prefixes of shared contract code (same matching as `own`); default `DEFAULT_CONTRACT_PATHS`. */
  contract?: readonly string[] | undefined;
}

/** This repository's shared contract code, in source and built form (`packages/servers`). */
export const DEFAULT_CONTRACT_PATHS: readonly string[] = ['packages/servers/src/contract/', 'packages/servers/dist/contract/'];

const V8_SPECIAL: Record<string, FrameClass> = {
  '(idle)': { kind: 'idle', group: 'idle' },
  '(garbage collector)': { kind: 'runtime', group: 'gc' },
  '(program)': { kind: 'runtime', group: 'runtime' },
  '(root)': { kind: 'meta', group: 'meta' },
};

/**
 * The location of `name (location)` without a trailing `:line[:col]`; undefined when there is
 * none. The opening parenthesis is the one matching the final `)`, so a path such as
 * `/home/me/app (copy)/x.js` stays whole.
 */
export function frameLocation(frame: string): string | undefined {
  if (!frame.endsWith(')')) return undefined;
  let depth = 0;
  for (let i = frame.length - 1; i > 0; i--) {
    const c = frame[i];
    if (c === ')') depth++;
    else if (c === '(' && --depth === 0) {
      return frame[i - 1] === ' ' ? frame.slice(i + 1, -1).replace(/(:\d+){1,2}$/, '') : undefined;
    }
  }
  return undefined;
}

/** Index just past the first prefix that matches `path`, or -1. */
function prefixEnd(path: string, prefixes: readonly string[]): number {
  for (const p of prefixes) {
    if (p === '') continue;
    if (path.startsWith(p)) return p.length;
    if (!p.startsWith('/')) {
      const at = path.indexOf(`/${p}`);
      if (at >= 0) return at + 1 + p.length;
    }
  }
  return -1;
}

/** `…/node_modules/@scope/pkg/lib/x.js` → `@scope/pkg`; the last `node_modules` wins (pnpm, nested copies). */
export function nodePackageOf(path: string): string | undefined {
  const at = path.lastIndexOf('node_modules/');
  if (at < 0) return undefined;
  const parts = path.slice(at + 'node_modules/'.length).split('/');
  const first = parts[0];
  if (!first) return undefined;
  if (first.startsWith('@')) return parts[1] ? `${first}/${parts[1]}` : undefined;
  return first;
}

/** `…/site-packages/httpcore/_async/x.py` → `httpcore`; a single-module package `six.py` → `six`. */
export function pythonPackageOf(path: string): string | undefined {
  const m = /\/(?:site|dist)-packages\/([^/]+)/.exec(path);
  if (!m) return undefined;
  const top = m[1]!;
  // Extension modules are files such as `_cffi_backend.cpython-311-x86_64-linux-gnu.so`.
  return top
    .replace(/\.(?:py|pyc|pyd|so)$/, '')
    .replace(/\.cpython-.*$/, '')
    .replace(/\.abi3$/, '');
}

const PY_STDLIB = /\/lib\/python\d+(?:\.\d+)?\//;
const SYSTEM_LIB = /^\/(?:usr\/)?lib(?:32|64)?\//;
const RUNTIME_BINARY = /(?:^|\/)(?:node|nodejs|python\d*(?:\.\d+)?|libpython[\d.]*\.so[\d.]*|libnode\.so[\d.]*|ld-linux[^/]*)$/;

/** Classify one frame (see `FrameKind` for the rules, applied in the order listed there). */
export function classifyFrame(frame: string, options: ClassifyOptions = {}): FrameClass {
  const special = V8_SPECIAL[frame];
  if (special) return special;
  if (/^process \d+:/.test(frame) || /^thread \(0x[0-9a-fA-F]+\)/.test(frame) || /^\[[^\]]*\]$/.test(frame)) return { kind: 'meta', group: 'meta' };
  const loc = frameLocation(frame);
  // No location: V8 natives and builtins (`writev`, `JSON.parse` show up without a URL).
  if (loc === undefined || loc === '') return { kind: 'runtime', group: 'runtime' };
  if (loc.startsWith('node:') || loc.startsWith('<frozen ')) return { kind: 'runtime', group: 'runtime' };
  if (loc.startsWith('[kernel') || loc === '[vdso]' || loc === '[vsyscall]') return { kind: 'kernel', group: 'kernel' };
  if (loc.startsWith('[') || loc.startsWith('<') || /^\/tmp\/perf-\d+\.map$/.test(loc) || loc.startsWith('//anon')) return { kind: 'other', group: 'other' };
  // An explicit prefix wins over the generic rules, unless a dependency folder sits below it
  // (`own: ['/srv/app/']` must not swallow `/srv/app/node_modules/fastify`).
  const pkg = nodePackageOf(loc) ?? pythonPackageOf(loc);
  const below = (end: number) => end >= 0 && !(pkg && /(?:^|\/)(?:node_modules|site-packages|dist-packages)\//.test(loc.slice(end)));
  if (below(prefixEnd(loc, options.contract ?? DEFAULT_CONTRACT_PATHS))) return { kind: 'contract', group: 'contract' };
  if (options.own && below(prefixEnd(loc, options.own))) return { kind: 'own', group: 'own' };
  if (pkg) return { kind: 'package', group: pkg };
  if (PY_STDLIB.test(loc) || SYSTEM_LIB.test(loc) || RUNTIME_BINARY.test(loc)) return { kind: 'runtime', group: 'runtime' };
  if (options.own) return { kind: 'other', group: 'other' };
  return { kind: 'own', group: 'own' };
}
