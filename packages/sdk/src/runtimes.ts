import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULTS } from './defaults.js';
import { toolCacheDir } from './cache.js';
import { startProcess } from './process.js';
import { TargetUnavailableError, type ProcessTarget, type Target } from './target.js';

/**
 * JavaScript runtimes as a dimension of a target: Node versions, Bun and Deno, each installed by
 * the tool from the npm registry (the packages carry the binary) into its cache, checked, reused.
 * The host's own Node needs no install.
 */
export type RuntimeKind = 'node' | 'bun' | 'deno';

export interface RuntimeSpec {
  kind: RuntimeKind;
  /** npm version range (`22`, `22.11.0`, `1.2`), or null for the newest. */
  range: string | null;
  /** As written: `node@22`, `bun`. */
  spec: string;
  /** Suffix of variant names: `node22`, `bun`, `deno2`. */
  label: string;
}

const KINDS: readonly RuntimeKind[] = ['node', 'bun', 'deno'];

/** Parse `node@22`, `node@22.11.0`, `bun`, `bun@1.2`, `deno`; throws naming what is wrong. */
export function parseRuntime(spec: string): RuntimeSpec {
  const m = /^(node|bun|deno)(?:@(\d+(?:\.\d+){0,2}))?$/.exec(spec.trim());
  if (!m) throw new Error(`"${spec}": expected ${KINDS.join(', ')}, optionally with @VERSION (node@22, node@24.9.0, bun@1.2)`);
  const kind = m[1] as RuntimeKind;
  const range = m[2] ?? null;
  return { kind, range, spec: spec.trim(), label: `${kind}${range ? range.replace(/\./g, '_') : ''}` };
}

/** The npm package whose binary is this runtime on this platform. */
export function runtimePackage(r: Pick<RuntimeSpec, 'kind' | 'range'>, platform: string = process.platform, arch: string = process.arch): string {
  const name = r.kind === 'node' ? `node-${platform}-${arch}` : r.kind === 'bun' ? `@oven/bun-${platform}-${arch}` : `@deno/${platform}-${arch}${platform === 'linux' ? '-glibc' : ''}`;
  return r.range ? `${name}@${r.range}` : name;
}

/** Where the binary sits inside its installed package. */
function binaryIn(dir: string, r: Pick<RuntimeSpec, 'kind'>, platform = process.platform, arch = process.arch): string {
  const pkg = runtimePackage({ kind: r.kind, range: null }, platform, arch);
  return r.kind === 'deno' ? join(dir, 'node_modules', pkg, 'deno') : join(dir, 'node_modules', pkg, 'bin', r.kind);
}

/** The host's own Node as a runtime spec (`node@20`, label `node20`). */
export function hostRuntime(hostVersion: string = process.versions.node): RuntimeSpec {
  const major = hostVersion.split('.')[0]!;
  return { kind: 'node', range: major, spec: `node@${major}`, label: `node${major}` };
}

/** Does the host's own Node satisfy this spec? Then it runs without an install. */
export function isHostNode(r: RuntimeSpec, hostVersion: string = process.versions.node): boolean {
  if (r.kind !== 'node') return false;
  if (!r.range) return false;
  const want = r.range.split('.');
  const have = hostVersion.split('.');
  return want.every((p, i) => p === have[i]);
}

export interface InstalledRuntime {
  spec: string;
  kind: RuntimeKind;
  /** Exact version, as the binary reports it. */
  version: string;
  binary: string;
  /** The host's own Node (nothing installed). */
  host: boolean;
  /** Seconds the install took, when this call installed it; null when it was already there. */
  installSec: number | null;
  /** Disk used by the installed package, bytes (null for the host's Node). */
  bytes: number | null;
}

function dirBytes(dir: string): number {
  let total = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) total += dirBytes(p);
    else if (e.isFile()) total += statSync(p).size;
  }
  return total;
}

function versionOf(binary: string, kind: RuntimeKind): string | null {
  const r = spawnSync(binary, ['--version'], { encoding: 'utf8', timeout: 20_000 });
  if (r.status !== 0) return null;
  const text = r.stdout.trim();
  return (kind === 'deno' ? /deno (\S+)/.exec(text)?.[1] : text.replace(/^v/, '').split('\n')[0]) ?? null;
}

/**
 * The runtime's binary: the host's Node, or installed from the npm registry into
 * `<cache>/runtimes/<package>@<range>` (progress on `onProgress`), checked by running `--version`,
 * and reused from there the next time.
 */
export async function ensureRuntime(r: RuntimeSpec, o: { cacheDir?: string; onProgress?: (m: string) => void; signal?: AbortSignal } = {}): Promise<InstalledRuntime> {
  if (isHostNode(r)) return { spec: r.spec, kind: 'node', version: process.versions.node, binary: process.execPath, host: true, installSec: null, bytes: null };
  const pkg = runtimePackage(r);
  const dir = join(o.cacheDir ?? toolCacheDir(), 'runtimes', pkg.replace(/[/@]/g, '_').replace(/^_/, ''));
  const binary = binaryIn(dir, r);
  const record = join(dir, 'benchsuite-runtime.json');
  if (existsSync(binary) && existsSync(record)) {
    const version = versionOf(binary, r.kind);
    if (version) {
      const saved = JSON.parse(readFileSync(record, 'utf8')) as { bytes: number };
      return { spec: r.spec, kind: r.kind, version, binary, host: false, installSec: null, bytes: saved.bytes };
    }
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  o.onProgress?.(`installing ${pkg} from the npm registry into ${dir}`);
  const t0 = performance.now();
  const code = await new Promise<number>((resolve) => {
    const c = spawn('npm', ['install', '--prefix', dir, '--no-save', '--no-package-lock', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error', pkg], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    c.stderr.setEncoding('utf8').on('data', (d: string) => (err = (err + d).slice(-2000)));
    const abort = () => c.kill('SIGKILL');
    o.signal?.addEventListener('abort', abort, { once: true });
    c.on('error', () => resolve(127));
    c.on('exit', (status) => {
      o.signal?.removeEventListener('abort', abort);
      if (status !== 0) o.onProgress?.(`npm install ${pkg} failed: ${err.trim().split('\n').slice(-3).join(' ')}`);
      resolve(status ?? 1);
    });
  });
  const installSec = (performance.now() - t0) / 1000;
  if (code !== 0 || !existsSync(binary)) throw new TargetUnavailableError(`${r.spec}: npm install ${pkg} failed (exit ${code}); nothing else can provide it here`);
  const version = versionOf(binary, r.kind);
  if (!version) throw new TargetUnavailableError(`${r.spec}: ${binary} was installed but does not run (--version failed)`);
  const bytes = dirBytes(dir);
  writeFileSync(record, `${JSON.stringify({ package: pkg, version, installSec, bytes })}\n`);
  o.onProgress?.(`${r.kind} ${version} installed in ${installSec.toFixed(1)} s (${(bytes / 2 ** 20).toFixed(0)} MiB)`);
  return { spec: r.spec, kind: r.kind, version, binary, host: false, installSec, bytes };
}

/** A Node target's command on another runtime: the same script and arguments under its binary. */
export function commandOn(kind: RuntimeKind, binary: string, command: readonly string[], own?: Partial<Record<RuntimeKind, readonly string[]>>): string[] {
  const args = own?.[kind] ?? command.slice(1);
  return kind === 'deno' ? [binary, 'run', '-A', ...args] : [binary, ...args];
}

/** Is this binary Node (the host's, one the tool installed, or `node` on PATH)? */
const isNodeBinary = (bin: string): boolean => bin === process.execPath || /(^|\/)node$/.test(bin);

/** Can a target run on another JavaScript runtime? A process target whose command runs Node. */
function runsOnNode(t: Target): t is ProcessTarget {
  return t.kind === 'process' && isNodeBinary(t.command[0] ?? '');
}

/** The runtime flags of V8's young generation at `mb` (semi-space, min = max); none for the runtime's own sizing. */
export function youngGenerationFlags(mb: number | 'default'): string[] {
  return mb === 'default' ? [] : [`--min-semi-space-size=${mb}`, `--max-semi-space-size=${mb}`];
}

/** How a design runs V8's memory reducer in its Node targets: `off` (`--no-memory-reducer`) or `default`, the runtime's own. */
export const MEMORY_REDUCER_MODES = ['off', 'default'] as const;
export type MemoryReducerMode = (typeof MEMORY_REDUCER_MODES)[number];

/** The runtime flag of V8's memory reducer: `--no-memory-reducer` when off; none for the runtime's own. */
export function memoryReducerFlags(reducer: MemoryReducerMode): string[] {
  return reducer === 'off' ? ['--no-memory-reducer'] : [];
}

/** Every Node target's runtime flags under a design: its young generation, then its memory reducer. */
export function nodeRuntimeFlags(d: { youngGenerationMb?: number | 'default' | undefined; memoryReducer?: MemoryReducerMode | undefined }): string[] {
  return [...youngGenerationFlags(d.youngGenerationMb ?? 'default'), ...memoryReducerFlags(d.memoryReducer ?? 'default')];
}

/**
 * A command with Node's runtime flags added right after the binary, when it runs Node (a Bun or
 * Deno binary, or a Python server, is left as it is). Flags the command already gives win: a
 * target that sets its own semi-space keeps it, and one that asks for `--memory-reducer` keeps
 * the reducer (a flag and its `--no-` form are one flag).
 */
export function withNodeFlags(command: readonly string[], flags: readonly string[]): string[] {
  const [bin, ...rest] = command;
  if (bin === undefined || !flags.length || !isNodeBinary(bin)) return [...command];
  const name = (f: string) => f.split('=')[0]!.replace(/^--no-/, '--');
  const own = new Set(rest.filter((a) => a.startsWith('--')).map(name));
  return [bin, ...flags.filter((f) => !own.has(name(f))), ...rest];
}

/**
 * Variants of the targets on each runtime, named `<target>@<runtime label>` (`fastify@node22`,
 * `hono@bun`). Each variant's setup installs its runtime (or reuses it), then starts the server
 * once: a runtime that cannot run it becomes a skipped variant with the runtime's own error. The
 * exact version and binary go into the variant's metadata. Targets that do not run on Node are kept
 * as they are, once.
 */
export function runtimeVariants(targets: readonly Target[], runtimes: readonly RuntimeSpec[], o: { cacheDir?: string } = {}): Target[] {
  const out: Target[] = [];
  for (const t of targets) {
    if (!runsOnNode(t)) {
      out.push(t);
      continue;
    }
    for (const r of runtimes) {
      const base = t;
      out.push({
        ...base,
        name: `${base.name}@${r.label}`,
        metadata: { ...base.metadata, runtime: r.spec },
        setup: async (ctx) => {
          const previous = base.setup ? ((await base.setup(ctx)) ?? {}) : {};
          const rt = await ensureRuntime(r, { ...(o.cacheDir ? { cacheDir: o.cacheDir } : {}), onProgress: ctx.log, signal: ctx.signal });
          const command = commandOn(r.kind, rt.binary, previous.command ?? base.command, base.runtimeCommands);
          await smokeStart(base, command, r);
          return { ...previous, command, metadata: { runtime: { spec: r.spec, kind: rt.kind, version: rt.version, binary: rt.binary, host: rt.host, installSec: rt.installSec, bytes: rt.bytes } } };
        },
      });
    }
  }
  return out;
}

/** Start the server once on the runtime: one that cannot run it is skipped with its own error. */
async function smokeStart(t: ProcessTarget, command: string[], r: RuntimeSpec): Promise<void> {
  // A server that needs its helper services (a stub backend) is first started in a block.
  if (Object.keys(t.services).length) return;
  const env: Record<string, string> = { ...t.env };
  try {
    const p = await startProcess({ command, env, ...(t.cwd ? { cwd: t.cwd } : {}), unsetEnv: t.unsetEnv, readyTimeoutMs: Math.min(t.readyTimeoutMs, DEFAULTS.runtimeSmokeTimeoutMs) });
    await p.stop();
  } catch (err) {
    throw new TargetUnavailableError(`${t.name} does not start on ${r.spec}: ${(err as Error).message.split('\n').slice(0, 6).join(' | ')}`);
  }
}
