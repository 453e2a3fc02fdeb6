#!/usr/bin/env node
// Benchmark of the estimators of completed streams per second (not a test; no server, no load):
// synthetic levels of closed-loop lanes, all opened at once, with stream lengths drawn from several
// distributions, measured by
//   window   streams that ended inside the level ÷ its seconds (results before the steady rates)
//   whole    per lane, whole streams from the end of its first to the end of its last inside the
//            level ÷ that span (streams started and ended inside the level), summed over lanes
//   steady   the SDK's `levelFigures`: from the time every lane had ended its first stream to the
//            level's end, each stream by the share of its length inside it
// each as its mean error against the true rate (lanes ÷ mean stream length) over the repetitions.
// Usage: node packages/sdk/bench/stream-rates.mjs [--lanes 50] [--seconds 5] [--reps 200] [--seed 1]
import { parseArgs } from 'node:util';
import { mulberry32 } from '../dist/random.js';
import { levelFigures } from '../dist/stream/measure.js';

const { values: args } = parseArgs({
  options: { lanes: { type: 'string', default: '50' }, seconds: { type: 'string', default: '5' }, reps: { type: 'string', default: '200' }, seed: { type: 'string', default: '1' } },
});
const lanes = Number(args.lanes);
const seconds = Number(args.seconds);
const reps = Number(args.reps);
const rand = mulberry32(Number(args.seed));
const gauss = () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
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
];

const endMs = seconds * 1000;
const pct = (x) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(2)}%`;
const rows = [];
for (const [name, mean, draw] of shapes) {
  const err = { window: 0, whole: 0, steady: 0 };
  for (let rep = 0; rep < reps; rep++) {
    const traces = [];
    for (let l = 0; l < lanes; l++) {
      const lane = [];
      for (let t = 0; t <= endMs; ) {
        const len = draw() * 1000;
        lane.push({ startedAt: t, headersAt: t, status: 200, reads: [{ at: t + len, events: 1, tokens: 1 }], tokens: 1, complete: true, endedAt: t + len, error: null, timedOut: false });
        t += len;
      }
      traces.push(lane);
    }
    const truth = lanes / mean;
    const f = levelFigures(traces, { streams: lanes, durationSec: seconds, start: 0, end: endMs });
    err.window += f.completed / seconds / truth - 1;
    let whole = 0;
    for (const lane of traces) {
      const ends = lane.filter((t) => t.endedAt <= endMs).map((t) => t.endedAt);
      if (ends.length >= 2) whole += (ends.length - 1) / ((ends[ends.length - 1] - ends[0]) / 1000);
    }
    err.whole += whole / truth - 1;
    err.steady += f.steady.completedPerSec / truth - 1;
  }
  rows.push(`| ${name} | ${pct(err.window / reps)} | ${pct(err.whole / reps)} | ${pct(err.steady / reps)} |`);
}
console.log(`Mean error of completed/s against lanes ÷ mean length: ${lanes} lanes opened at once, ${seconds}-s level, ${reps} repetitions, seed ${args.seed}\n`);
console.log('| stream lengths | window count | whole streams per lane | steady part, by share |');
console.log('|---|---|---|---|');
for (const r of rows) console.log(r);
