import { readFileSync } from 'node:fs';
import { rankScenario, resultSchema, summarizePair, WindowIndex, type BenchResult, type EstimatorOptions } from '@benchsuite/sdk';
import { stacksFilesOf } from '../src/index.js';

const FIXTURE = new URL('./fixtures/result.json', import.meta.url);

/** A fresh, validated copy of the fixture (tests mutate their copy freely). */
export function loadFixture(): BenchResult {
  return resultSchema.parse(JSON.parse(readFileSync(FIXTURE, 'utf8')));
}

/** The fixture's collapsed stacks, read as the CLI reads them next to `results.json`: `ReportOptions.stacks`. */
export function loadStacks(r: BenchResult = loadFixture()): Record<string, string> {
  return Object.fromEntries(stacksFilesOf(r).map((f) => [f, readFileSync(new URL(`./fixtures/${f}`, import.meta.url), 'utf8')]));
}

/** The name in the fixture's node-http stacks that must come out escaped. */
export const MARKUP_FRAME = 'route<T & U>';

/** The run's estimator options, as the SDK used them for the fixture. */
export function estimatorOptions(r: BenchResult): EstimatorOptions {
  const d = r.design;
  return { reference: d.reference, precision: d.precision, practicalBand: d.practicalBand, bootstrapResamples: d.bootstrapResamples, confidence: d.confidence, seed: r.seed };
}

/** Summaries and rankings recomputed from the windows with the SDK's estimators. */
export function resummarize(r: BenchResult): BenchResult {
  const index = new WindowIndex(r.windows);
  r.summaries = r.summaries.map((s) =>
    summarizePair({ scenario: s.scenario, target: s.target, windows: r.windows, estimator: estimatorOptions(r), serverCpus: s.serverCpus, thresholds: r.design, index, blocks: r.blocks }),
  );
  r.rankings = r.rankings.map((k) => rankScenario(k.scenario, r.summaries, r.design.practicalBand));
  return r;
}

/** Multiply one pair's measured req/s (window and steps) by `factor`, as if the code had changed; summaries follow. */
export function scalePair(r: BenchResult, scenario: string, target: string, factor: number): BenchResult {
  for (const w of r.windows) {
    if (w.status !== 'ok' || w.scenario !== scenario || w.target !== target) continue;
    w.rps *= factor;
    for (const s of w.steps) s.rps *= factor;
  }
  return resummarize(r);
}

export const HOSTILE_NAME = `<script>alert(1)</script>"'&`;

/** The fixture with a target renamed to markup, and markup in metadata, failures, verify and the skip reason. */
export function hostileFixture(): BenchResult {
  const r = loadFixture();
  const from = 'express';
  const ren = (n: string) => (n === from ? HOSTILE_NAME : n);
  r.suite = 'frameworks & <friends>';
  for (const t of r.targets) {
    t.name = ren(t.name);
    t.metadata['<img src=x onerror=alert(2)>'] = `"quoted" & <b onclick="alert(3)">bold</b>`;
  }
  for (const s of r.summaries) s.target = ren(s.target);
  for (const b of r.blocks) for (const t of b.targets) t.target = ren(t.target);
  for (const w of r.windows) {
    w.target = ren(w.target);
    if (w.status === 'failed') {
      w.failure.message = `<script>alert(4)</script> & "crash"`;
      w.failure.stderrTail = `</pre><script>alert(5)</script>\n'single' & "double"`;
    }
  }
  for (const v of r.verify) {
    v.target = ren(v.target);
    if (!v.ok) {
      v.reason = `<iframe src="javascript:alert(6)">`;
      v.diff = `</details><script>alert(7)</script>`;
    }
  }
  for (const k of r.rankings) for (const p of k.places) p.targets = p.targets.map(ren);
  for (const p of r.profiles) {
    p.target = ren(p.target);
    if (p.status !== 'ok') p.reason = `<iframe src="javascript:alert(10)"> & more`;
    if (p.summary?.top[0]) p.summary.top[0].name = `<img src=x onerror=alert(11)> (/srv/a.js:1)`;
    if (p.summary?.byPackage[0]) p.summary.byPackage[0].name = `<b onclick="alert(12)">pkg</b>`;
  }
  const hb = r.targets.find((t) => t.status === 'skipped')!;
  hb.reason = `<svg onload=alert(8)> not found`;
  r.environment.driver.reason = '<b onclick="alert(9)">auto</b>';
  return resultSchema.parse(r);
}

/** Collapsed stacks for `hostileFixture()`'s profiles, with markup in frame names. */
export function hostileStacks(r: BenchResult = hostileFixture()): Record<string, string> {
  return Object.fromEntries(stacksFilesOf(r).map((f) => [f, `main (/srv/a.js:1);<img src=x onerror=alert(13)> (/srv/a.js:2) 70\nmain (/srv/a.js:1);</svg><script>alert(14)</script> 30\n`]));
}
