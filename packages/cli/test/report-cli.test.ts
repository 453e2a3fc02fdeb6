import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { BenchResult } from '@benchsuite/sdk';
// The report package's own fixture and its helper that rescales a pair with the SDK's estimators.
import { loadFixture, scalePair } from '../../report/test/helpers.js';
import { ANSI, binary, inProcess, STACK } from './_helpers.js';
import { scratch } from '@benchsuite/testkit';

const dir = scratch('benchsuite-cli-report');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, doc: unknown): string {
  const file = join(dir, name);
  writeFileSync(file, typeof doc === 'string' ? doc : JSON.stringify(doc));
  return file;
}

const base = write('base.json', loadFixture());
const regression = write('regression.json', scalePair(loadFixture(), 'baseline', 'fastify', 0.85));
const otherCpu = write(
  'other-cpu.json',
  (() => {
    const r: BenchResult = loadFixture();
    r.environment.cpuModel = 'Intel(R) Xeon(R) Platinum 8375C';
    return r;
  })(),
);
const invalid = write(
  'invalid.json',
  (() => {
    const r = loadFixture() as unknown as { summaries: { rps: { point: unknown } }[] };
    r.summaries[1]!.rps.point = 'fast';
    return r;
  })(),
);
const oldVersion = write('v1.json', { ...loadFixture(), schemaVersion: 1 });
const notJson = write('not-json.json', '{"schemaVersion": 2,');

describe('a version-2 result', () => {
  const fixture = (p: string) => new URL(`../../report/test/fixtures/${p}`, import.meta.url);
  const v2 = fileURLToPath(fixture('v2/2026-11-24-synthetic.json'));

  it('report renders it as it rendered before version 3 (the report package golden), and compare reads it beside a version-3 result of the same data', async () => {
    const md = await inProcess(['report', v2, '--format', 'md']);
    expect(md.code, md.stderr).toBe(0);
    expect(md.stdout).toBe(readFileSync(fixture('golden/2026-11-24-synthetic.md'), 'utf8'));
    const same = await inProcess(['compare', v2, fileURLToPath(fixture('v3/2026-11-24-synthetic.json'))]);
    expect(same.code, same.stderr).toBe(0);
  });
});

describe('benchsuite compare', () => {
  it("exits 1 on a regression beyond the threshold, with the report package's PR-comment table", async () => {
    const r = await inProcess(['compare', base, regression]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout.split('\n')[0]).toBe('## benchsuite compare: ❌ 1 regression beyond 5%');
  });

  it('exits 0 for the same result, and for a drop within a higher threshold', async () => {
    expect((await inProcess(['compare', base, base])).code).toBe(0);
    const lenient = await inProcess(['compare', base, regression, '--threshold', '30%']);
    expect(lenient.code, lenient.stdout).toBe(0);
  });

  it('refuses with exit 2 and one line when the CPU model differs, and compares with --force', async () => {
    const refused = await inProcess(['compare', base, otherCpu]);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe('');
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(/^benchsuite: refusing to compare: .*CPU model.*--force/);
    const forced = await inProcess(['compare', base, otherCpu, '--force']);
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain('Intel(R) Xeon(R) Platinum 8375C');
  });

  it('emits JSON and github-action-benchmark entries from the formats registry', async () => {
    const json = await inProcess(['compare', base, regression, '--format', 'json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ status: 'compared', thresholdPct: 5, regressed: true });
    const gab = await inProcess(['compare', base, regression, '--format', 'github-action-benchmark']);
    expect(Array.isArray(JSON.parse(gab.stdout))).toBe(true);
    const bad = await inProcess(['compare', base, base, '--format', 'html']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--format: expected one of md, json, github-action-benchmark, got "html"/);
  });

  it('reports user errors with exit 2, naming the file and field, without a stack trace', async () => {
    const cases: [string[], string][] = [
      [[base, join(dir, 'missing.json')], `${join(dir, 'missing.json')}: no such file`],
      [[base, notJson], `${notJson}: not valid JSON`],
      [[base, invalid], `${invalid}: not a valid benchsuite result:\n  summaries[1].rps.point: `],
      [[base, oldVersion], `${oldVersion}: a result of schema version 1; this benchsuite reads versions 2 and 3`],
      [[base, base, '--threshold', 'lots'], '--threshold: expected a non-negative number of percent'],
    ];
    for (const [args, message] of cases) {
      const r = await inProcess(['compare', ...args]);
      expect(r.code, message).toBe(2);
      expect(r.stderr).toContain(message);
      expect(r.stderr).not.toMatch(STACK);
    }
  });
});

describe('benchsuite report', () => {
  it('prints Markdown to stdout by default', async () => {
    const r = await inProcess(['report', base]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.startsWith('# benchsuite')).toBe(true);
  });

  it('writes HTML atomically to --out (inferred from .html), leaving no temp file', async () => {
    const sub = mkdtempSync(join(dir, 'out-'));
    const out = join(sub, 'report.html');
    const r = await inProcess(['report', base, '-o', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    expect(readFileSync(out, 'utf8')).toMatch(/^<!doctype html>/i);
    expect(readdirSync(sub)).toEqual(['report.html']);
  });

  it('renders the terminal summary without colour when piped, with colour on a terminal', async () => {
    const piped = binary(['report', base, '--format', 'terminal']);
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stdout).toContain('baseline');
    expect(piped.stdout).not.toMatch(ANSI);
    expect((await inProcess(['report', base, '--format', 'terminal'], { stdoutTTY: true })).stdout).toMatch(ANSI);
  });

  it('emits github-action-benchmark entries for a chosen metric', async () => {
    const r = await inProcess(['report', base, '--format', 'github-action-benchmark', '--metric', 'p99']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)[0]).toMatchObject({ unit: 'ms' });
    const bad = await inProcess(['report', base, '--metric', 'p42']);
    expect(bad.code).toBe(2);
  });

  it('exits 2 for an invalid document, an unknown reference and an unwritable --out', async () => {
    const bad = await inProcess(['report', invalid]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^benchsuite: .*invalid\.json: not a valid benchsuite result:\n {2}summaries\[1\]\.rps\.point: /);
    const ref = await inProcess(['report', base, '--reference', 'nope']);
    expect(ref.code).toBe(2);
    expect(ref.stderr).toContain('--reference: reference "nope" has no figures in this result');
    const unwritable = await inProcess(['report', base, '--out', join(base, 'r.md')]);
    expect(unwritable.code).toBe(2);
    expect(unwritable.stderr).toMatch(/base\.json\/r\.md: cannot write \(E(NOTDIR|EXIST)\)/);
  });
});
