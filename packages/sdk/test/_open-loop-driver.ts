import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createHistogram, defineDriver, type Driver, type DriverRunOptions, type DriverRunResult } from '../src/index.js';

const loader = fileURLToPath(new URL('./fixtures/open-loop-loader.mjs', import.meta.url));

interface LoaderOutput {
  scheduled: number;
  sent: number;
  rows: Array<[number, number, number, number]>;
  errors: number;
  timeouts: number;
}

/**
 * A real open-loop driver for tests, built on `fixtures/open-loop-loader.mjs` (its own pinned Node
 * process on real sockets): `burnUs` of CPU before every send makes it a loader slowed on purpose.
 * It reports the measured part's edges (`measure-start` / `measure-end` lines), so its CPU is
 * sampled without its start-up, as the autocannon driver's kept loader is.
 */
export function nodeOpenLoopDriver(o: { burnUs: number; name?: string }): Driver {
  return defineDriver({
    name: o.name ?? `node-open-loop${o.burnUs ? ` (${o.burnUs} µs per send)` : ''}`,
    ceilingRps: 5_000,
    openLoopCeilingRps: 5_000,
    capabilities: { capRate: false, openLoop: true, microsecondLatency: true, threads: 'one' },
    available: async () => true,
    version: async () => process.version,
    flags: () => [`burnUs=${o.burnUs}`],
    run: (r: DriverRunOptions) =>
      new Promise<DriverRunResult>((resolve, reject) => {
        const req = r.requests[0]!;
        const open = Boolean(r.openLoop && r.rate);
        const job = {
          url: r.baseUrl + req.path,
          method: req.method,
          headers: req.headers,
          body: req.body,
          rate: open ? r.rate : undefined,
          durationSec: r.durationSec,
          warmupSec: r.warmupSec,
          connections: r.connections,
          maxInFlight: open ? Math.max(r.connections, Math.min(1000, Math.ceil(r.rate!))) : r.connections,
          timeoutMs: r.timeoutSec * 1000,
          burnUs: o.burnUs,
        };
        const argv = [...r.pin, process.execPath, loader, JSON.stringify(job)];
        const env = { ...process.env };
        delete env.NODE_EXTRA_CA_CERTS;
        delete env.NODE_OPTIONS;
        const child = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'], env });
        let out = '';
        let err = '';
        let marks = 0;
        // The loader's CPU is sampled between its `measure-start` and `measure-end` lines.
        child.stdout.setEncoding('utf8').on('data', (c: string) => {
          out += c;
          if (marks === 0 && out.includes('measure-start\n')) {
            marks = 1;
            r.onMeasureStart?.(child.pid!);
          }
          if (marks === 1 && out.includes('measure-end\n')) {
            marks = 2;
            r.onMeasureEnd?.(child.pid!);
          }
        });
        child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
        const kill = () => child.kill('SIGKILL');
        r.signal?.addEventListener('abort', kill, { once: true });
        child.once('error', reject);
        child.once('exit', (code) => {
          r.signal?.removeEventListener('abort', kill);
          if (r.signal?.aborted) return reject(new Error('interrupted'));
          if (code !== 0 || marks !== 2) return reject(new Error(`open-loop loader exited ${code}: ${err.slice(-500)}`));
          const res = JSON.parse(out.trim().split('\n').at(-1)!) as LoaderOutput;
          const histogram = createHistogram();
          const corrected = createHistogram();
          const statusCounts: Record<string, number> = {};
          let late = 0;
          let non2xx = 0;
          let unexpected = 0;
          for (const [due, sent, end, status] of res.rows) {
            histogram.recordValue(Math.max(1, end - sent));
            corrected.recordValue(Math.max(1, end - due));
            if (sent - due > 2000) late++;
            statusCounts[status] = (statusCounts[status] ?? 0) + 1;
            if (status < 200 || status >= 300) non2xx++;
            if (!r.expectStatus.includes(status)) unexpected++;
          }
          resolve({
            requests: res.rows.length,
            durationSec: r.durationSec,
            histogram,
            statusCounts,
            errors: res.errors,
            timeouts: res.timeouts,
            non2xx,
            unexpected,
            ...(open ? { openLoop: { corrected, late, dropped: res.scheduled - res.sent } } : {}),
          });
        });
      }),
  });
}
