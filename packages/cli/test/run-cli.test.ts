import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';

const bin = fileURLToPath(new URL('../bin/benchsuite.js', import.meta.url));
const config = fileURLToPath(new URL('./fixtures/benchsuite.config.ts', import.meta.url));
const schemaFile = fileURLToPath(new URL('../../sdk/schema/result.schema.json', import.meta.url));
const scratch = () => mkdtempSync(join(tmpdir(), 'benchsuite-cli-'));

function cli(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function pidsWith(marker: string): number[] {
  return readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .filter((e) => {
      try {
        return readFileSync(`/proc/${e}/cmdline`, 'utf8').includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number);
}
function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((e) => /^\d+$/.test(e))
    .filter((e) => {
      try {
        const st = readFileSync(`/proc/${e}/stat`, 'utf8');
        return Number(st.slice(st.lastIndexOf(')') + 2).split(' ')[1]) === pid;
      } catch {
        return false;
      }
    })
    .map(Number);
}
const alive = (pid: number) => {
  try {
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};
async function until(cond: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (cond()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return cond();
}

describe('benchsuite run --json', () => {
  it('prints only the result on stdout, and it validates against the shipped JSON Schema', () => {
    const out = scratch();
    const r = cli(['run', '--config', config, '--suite', 'tiny', '--trials', '2', '--json', '--out', out, '--driver', 'autocannon']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    const doc = JSON.parse(r.stdout);
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    const validate = ajv.compile(JSON.parse(readFileSync(schemaFile, 'utf8')));
    expect(validate(doc), ajv.errorsText(validate.errors)).toBe(true);
    expect(doc.trials).toHaveLength(2);
    // The schema is strict enough to fail: a document missing a field does not validate.
    delete doc.environment.cpuModel;
    expect(validate(doc)).toBe(false);
    // Progress and the summary went to stderr, and the files were written.
    expect(r.stderr).toMatch(/overall: /);
    for (const f of ['results.json', 'report.md', 'report.html', 'trials.jsonl']) expect(existsSync(join(out, f)), f).toBe(true);
  });
});

describe('exit codes', () => {
  it('2 for bad usage, naming what is wrong, without a stack trace', () => {
    for (const [args, msg] of [
      [['run', '--trials', 'zero'], /--trials: expected a whole number/],
      [['run', '--target', 'nginx'], /--target: unknown "nginx"; expected one of: node-http/],
      [['run', '--driver', 'k6'], /--driver: expected auto, autocannon or wrk/],
      [['run', '--trails', '3'], /unknown option --trails/],
      [['frobnicate'], /unknown command "frobnicate"/],
      [['run', '--config', '/nonexistent.config.ts'], /does not exist/],
    ] as const) {
      const r = cli([...args]);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(msg);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  });
  it('1 when trials failed, with the failure explained', () => {
    const r = cli(['run', '--config', config, '--suite', 'broken', '--trials', '1', '--no-verify', '--out', scratch(), '--driver', 'autocannon']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/FAILED ping × crashy #1 \(crash\): server exited during the trial \(exit code 3\)/);
  });
});

describe('no server outlives the runner', () => {
  for (const signal of ['SIGINT', 'SIGKILL'] as const) {
    it(`after ${signal} of the runner, the server and its child are gone${signal === 'SIGINT' ? ', and finished trials are kept' : ''}`, async () => {
      const marker = `bs-orphan-${randomUUID()}`;
      const out = scratch();
      const runner = spawn(process.execPath, [bin, 'run', '--config', config, '--suite', 'orphans', '--out', out, '--driver', 'autocannon', '--no-verify'], {
        env: { ...process.env, BENCHSUITE_TEST_MARKER: marker },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      runner.stderr.on('data', (c) => (stderr += c));
      const exited = new Promise<number | null>((r) => runner.once('exit', (code) => r(code)));
      try {
        // Wait for the first trial to be recorded, then for the second trial's server (and its child).
        expect(await until(() => existsSync(join(out, 'trials.jsonl')), 30_000), stderr).toBe(true);
        let server = 0;
        let child = 0;
        expect(
          await until(() => {
            server = pidsWith(marker).find((p) => childrenOf(p).length > 0) ?? 0;
            child = server ? (childrenOf(server)[0] ?? 0) : 0;
            return server > 0 && child > 0;
          }, 15_000),
          stderr,
        ).toBe(true);
        runner.kill(signal);
        const code = await exited;
        expect(await until(() => !alive(server) && !alive(child), 5000), `server ${server} or child ${child} survived ${signal}`).toBe(true);
        expect(pidsWith(marker).filter(alive)).toEqual([]);
        if (signal === 'SIGINT') {
          expect(code).toBe(130);
          const kept = readFileSync(join(out, 'trials.jsonl'), 'utf8').trim().split('\n');
          const result = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8'));
          expect(result.interrupted).toBe(true);
          expect(result.trials.length).toBe(kept.length);
          expect(result.trials.length).toBeGreaterThanOrEqual(1);
        }
      } finally {
        runner.kill('SIGKILL');
      }
    });
  }
});
