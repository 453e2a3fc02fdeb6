// autocannon's rate mode (`overallRate`) in its own process, for bench/open-loop.mjs: a warm-up,
// then the measured window. autocannon has no schedule: each connection may send `rate ÷
// connections` requests per second, back to back, and waits for the next second once they are
// sent; with a rate its own histogram is "corrected" (HdrHistogram's expected interval, which it
// sets to ceil(1 ÷ the connection's rate) = 1 ms; `-C` turns that off). Here every response's send
// time (its end minus its response time) is kept, and the k-th send in time is due at k ÷ rate
// from the first: latency from the intended send, late sends (> 2 ms after it) and early ones.
// Prints `measure-start` and `measure-end` lines around the window, then one JSON line.
import autocannon from 'autocannon';
import { createHistogram, latencyOf } from '../dist/index.js';

const job = JSON.parse(process.argv[2]);

function window(seconds, record) {
  const sends = [];
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: job.url,
        connections: job.connections,
        duration: seconds,
        overallRate: job.rate,
        timeout: 10,
        sampleInt: 50,
        renderProgressBar: false,
        renderResultsTable: false,
        renderLatencyTable: false,
      },
      (err, res) => (err ? reject(err) : resolve({ res, sends })),
    );
    if (record) {
      instance.on('response', (_client, _status, _bytes, responseTime) => {
        const end = performance.now();
        sends.push([end - responseTime, end]);
      });
    }
  });
}

await window(job.warmupSec, false);
process.stdout.write('measure-start\n');
const t0 = performance.now();
const { res, sends } = await window(job.durationSec, true);
const wall = (performance.now() - t0) / 1000;
process.stdout.write('measure-end\n');
sends.sort((a, b) => a[0] - b[0]);
const corrected = createHistogram();
let late = 0;
let early = 0;
const first = sends[0]?.[0] ?? 0;
sends.forEach(([sent, end], k) => {
  const due = first + (k * 1000) / job.rate;
  corrected.recordValue(Math.max(1, Math.round((end - due) * 1000)));
  if (sent - due > 2) late++;
  else if (due - sent > 2) early++;
});
const l = latencyOf(corrected);
process.stdout.write(
  `${JSON.stringify({ requests: sends.length, durationSec: job.durationSec, wallSec: wall, p50: l.p50, p99: l.p99, late, early, dropped: 0, errors: res.errors, ownP99: res.latency.p99 * 1000 })}\n`,
);
process.exit(0);
