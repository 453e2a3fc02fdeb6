import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { runCommand } from 'citty';
import type { BenchResult } from '@benchsuite/sdk';
import { reportCommand } from '../src/commands/report.js';
import { compareCommand } from '../src/commands/compare.js';

const FIXTURE = fileURLToPath(new URL('../../report/test/fixtures/result.json', import.meta.url));
const BIN = fileURLToPath(new URL('../bin/benchsuite.js', import.meta.url));
const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'benchsuite-cli-report-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const load = (): BenchResult => JSON.parse(readFileSync(FIXTURE, 'utf8'));
function write(name: string, doc: unknown): string {
  const file = join(dir, name);
  writeFileSync(file, typeof doc === 'string' ? doc : JSON.stringify(doc));
  return file;
}
/** Set the per-trial RPS of one pair (mean/sd/CI recomputed roughly; compare reads the values). */
function withRps(r: BenchResult, scenario: string, target: string, values: number[]): BenchResult {
  const s = r.summaries.find((x) => x.scenario === scenario && x.target === target)!;
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const sd = Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / (values.length - 1));
  s.rps = { n: values.length, mean, sd, cov: sd / mean, ci95: [mean - 2.5 * sd, mean + 2.5 * sd], values };
  return r;
}

const base = write('base.json', load());
const regression = write('regression.json', withRps(load(), 'plaintext', 'fastify', [52000, 52400, 51800]));
const improvement = write('improvement.json', withRps(load(), 'plaintext', 'fastify', [70100, 70500, 69800]));
const noise = write('noise.json', withRps(load(), 'plaintext', 'fastify', [38000, 75000, 52000]));
const otherCpu = (() => { const r = load(); r.environment.cpuModel = 'Intel(R) Xeon(R) Platinum 8375C'; return write('other-cpu.json', r); })();
const invalid = (() => { const r = load() as unknown as { summaries: { rps: { mean: unknown } }[] }; r.summaries[1]!.rps.mean = 'fast'; return write('invalid.json', r); })();
const notJson = write('not-json.json', '{"schemaVersion": 1,');

interface Outcome { code: number; stdout: string; stderr: string }

/** In-process: the citty commands exactly as main.ts mounts them, stdout/stderr captured. */
async function inProcess(cmd: 'report' | 'compare', args: string[]): Promise<Outcome> {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((s) => { stdout += String(s); return true; });
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((s) => { stderr += String(s); return true; });
  const saved = process.exitCode;
  try {
    const { result } = await runCommand((cmd === 'report' ? reportCommand : compareCommand) as never, { rawArgs: args });
    return { code: result as number, stdout, stderr };
  } finally {
    out.mockRestore();
    err.mockRestore();
    process.exitCode = saved;
  }
}

/** The real binary, when the lead's main.ts has been built. */
function binary(cmd: 'report' | 'compare', args: string[]): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, cmd, ...args], { maxBuffer: 32 * 2 ** 20 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

/**
 * The binary runs only once the lead's main.ts is built and loads (`--version` exits 0); until then
 * the commands are exercised in-process, through the same citty argument parsing.
 */
const binaryWorks = existsSync(MAIN) && spawnSync(process.execPath, [BIN, '--version'], { encoding: 'utf8' }).status === 0;
const modes = [
  ['in-process (citty runCommand on the exported commands)', inProcess] as const,
  ...(binaryWorks ? [['binary (node packages/cli/bin/benchsuite.js)', binary] as const] : []),
];
if (!binaryWorks) console.warn('report-cli.test: packages/cli/dist/main.js missing or not loadable; testing the commands in-process only');

describe.each(modes)('%s', (_mode, run) => {
  describe('benchsuite compare', () => {
    it('exits 1 on a significant regression beyond the threshold, with a PR-comment table', async () => {
      const r = await run('compare', [base, regression, '--threshold', '5']);
      expect(r.code).toBe(1);
      expect(r.stdout).toContain('## benchsuite compare: ❌ 1 significant regression beyond 5%');
      expect(r.stdout).toMatch(/\| plaintext \| fastify \| 61,336 → 52,067 \| \*\*−15\.1% \[/);
    });

    it('exits 0 on an improvement', async () => {
      const r = await run('compare', [base, improvement]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('✅ improvement');
    });

    it('exits 0 on a large but noisy change', async () => {
      const r = await run('compare', [base, noise, '--threshold', '5']);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain('✅ no significant regression beyond 5%');
    });

    it('does not fail a regression smaller than a higher threshold', async () => {
      expect((await run('compare', [base, regression, '--threshold', '20'])).code).toBe(0);
    });

    it('refuses with exit 2 when the CPU model differs, and compares with --force', async () => {
      const refused = await run('compare', [base, otherCpu]);
      expect(refused.code).toBe(2);
      expect(refused.stdout).toBe('');
      expect(refused.stderr.trim().split('\n')).toHaveLength(1);
      expect(refused.stderr).toContain('refusing to compare: the environments differ (CPU model "AMD EPYC 7763 64-Core Processor" vs "Intel(R) Xeon(R) Platinum 8375C")');
      const forced = await run('compare', [base, otherCpu, '--force']);
      expect(forced.code).toBe(0);
      expect(forced.stdout).toContain('CPU model: AMD EPYC 7763 64-Core Processor → Intel(R) Xeon(R) Platinum 8375C **(blocking)**');
    });

    it('emits JSON and github-action-benchmark entries', async () => {
      const json = await run('compare', [base, regression, '--format', 'json']);
      expect(json.code).toBe(1);
      expect(JSON.parse(json.stdout)).toMatchObject({ threshold: 5, regressed: true, environment: { comparable: true } });
      const gab = await run('compare', [base, regression, '--format', 'github-action-benchmark']);
      expect(JSON.parse(gab.stdout)[1]).toMatchObject({ name: 'plaintext / fastify', unit: 'req/s', value: 52066.7 });
    });

    it('reports user errors on one line with exit 2 and no stack trace', async () => {
      const cases: [string[], string][] = [
        [[base, join(dir, 'missing.json')], `${join(dir, 'missing.json')}: no such file`],
        [[base, notJson], `${notJson}: not valid JSON`],
        [[base, invalid], `${invalid}: not a valid benchsuite result at summaries[1].rps.mean:`],
        [[base, base, '--threshold', 'lots'], '--threshold must be a non-negative number of percent'],
      ];
      for (const [args, message] of cases) {
        const r = await run('compare', args);
        expect(r.code).toBe(2);
        expect(r.stderr).toContain(message);
        expect(r.stderr.trim().split('\n')).toHaveLength(1);
        expect(r.stderr).not.toMatch(/\n\s+at /);
      }
    });
  });

  describe('benchsuite report', () => {
    it('prints Markdown to stdout by default', async () => {
      const r = await run('report', [base]);
      expect(r.code).toBe(0);
      expect(r.stdout.startsWith('# benchsuite — frameworks\n')).toBe(true);
    });

    it('writes HTML atomically to --out, leaving no temp file', async () => {
      const sub = mkdtempSync(join(dir, 'out-'));
      const out = join(sub, 'report.html');
      const r = await run('report', [base, '--format', 'html', '--out', out]);
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('');
      expect(readFileSync(out, 'utf8')).toMatch(/^<!doctype html>/);
      expect(readdirSync(sub)).toEqual(['report.html']);
    });

    it('infers HTML from an .html --out and emits github-action-benchmark JSON', async () => {
      const out = join(dir, 'inferred.html');
      expect((await run('report', [base, '-o', out])).code).toBe(0);
      expect(readFileSync(out, 'utf8')).toMatch(/^<!doctype html>/);
      const gab = await run('report', [base, '--format', 'github-action-benchmark', '--metric', 'p99']);
      expect(JSON.parse(gab.stdout)[0]).toMatchObject({ name: 'plaintext / node-http', unit: 'ms' });
    });

    it('exits 2 with the field path for an invalid document, and for an unwritable --out', async () => {
      const bad = await run('report', [invalid]);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/^benchsuite: .*invalid\.json: not a valid benchsuite result at summaries\[1\]\.rps\.mean: /);
      const unwritable = await run('report', [base, '--out', join(dir, 'no-such-dir', 'r.md')]);
      expect(unwritable.code).toBe(2);
      expect(unwritable.stderr).toContain('cannot write (ENOENT)');
    });
  });
});
