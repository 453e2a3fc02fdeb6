import { DEFAULTS } from '../defaults.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { decodeHistogram } from '../histogram.js';
import { guardProcessGroup } from '../process.js';
import type { Driver, DriverRunResult } from '../driver.js';
import type { WorkerJob, WorkerResult } from './_autocannon-worker.js';

// From dist this sits beside us; when the SDK runs from source (vitest), use the built worker.
const builtWorker = fileURLToPath(new URL('./_autocannon-worker.js', import.meta.url));
const workerPath = existsSync(builtWorker) ? builtWorker : fileURLToPath(new URL('../../dist/drivers/_autocannon-worker.js', import.meta.url));

/** One loader process, kept for the whole run: spawned at its first window, reused by the next ones on the same cores. */
interface Loader {
  child: ChildProcess;
  key: string;
  ready: Promise<void>;
  stderr: string;
}
/** Idle loaders by their pinning prefix (one run uses one). */
const idle = new Map<string, Loader[]>();

function takeLoader(pin: readonly string[]): Loader {
  const key = pin.join('\0');
  const reused = idle.get(key)?.pop();
  if (reused) {
    reused.child.ref();
    (reused.child.channel as { ref?: () => void } | undefined)?.ref?.();
    return reused;
  }
  const env = { ...process.env };
  for (const k of DEFAULTS.unsetEnv) delete env[k];
  const argv = [...pin, process.execPath, workerPath];
  const child = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'ignore', 'pipe', 'ipc'], env, detached: true });
  guardProcessGroup(child);
  const loader: Loader = {
    child,
    key,
    stderr: '',
    ready: new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    }),
  };
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (loader.stderr = (loader.stderr + c).slice(-4000)));
  // A failed spawn rejects `ready`; a failed send to a loader that just died ends in its exit. Never an unhandled 'error'.
  child.on('error', (e) => (loader.stderr += `\n${e.message}`));
  // A loader that dies while idle leaves the pool; the next window starts a new one.
  child.once('exit', () => {
    const list = idle.get(key);
    if (list?.includes(loader)) list.splice(list.indexOf(loader), 1);
  });
  return loader;
}

/** Back to the pool, and no longer keeping the runner alive: it exits when its IPC channel closes. */
function releaseLoader(l: Loader): void {
  if (l.child.exitCode !== null || l.child.signalCode !== null || !l.child.connected) return;
  l.child.unref();
  (l.child.channel as { unref?: () => void } | undefined)?.unref?.();
  const list = idle.get(l.key) ?? [];
  list.push(l);
  idle.set(l.key, list);
}

/** Close the IPC channel (the worker exits on it); SIGKILL if it has not gone within a second. */
function closeLoader(l: Loader): Promise<void> {
  if (l.child.exitCode !== null || l.child.signalCode !== null) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => l.child.kill('SIGKILL'), 1000);
    timer.unref();
    l.child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    if (l.child.connected) l.child.disconnect();
    else l.child.kill('SIGKILL');
  });
}

/** autocannon in its own pinned Node process, kept for the run, latency recorded at µs resolution from each response. */
export const autocannonDriver: Driver = {
  name: 'autocannon',
  ceilingRps: 75_000,
  capabilities: { capRate: true, fixedRequests: true, microsecondLatency: true, threads: 'one' },
  note: 'autocannon saturates its one core at 30–80k req/s depending on the host (`npm run bench:drivers` measures it); its own histogram keeps whole ms, so benchsuite records each response time at µs resolution itself.',
  async available() {
    return true;
  },
  async version() {
    const require = createRequire(import.meta.url);
    return (require('autocannon/package.json') as { version: string }).version;
  },
  flags(o) {
    return [
      `connections=${o.connections}`,
      `warmup=${o.warmupSec}s`,
      o.requestCount ? `amount=${o.requestCount}` : `duration=${o.durationSec}s`,
      `timeout=${o.timeoutSec}s`,
      'pipelining=1',
      ...(o.rate ? [`overallRate=${o.rate}`] : []),
    ];
  },
  run(o) {
    const job: WorkerJob = {
      url: o.baseUrl,
      requests: [...o.requests],
      connections: o.connections,
      warmupSec: o.warmupSec,
      durationSec: o.durationSec,
      requestCount: o.requestCount,
      rate: o.rate,
      timeoutSec: o.timeoutSec,
      expectStatus: [...o.expectStatus],
    };
    const loader = takeLoader(o.pin);
    const { child } = loader;
    return new Promise<DriverRunResult>((resolve, reject) => {
      const kill = () => child.kill('SIGKILL');
      const done = () => {
        child.off('message', onMessage);
        child.off('exit', onExit);
        o.signal?.removeEventListener('abort', kill);
      };
      const onMessage = (m: { type: string; result?: WorkerResult; message?: string }) => {
        if (m.type === 'measure-start') o.onMeasureStart?.(child.pid!);
        else if (m.type === 'measure-end') o.onMeasureEnd?.(child.pid!);
        else if (m.type === 'result' && m.result) {
          done();
          releaseLoader(loader);
          resolve({ ...m.result, histogram: decodeHistogram(m.result.histogram) });
        } else if (m.type === 'error') {
          done();
          reject(new Error(`autocannon: ${m.message}`));
        }
      };
      const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
        done();
        reject(new Error(`autocannon loader ended without a result (${signal ?? `exit ${code}`}): ${loader.stderr.trim().slice(-500)}`));
      };
      child.on('message', onMessage);
      child.once('exit', onExit);
      if (o.signal?.aborted) return kill();
      o.signal?.addEventListener('abort', kill, { once: true });
      loader.ready.then(
        () => child.send(job),
        (err: Error) => {
          done();
          reject(err);
        },
      );
    });
  },
  async close() {
    await Promise.all([...idle.values()].flat().map(closeLoader));
    idle.clear();
  },
};
