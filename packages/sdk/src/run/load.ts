import type { Driver, DriverRunOptions, DriverRunResult } from '../driver.js';
import { pinPrefix, type Pinning } from '../environment.js';
import { describeExit, type ExitInfo } from '../process.js';
import { TreeSampler, type WindowResources } from '../window-resources.js';
import { LoaderFailure, PhaseError } from './server-process.js';

/**
 * The one physical act of the run: the driver loads one server once. Every load goes through
 * `loadOnce` — a measured window's connection step, a sliced round's loader, a warm-up window, a
 * loader-floor window, a backend's ceiling window, and through them a capacity probe and a
 * profile's windows — so the driver call, the resource sampler, the crash watch and what a failure
 * means live here once; the callers compose loads and read their figures.
 */

/** What a load needs of the run: its driver, where it pins loaders and servers, and the run's signal. */
export interface LoadContext {
  driver: Driver;
  pinning: Pinning;
  signal: AbortSignal;
}

/** The server a load is aimed at: where to send, which pids to sample and, for a started target, how it exits. */
interface LoadedServer {
  baseUrl: string;
  /** Its pid, when this runner started it (its process tree is sampled). */
  pid: number | undefined;
  /** Pids of its helper services (sampled for the backend-bound flag). */
  servicePids?: readonly number[];
  /** Resolves when the server exits: a crash, unless we stopped it. */
  exited?: Promise<ExitInfo> | undefined;
  exitInfo?(): ExitInfo | undefined;
  tail?(): string | undefined;
}

/**
 * What a failed load means:
 * - `window`: a measured load. The server's exit ends it at once (the loader is aborted) and is a
 *   `crash`; the run's interruption is `interrupted`; anything else is the loader's own
 *   (`LoaderFailure`). A load that returned after the server exited is a `crash` too.
 * - `warm-up`: an unrecorded window. Not started once the run is interrupted; a failure is a
 *   `crash` when the server has exited, else `interrupted` or `warmup`.
 * - `as-thrown`: the driver's error as it is (a process of the runner's own: the floor's
 *   responder, a backend measured alone).
 */
type LoadFailures = 'window' | 'warm-up' | 'as-thrown';

/** One load: the server, what the driver sends (less where it pins and the hooks, set here), and how it is watched. */
export interface LoadSpec {
  server: LoadedServer;
  send: Omit<DriverRunOptions, 'baseUrl' | 'pin' | 'signal' | 'onMeasureStart' | 'onMeasureEnd'>;
  failures: LoadFailures;
  /**
   * Sample the server's process tree and the loader's CPU around the measured part. `intervalMs`:
   * how often the tree's memory is read (several samplers at once read it less often).
   */
  sample?: { intervalMs?: number } | undefined;
}

/** What a load gave: the driver's figures, and (sampled) the resources of its measured part and its cores' readings. */
export interface Loaded {
  res: DriverRunResult;
  /** Undefined when not sampled, or when the loader ended without its measuring hooks. */
  resources: WindowResources | undefined;
  /** The measured cores' busy and total seconds and what the sampler knows ran there (`TreeSampler.last`). */
  cores: TreeSampler['last'];
}

/** How many cores the loader process can keep busy at once. */
const loaderThreads = (ctx: LoadContext): number => (ctx.driver.capabilities.threads === 'one' ? 1 : Math.max(1, ctx.pinning.loaderCpus.length));

/** A loader that aborts when the server dies, so a crash ends the window at once instead of at its timeout. */
function crashWatch(server: LoadedServer, signal: AbortSignal): { signal: AbortSignal; loadFailed: (err: Error) => PhaseError; throwIfCrashed: () => void; dispose: () => void } {
  const ac = new AbortController();
  let crashed: string | undefined;
  let live = true;
  const onAbort = () => ac.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  void server.exited?.then((e) => {
    if (!live) return;
    crashed = `server exited during the window (${describeExit(e)})`;
    ac.abort();
  });
  const crashError = () => new PhaseError('crash', crashed!, server.tail?.(), server.exitInfo?.());
  return {
    signal: ac.signal,
    // Why the loader failed: the server's crash, the run's interruption, or the loader's own error.
    loadFailed: (err) => (crashed ? crashError() : signal.aborted ? new PhaseError('interrupted', 'interrupted') : new LoaderFailure(err.message)),
    throwIfCrashed: () => {
      if (crashed) throw crashError();
    },
    dispose: () => {
      live = false;
      signal.removeEventListener('abort', onAbort);
    },
  };
}

/** The failure of a warm-up window: the server's exit, the run's interruption, or the warm-up's. */
function warmupFailure(server: LoadedServer, signal: AbortSignal, err: Error): PhaseError {
  const e = server.exitInfo?.();
  if (e) return new PhaseError('crash', `server exited during the warm-up`, server.tail?.(), e);
  return new PhaseError(signal.aborted ? 'interrupted' : 'warmup', err.message);
}

/** Load one server once (see `LoadSpec`, `LoadFailures`). Throws `PhaseError` (`window`, `warm-up`) or the driver's error (`as-thrown`). */
export async function loadOnce(ctx: LoadContext, spec: LoadSpec): Promise<Loaded> {
  const { server, failures } = spec;
  if (failures === 'warm-up' && ctx.signal.aborted) throw new PhaseError('interrupted', 'interrupted');
  const sampler = spec.sample ? new TreeSampler(server.pid, ctx.pinning.loaderCpus, ctx.pinning.serverCpus, loaderThreads(ctx), server.servicePids ?? [], spec.sample.intervalMs) : undefined;
  const watch = failures === 'window' ? crashWatch(server, ctx.signal) : undefined;
  let resources: WindowResources | undefined;
  try {
    const res = await ctx.driver
      .run({
        ...spec.send,
        baseUrl: server.baseUrl,
        pin: pinPrefix(ctx.pinning, ctx.pinning.loaderCpus),
        signal: watch?.signal ?? ctx.signal,
        ...(sampler
          ? {
              onMeasureStart: (pid: number) => sampler.windowStart(pid),
              onMeasureEnd: () => {
                resources = sampler.windowEnd();
              },
            }
          : {}),
      })
      .catch((err: Error) => {
        if (watch) throw watch.loadFailed(err);
        if (failures === 'warm-up') throw warmupFailure(server, ctx.signal, err);
        throw err;
      });
    watch?.throwIfCrashed();
    return { res, resources, cores: sampler?.last };
  } finally {
    watch?.dispose();
    sampler?.stop();
  }
}
