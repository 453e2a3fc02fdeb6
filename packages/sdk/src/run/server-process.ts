/**
 * A target's server as the run starts it: its process (and its helper services) through
 * `process.ts`, pinned, ready, and stopped; a URL target's no-op handle; and the failures a
 * started server can have (`PhaseError`, `LoaderFailure`). Not to be confused with `runtimes.ts`
 * (Node versions, Bun, Deno).
 */
import { DEFAULTS } from '../defaults.js';
import { pinPrefix, type Pinning } from '../environment.js';
import { ProcessStartError, startProcess, type ExitInfo, type RunningProcess } from '../process.js';
import type { ProcessTarget, ServiceSpec, Target } from '../target.js';

/** A failure with the phase it happened in, the server's output tail and how it exited. */
export class PhaseError extends Error {
  constructor(
    readonly phase: 'setup' | 'start' | 'ready' | 'prepare' | 'warmup' | 'load' | 'crash' | 'interrupted',
    message: string,
    readonly tail?: string,
    readonly exit?: ExitInfo,
  ) {
    super(message);
  }
}

/** The loader itself failed a window (its process exited with an error, its output unreadable): never the server's failure. */
export class LoaderFailure extends PhaseError {
  constructor(message: string) {
    super('load', message);
  }
}

/** A started target: where to send load, which pid to sample, and how to stop it. */
export interface StartedTarget {
  baseUrl: string;
  /** The server's pid, when this runner started it (its process tree is sampled). */
  pid: number | undefined;
  /** Spawn → ready, ms. */
  startupMs: number | undefined;
  /** The environment the server was started with (a profiler finds its hand-off folder there). */
  env?: Readonly<Record<string, string>>;
  /** Pids of the target's helper services (sampled for the backend-bound flag). */
  servicePids: number[];
  /** Base URLs of the target's helper services by name (a streaming scenario's observer). */
  serviceUrls?: Readonly<Record<string, string>>;
  /** Resolves when the server exits (a crash, unless we stopped it). */
  exited: Promise<ExitInfo> | undefined;
  exitInfo(): ExitInfo | undefined;
  tail(): string | undefined;
  stop(): Promise<void>;
}

interface StartOptions {
  pinning: Pinning;
  signal: AbortSignal;
  /** The command the target's setup produced (e.g. a virtualenv's python), when it replaced the declared one. */
  command?: readonly string[] | undefined;
  healthPollMs?: number;
  /** Start with `/healthz` readiness whatever the target declares (startup-time measurement). */
  forceHealthz?: boolean;
  /** How long the server may take to be ready, when not the target's own (a server under valgrind is slow to start). */
  readyTimeoutMs?: number;
  /** Change the server's command and environment before it starts (a profiler's hook). */
  prepare?: (command: readonly string[], env: Readonly<Record<string, string>>) => { command: readonly string[]; env: Record<string, string> };
}

/** One small handle per target kind: the run loop never asks which kind it holds. */
export interface TargetRuntime {
  readonly target: Target;
  start(o: StartOptions): Promise<StartedTarget>;
}

/** Replace `${services.<name>.url}` in a target's environment. */
function substituteServices(env: Record<string, string>, services: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) {
    out[k] = v.replace(/\$\{services\.([a-z0-9._-]+)\.url\}/g, (_, name: string) => {
      const url = services[name];
      if (url === undefined) throw new PhaseError('start', `env ${k} refers to unknown service "${name}"`);
      return url;
    });
  }
  return out;
}

function processRuntime(target: ProcessTarget): TargetRuntime {
  return {
    target,
    async start(o) {
      const services: RunningProcess[] = [];
      const urls: Record<string, string> = {};
      const stopServices = () => Promise.all(services.map((s) => s.stop(2000)));
      try {
        for (const [name, svc] of Object.entries(target.services) as Array<[string, ServiceSpec]>) {
          try {
            const s = await startProcess({ ...svc, unsetEnv: [...DEFAULTS.unsetEnv], pin: pinPrefix(o.pinning, o.pinning.loaderCpus), signal: o.signal });
            services.push(s);
            urls[name] = s.url;
          } catch (err) {
            if (err instanceof ProcessStartError) throw new PhaseError('start', `service ${name}: ${err.message}`, err.tail);
            throw err;
          }
        }
        const base = {
          command: o.command ?? target.command,
          env: {
            ...substituteServices(target.env, urls),
            // The cores the server is pinned to: multi-worker servers size their pool from it.
            ...(o.pinning.enabled ? { BENCHSUITE_SERVER_CPUS: o.pinning.serverCpus.join(',') } : {}),
          },
        };
        const { command, env } = o.prepare ? o.prepare(base.command, base.env) : base;
        let server: RunningProcess;
        try {
          server = await startProcess({
            command,
            cwd: target.cwd,
            env,
            unsetEnv: target.unsetEnv,
            ready: o.forceHealthz ? { type: 'healthz', path: '/healthz' } : target.ready,
            readyTimeoutMs: o.readyTimeoutMs ?? target.readyTimeoutMs,
            pin: pinPrefix(o.pinning, o.pinning.serverCpus),
            signal: o.signal,
            healthPollMs: o.healthPollMs,
          });
        } catch (err) {
          if (err instanceof ProcessStartError) throw new PhaseError(err.phase, err.message, err.tail, err.exit);
          throw err;
        }
        return {
          baseUrl: server.url,
          pid: server.pid,
          startupMs: server.readyMs,
          env,
          servicePids: services.map((s) => s.pid),
          serviceUrls: urls,
          exited: server.exited,
          exitInfo: () => server.exitInfo(),
          tail: () => server.tail(),
          async stop() {
            await server.stop();
            await stopServices();
          },
        };
      } catch (err) {
        await stopServices();
        throw err;
      }
    },
  };
}

function urlRuntime(target: Extract<Target, { kind: 'url' }>): TargetRuntime {
  const baseUrl = target.url.replace(/\/$/, '');
  return {
    target,
    async start() {
      return { baseUrl, pid: undefined, startupMs: undefined, servicePids: [], exited: undefined, exitInfo: () => undefined, tail: () => undefined, stop: async () => undefined };
    },
  };
}

/** The runtime handle of a target. */
export function runtimeOf(target: Target): TargetRuntime {
  return target.kind === 'process' ? processRuntime(target) : urlRuntime(target);
}
