/**
 * Loader process for the autocannon driver. It runs in its own (pinned) process so its CPU can be
 * measured apart from the runner's, and records every response's float duration into a µs HDR
 * histogram: autocannon's own histogram keeps whole milliseconds.
 * Protocol (IPC): the parent sends a `WorkerJob` per window; we answer `measure-start`,
 * `measure-end`, `result`, and wait for the next. One process serves a whole run, so its JIT is warm
 * for every measured window (a fresh process per 0.8-s window ran cold and was the bottleneck).
 */
import autocannon from 'autocannon';
import { createHistogram, encodeHistogram } from '../histogram.js';
import { isLoaderError } from '../loader-errors.js';
import type { RequestSpec } from '../scenario.js';

export interface WorkerJob {
  url: string;
  requests: RequestSpec[];
  connections: number;
  warmupSec: number;
  durationSec: number;
  /** Exact number of requests of the measured window (autocannon's `amount`), instead of a duration. */
  requestCount?: number | undefined;
  rate?: number | undefined;
  timeoutSec: number;
  expectStatus: number[];
}
export interface WorkerResult {
  requests: number;
  durationSec: number;
  histogram: string;
  statusCounts: Record<string, number>;
  errors: number;
  /** The loader's own failed sends (`isLoaderError`), not in `errors`. */
  loaderErrors?: number;
  timeouts: number;
  non2xx: number;
  unexpected: number;
}

function opts(job: WorkerJob, durationSec: number, amount?: number): autocannon.Options {
  return {
    url: job.url,
    connections: job.connections,
    duration: durationSec,
    // autocannon spreads `amount` over the connections and stops once each has its share answered.
    ...(amount ? { amount } : {}),
    timeout: job.timeoutSec,
    requests: job.requests.map((r) => ({ method: r.method as autocannon.Request['method'], path: r.path, headers: r.headers, body: r.body })),
    ...(job.rate ? { overallRate: job.rate } : {}),
    // autocannon only acts on its stop flag at the next sample tick (default 1 s), so a 0.5 s
    // window would run 1 s; tick every 50 ms to end windows on time.
    sampleInt: 50,
    // Keep autocannon from doing extra work we do not use.
    renderProgressBar: false,
    renderResultsTable: false,
    renderLatencyTable: false,
  } as autocannon.Options;
}

async function runWindow(job: WorkerJob, durationSec: number, record: boolean, amount?: number): Promise<WorkerResult> {
  const h = createHistogram();
  const statusCounts: Record<string, number> = {};
  const expected = new Set(job.expectStatus);
  let unexpected = 0;
  let loaderErrors = 0;
  let done!: (r: autocannon.Result) => void;
  let fail!: (e: Error) => void;
  const finished = new Promise<autocannon.Result>((resolve, reject) => {
    done = resolve;
    fail = reject;
  });
  const t0 = performance.now();
  const instance = autocannon(opts(job, durationSec, amount), (err, res) => (err ? fail(err) : done(res)));
  if (record) {
    instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
      h.recordValue(Math.max(1, Math.round(responseTime * 1000)));
      statusCounts[statusCode] = (statusCounts[statusCode] ?? 0) + 1;
      if (!expected.has(statusCode)) unexpected++;
    });
    instance.on('reqError', (err: NodeJS.ErrnoException) => {
      if (isLoaderError(`${err.code ?? ''} ${err.message}`)) loaderErrors++;
    });
  }
  const result = await finished;
  const elapsed = (performance.now() - t0) / 1000;
  const requests = Object.values(statusCounts).reduce((a, b) => a + b, 0);
  const non2xx = Object.entries(statusCounts).reduce((a, [code, n]) => (code.startsWith('2') ? a : a + n), 0);
  return {
    requests,
    durationSec: elapsed,
    histogram: encodeHistogram(h),
    statusCounts,
    errors: Math.max(0, result.errors - result.timeouts - loaderErrors),
    ...(loaderErrors ? { loaderErrors } : {}),
    timeouts: result.timeouts,
    non2xx,
    unexpected,
  };
}

// The runner is gone (its IPC channel closed): stop loading at once.
process.once('disconnect', () => process.exit(0));

process.on('message', async (job: WorkerJob) => {
  try {
    if (job.warmupSec > 0) await runWindow(job, job.warmupSec, false);
    process.send!({ type: 'measure-start' });
    const result = await runWindow(job, job.durationSec, true, job.requestCount);
    process.send!({ type: 'measure-end' });
    process.send!({ type: 'result', result });
  } catch (err) {
    process.send!({ type: 'error', message: err instanceof Error ? err.message : String(err) }, () => process.exit(1));
  }
});
