#!/usr/bin/env node
// Slow windows that steal does not explain, read from finished runs (a benchmark script, not a
// test; it starts nothing). For each results.json, over the measured single-step windows (the
// ramp's stepped windows mix connection counts and are left out):
// - the share of windows under 0.75 of the median req/s of the same target in the same block
//   (a "dip"), and the run's steal;
// - in dips and in the other windows, by depth: the server's CPU time per request and the
//   loader's, each ÷ the same (target, block)'s median, the share of its cores the server used,
//   and the steal (a dip with the server's core full, its CPU per request up and no steal is the
//   host running slow, or the server's own slow second: these figures cannot tell which);
// - how dips follow one another: the chance that the next window dips after a dip, against the
//   share of dips (windows more than 3 s apart are not counted as following).
//
// Usage: npm run bench:dips -- <results.json> [<results.json> ...]
import { median } from '@benchsuite/sdk';
import { readResult, resultFiles } from './_results.mjs';

const DIP = 0.75;
const FOLLOW_SEC = 3;
const BANDS = [
  [0, 0.6],
  [0.6, DIP],
  [DIP, 0.9],
  [0.9, 1.1],
  [1.1, Infinity],
];

const files = resultFiles('bench:dips');

const f2 = (x) => (x === undefined || Number.isNaN(x) ? '—' : x.toFixed(2));
const pctOf = (k, n) => `${n ? ((100 * k) / n).toFixed(1) : '0.0'}%`;

for (const file of files) {
  const r = readResult('bench:dips', file);
  const windows = (r.windows ?? []).filter((w) => w.status === 'ok' && !w.excluded && (w.steps?.length ?? 0) === 1 && w.requests > 0).sort((a, b) => a.index - b.index);
  const key = (w) => `${w.scenario}|${w.target}|${w.block}`;
  const groups = new Map();
  for (const w of windows) {
    if (!groups.has(key(w))) groups.set(key(w), []);
    groups.get(key(w)).push(w);
  }
  const medians = new Map(
    [...groups].map(([k, ws]) => [
      k,
      {
        rps: median(ws.map((w) => w.rps)),
        cpu: median(ws.map((w) => w.cpuPerRequestUs ?? Number.NaN).filter(Number.isFinite)),
        loader: median(ws.map((w) => w.resources.loaderCpuSeconds / w.requests)),
      },
    ]),
  );
  const rows = windows.map((w) => {
    const m = medians.get(key(w));
    return {
      depth: w.rps / m.rps,
      cpu: w.cpuPerRequestUs == null ? Number.NaN : w.cpuPerRequestUs / m.cpu,
      loader: w.resources.loaderCpuSeconds / w.requests / m.loader,
      share: w.resources.serverCoreShare,
      steal: w.resources.cpuSteal ?? 0,
      at: w.elapsedSec,
    };
  });
  const dips = rows.filter((x) => x.depth < DIP);
  let after = 0;
  let followed = 0;
  for (let i = 1; i < rows.length; i++) {
    if (rows[i].at - rows[i - 1].at > FOLLOW_SEC || rows[i - 1].depth >= DIP) continue;
    after++;
    if (rows[i].depth < DIP) followed++;
  }
  const overall = r.overall ?? {};
  console.log(`${file} (seed ${r.seed}, driver ${r.environment?.driver?.name ?? '?'})`);
  console.log(
    `  dips under ${DIP} of their (target, block) median req/s: ${dips.length} of ${rows.length} windows (${pctOf(dips.length, rows.length)}); steal ${((overall.meanSteal ?? 0) * 100).toFixed(2)}% on average, worst window ${((overall.maxSteal ?? 0) * 100).toFixed(1)}%`,
  );
  console.log(`  after a dip the next window dipped ${followed} of ${after} times (${pctOf(followed, after)}), against ${pctOf(dips.length, rows.length)} of all windows`);
  console.log('  req/s ÷ median | windows | server CPU/request ÷ median | loader CPU/request ÷ median | server core share (min, median) | steal (max)');
  for (const [lo, hi] of BANDS) {
    const xs = rows.filter((x) => x.depth >= lo && x.depth < hi);
    if (!xs.length) continue;
    const shares = xs.map((x) => x.share);
    console.log(
      `  ${lo}–${hi === Infinity ? '' : hi} | ${xs.length} | ${f2(median(xs.map((x) => x.cpu).filter(Number.isFinite)))} | ${f2(median(xs.map((x) => x.loader)))} | ${f2(Math.min(...shares))}, ${f2(median(shares))} | ${(Math.max(...xs.map((x) => x.steal)) * 100).toFixed(1)}%`,
    );
  }
}
