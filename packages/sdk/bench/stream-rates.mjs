#!/usr/bin/env node
// Benchmark of the estimators of completed streams per second (not a test; no server, no load):
// synthetic levels of closed-loop lanes, all opened at once, with stream lengths drawn from several
// distributions, measured by
//   window   streams that ended inside the level ÷ its seconds, the level starting with the lanes
//            (results before the steady rates)
//   whole    per lane, whole streams inside the loader's window (from the time every lane had ended
//            its first stream, for the level's seconds) ÷ the time from its first end to its last
//            inside the window (streams started and ended inside it), summed over lanes
//   share from the start   each stream by the share of its length inside the level's seconds from
//            the lanes' start (no cold start apart)
//   steady   the SDK's `levelFigures` over the loader's window: each stream by the share of its
//            length inside it
// each as its mean error against the true rate (lanes ÷ mean stream length) over the repetitions.
// Usage: node packages/sdk/bench/stream-rates.mjs [--lanes 50] [--seconds 5] [--reps 200] [--seed 1]
import { benchArgs } from '../../../scripts/bench-args.mjs';
import { mulberry32, normalDraw } from '../dist/random.js';
import { levelFigures } from '../dist/stream/measure.js';

const { values: args } = benchArgs(import.meta.url, {
  options: { lanes: { type: 'string', default: '50' }, seconds: { type: 'string', default: '5' }, reps: { type: 'string', default: '200' }, seed: { type: 'string', default: '1' } },
});
const lanes = Number(args.lanes);
const seconds = Number(args.seconds);
const reps = Number(args.reps);
const rand = mulberry32(Number(args.seed));
const gauss = () => normalDraw(rand);
/** A lognormal length of mean `mean` (s) and coefficient of variation `cv`. */
const lognormal = (mean, cv) => {
  const s = Math.sqrt(Math.log(1 + cv * cv));
  return () => mean * Math.exp(s * gauss() - (s * s) / 2);
};
const shapes = [
  ['fixed 0.25 s', 0.25, () => 0.25],
  ['fixed 0.3 s', 0.3, () => 0.3],
  ['uniform 0.1–0.4 s', 0.25, () => 0.1 + 0.3 * rand()],
  ['lognormal 0.25 s, CV 0.1', 0.25, lognormal(0.25, 0.1)],
  ['lognormal 0.25 s, CV 0.5', 0.25, lognormal(0.25, 0.5)],
  ['exponential 0.25 s', 0.25, () => -0.25 * Math.log(1 - rand())],
  ['lognormal 1 s, CV 0.3', 1, lognormal(1, 0.3)],
  // The lanes' first streams queued behind one another (lane i's first lasts (i + 1) ÷ lanes s,
  // as a server that takes the burst one by one), then 1 s each.
  ['1 s, a queue at the start', 1, () => 1, (i) => (i + 1) / lanes],
];

const levelMs = seconds * 1000;
const pct = (x) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(2)}%`;
const stream = (t, len) => ({ startedAt: t, headersAt: t, status: 200, reads: [{ at: t + len, events: 1, tokens: 1 }], tokens: 1, complete: true, endedAt: t + len, error: null, timedOut: false });
const rows = [];
for (const [name, mean, draw, first = draw] of shapes) {
  const err = { window: 0, whole: 0, fromStart: 0, steady: 0 };
  for (let rep = 0; rep < reps; rep++) {
    // Each lane's first stream, then its next ones back to back until the later of both ends.
    const traces = Array.from({ length: lanes }, (_, i) => [stream(0, first(i) * 1000)]);
    const start = Math.max(...traces.map((l) => l[0].endedAt));
    const end = start + levelMs;
    for (const lane of traces) {
      for (let t = lane[0].endedAt; t <= Math.max(end, levelMs); ) {
        const len = draw() * 1000;
        lane.push(stream(t, len));
        t += len;
      }
    }
    const truth = lanes / mean;
    let window = 0;
    let whole = 0;
    for (const lane of traces) {
      window += lane.filter((t) => t.endedAt <= levelMs).length;
      const ends = lane.filter((t) => t.endedAt >= start && t.endedAt <= end).map((t) => t.endedAt);
      if (ends.length >= 2) whole += (ends.length - 1) / ((ends[ends.length - 1] - ends[0]) / 1000);
    }
    err.window += window / seconds / truth - 1;
    err.whole += whole / truth - 1;
    err.fromStart += levelFigures(traces, { streams: lanes, durationSec: seconds, start: 0, end: levelMs }).steady.completedPerSec / truth - 1;
    err.steady += levelFigures(traces, { streams: lanes, durationSec: seconds, start, end }).steady.completedPerSec / truth - 1;
  }
  rows.push(`| ${name} | ${pct(err.window / reps)} | ${pct(err.whole / reps)} | ${pct(err.fromStart / reps)} | ${pct(err.steady / reps)} |`);
}
console.log(`Mean error of completed/s against lanes ÷ mean length: ${lanes} lanes opened at once, ${seconds}-s level, ${reps} repetitions, seed ${args.seed}\n`);
console.log('| stream lengths | window count | whole streams per lane | by share, from the start | by share, after the cold start |');
console.log('|---|---|---|---|---|');
for (const r of rows) console.log(r);
