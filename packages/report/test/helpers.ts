import { readFileSync } from 'node:fs';
import { resultSchema, type BenchResult, type SampleStats } from '@benchsuite/sdk';

const FIXTURE = new URL('./fixtures/result.json', import.meta.url);

/** A fresh, validated copy of the fixture (tests mutate their copy freely). */
export function loadFixture(): BenchResult {
  return resultSchema.parse(JSON.parse(readFileSync(FIXTURE, 'utf8')));
}

/** Sample stats recomputed from values (CI with the t quantile for the given n, hand-tabulated). */
const T975: Record<number, number> = { 1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571 };
export function statsOf(values: number[]): SampleStats {
  const n = values.length;
  const mean = values.reduce((a, b) => a + b, 0) / n;
  if (n < 2) return { n, mean, sd: null, cov: null, ci95: null, values };
  const sd = Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1));
  const half = (T975[n - 1] ?? 2) * sd / Math.sqrt(n);
  return { n, mean, sd, cov: sd / mean, ci95: [mean - half, mean + half], values };
}

/** Replace the per-trial RPS (or p99) of one pair. */
export function setPair(r: BenchResult, scenario: string, target: string, metric: 'rps' | 'p99', values: number[]): BenchResult {
  const s = r.summaries.find((x) => x.scenario === scenario && x.target === target);
  if (!s) throw new Error(`no pair ${scenario}/${target}`);
  s[metric] = statsOf(values);
  return r;
}

export const HOSTILE_NAME = `<script>alert(1)</script>"'&`;

/** The fixture with a target renamed to markup, and markup in metadata, errors and stderr. */
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
  for (const t of r.trials) {
    t.target = ren(t.target);
    if (t.status === 'failed') {
      t.failure.message = `<script>alert(4)</script> & "crash"`;
      t.failure.stderrTail = `</pre><script>alert(5)</script>\n'single' & "double"`;
    }
  }
  for (const v of r.verify) {
    v.target = ren(v.target);
    if (!v.ok) { v.reason = `<iframe src="javascript:alert(6)">`; v.diff = `</details><script>alert(7)</script>`; }
  }
  for (const k of r.rankings) for (const p of k.places) p.targets = p.targets.map(ren);
  const hb = r.targets.find((t) => t.status === 'skipped')!;
  hb.reason = `<svg onload=alert(8)> not found`;
  return resultSchema.parse(r);
}
