import { DEFAULTS } from '../defaults.js';
import { spawn } from 'node:child_process';
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

/** autocannon in its own pinned Node process, latency recorded at µs resolution from each response. */
export const autocannonDriver: Driver = {
  name: 'autocannon',
  ceilingRps: 75_000,
  capabilities: { capRate: true, fixedRequests: true, microsecondLatency: true, threads: 'one' },
  note: 'autocannon saturates one core near 75–80k req/s; its own histogram keeps whole ms, so benchsuite records each response time at µs resolution itself.',
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
    const env = { ...process.env };
    for (const k of DEFAULTS.unsetEnv) delete env[k];
    const argv = [...o.pin, process.execPath, workerPath];
    const child = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'ignore', 'pipe', 'ipc'], env, detached: true });
    guardProcessGroup(child);
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr = (stderr + c).slice(-4000)));
    const kill = () => child.kill('SIGKILL');
    o.signal?.addEventListener('abort', kill, { once: true });
    return new Promise<DriverRunResult>((resolve, reject) => {
      let result: WorkerResult | undefined;
      child.on('message', (m: { type: string; result?: WorkerResult; message?: string }) => {
        if (m.type === 'measure-start') o.onMeasureStart?.(child.pid!);
        else if (m.type === 'measure-end') o.onMeasureEnd?.(child.pid!);
        else if (m.type === 'result') result = m.result;
        else if (m.type === 'error') reject(new Error(`autocannon: ${m.message}`));
      });
      child.once('spawn', () => child.send(job));
      child.once('error', reject);
      child.once('exit', (code, signal) => {
        o.signal?.removeEventListener('abort', kill);
        if (!result) return reject(new Error(`autocannon loader ended without a result (${signal ?? `exit ${code}`}): ${stderr.trim().slice(-500)}`));
        resolve({ ...result, histogram: decodeHistogram(result.histogram) });
      });
    });
  },
};
