// Real runs of `benchsuite run` against the tiny test server, with tiny designs (see the fixture
// config). They put load on the machine: run this file under `flock /tmp/bs-load.lock`.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { BIN, binary, fixture, scratch, STACK } from './_helpers.js';

const config = fixture('benchsuite.config.ts');
const schemaFile = fileURLToPath(new URL('../../sdk/schema/result.schema.json', import.meta.url));

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
// The run appends to its journal while the test polls it: a line is whole once its newline is written.
const wholeLines = (text: string) => text.slice(0, text.lastIndexOf('\n') + 1);
const windowLines = (dir: string) =>
  wholeLines(readFileSync(join(dir, 'windows.jsonl'), 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { record: string; window?: { block: number; round: number; target: string; scenario: string } })
    .filter((l) => l.record === 'window')
    .map((l) => l.window!);

/** Start a run in the background; resolves its exit code. */
function start(args: string[], env: Record<string, string> = {}) {
  const runner = spawn(process.execPath, [BIN, 'run', ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  runner.stderr.on('data', (c) => (stderr += c));
  const exited = new Promise<number | null>((r) => runner.once('exit', (code) => r(code)));
  return { runner, exited, stderr: () => stderr };
}

describe('benchsuite run --json', () => {
  it('prints only the result on stdout, it validates against the shipped JSON Schema, and the header came first', () => {
    const out = scratch();
    const r = binary(['run', '--config', config, '-s', 'tiny', '--json', '-o', out, '--driver', 'autocannon', '--seed', '7']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    const doc = JSON.parse(r.stdout);
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    const validate = ajv.compile(JSON.parse(readFileSync(schemaFile, 'utf8')));
    expect(validate(doc), ajv.errorsText(validate.errors)).toBe(true);
    expect(doc).toMatchObject({ schemaVersion: 3, suite: 'tiny', seed: 7, design: { rounds: { min: 2, max: 2 }, blocks: { min: 1, max: 1 } } });
    // One target and its A/A control (a second process of it), one block of two rounds.
    expect(doc.windows.filter((w: { status: string }) => w.status === 'ok')).toHaveLength(4);
    expect(doc.control).toMatchObject({ reference: 'tiny', twin: 'tiny.twin' });
    // The schema is strict enough to fail: a document missing a field does not validate.
    delete doc.environment.cpuModel;
    expect(validate(doc)).toBe(false);
    // The header in a few short lines (the driver and why among them, said once), then progress; the summary from the report package; the files.
    const lines = r.stderr.split('\n');
    expect(lines.slice(0, 8)).toEqual([
      'benchsuite run',
      '  suite   tiny: 1 scenario × 1 target + an A/A control',
      '  targets tiny (reference), tiny.twin (A/A control)',
      expect.stringMatching(/^ {2}budget {2}1 min 00 s to bring every interval within ±\d+\.\d%; the minimum design takes about /),
      // autocannon has no slots: sequential windows, and 1 block cannot reach ±5% or ±2% at typical noise.
      // Said as the centre of its record's range (the priors alone read about half what runs reach), the model's figure after it.
      expect.stringMatching(
        /^ {2}expects about ±\d+\.\d% \(80% range from its record: ±\d+\.\d% to ±\d+\.\d%; the method's typical noise alone prices ±\d+\.\d%\) for a typical pair \(1 block × 2 rounds, sequential, typical VM noise\); ±\d+\.\d% or ±\d+\.\d% would need more blocks than allowed$/,
      ),
      expect.stringMatching(/^ {2}design {2}\S+ s windows, 2 rounds per block, 1 block of fresh processes/),
      expect.stringMatching(/^ {2}driver {2}autocannon: chosen with --driver/),
      expect.stringMatching(/^ {2}output {2}.* \(Ctrl-C stops after the current window; `benchsuite run --resume .*` continues it\)$/),
    ]);
    expect(r.stderr).not.toMatch(/\ndriver autocannon/);
    expect(r.stderr).toMatch(/\nping: block 1 \(tiny, tiny\.twin\) at \d+s of 1m\n/);
    expect(r.stderr).toMatch(/\n {2}block 1 round 2 tiny: [\d.]+k? req\/s/);
    expect(r.stderr).toMatch(/\nping: .* after 1 block, 2 rounds → stop: maximum blocks reached\n/);
    for (const f of ['results.json', 'report.md', 'report.html', 'windows.jsonl', 'run.json']) expect(existsSync(join(out, f)), f).toBe(true);
    expect(r.stderr).toContain(`results: ${join(out, 'results.json')}`);
    // The twin has no figures of its own by design: the summary and the report say its control, never "failed".
    expect(r.stderr).not.toMatch(/tiny\.twin: failed/);
    expect(readFileSync(join(out, 'report.md'), 'utf8')).not.toMatch(/tiny\.twin.*left out for CPU steal/);
  });
});

describe('run --history', () => {
  it('adds the finished run to the history file, once', () => {
    const dir = scratch();
    const db = join(dir, 'history.sqlite');
    const out = join(dir, 'run');
    const r = binary(['run', '--config', config, '-s', 'tiny', '-o', out, '--driver', 'autocannon', '--seed', '5', '--history', '--db', db]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/\nhistory: added as run #1 \(machine [0-9a-f]{12}\) in .*history\.sqlite\n/);
    expect(readFileSync(db).subarray(0, 15).toString('latin1')).toBe('SQLite format 3');
    // Its report says the machine's checks over the runs kept: the A/A coverage, this run's one interval or none yet.
    expect(readFileSync(join(out, 'report.md'), 'utf8')).toMatch(/\nA\/A control on this machine: (1 of 1 interval held 1|0 of 1 interval held 1|1 run had one, but no interval yet)/);
    const again = binary(['history', 'add', join(out, 'results.json'), '--db', db]);
    expect(again.stderr).toContain('already in the history as run #1');
  });
});

describe('exit codes of a run', () => {
  it('1 when a server fails, with the failure explained', () => {
    const r = binary(['run', '--config', config, '-s', 'broken', '--no-verify', '-o', scratch(), '--driver', 'autocannon']);
    expect(r.stderr).toMatch(/FAILED ping × crashy, block 1 round \d \(crash\): server exited .*\(exit code 3\)/);
    expect(r.stderr).not.toMatch(STACK);
    expect(r.code, r.stderr).toBe(1);
  });
});

describe('interrupting and resuming', () => {
  it('SIGINT stops after the current window, writes the result (exit 130) and says how to resume; --resume finishes it with every window once', async () => {
    const out = scratch();
    const run = start(['--config', config, '-s', 'tiny', '-o', out, '--driver', 'autocannon', '--no-verify', '--rounds', '20', '--seed', '11']);
    try {
      expect(await until(() => existsSync(join(out, 'windows.jsonl')) && windowLines(out).length >= 2, 60_000), run.stderr()).toBe(true);
      run.runner.kill('SIGINT');
      expect(await run.exited, run.stderr()).toBe(130);
    } finally {
      run.runner.kill('SIGKILL');
    }
    expect(run.stderr()).toContain('SIGINT: stopping after the current window');
    expect(run.stderr()).toContain(`interrupted: \`benchsuite run --resume ${out}\` continues it`);
    const partial = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8'));
    expect(partial.interrupted).toBe(true);
    expect(partial.windows.length).toBe(windowLines(out).length);
    expect(partial.windows.length).toBeLessThan(20);

    const resumed = binary(['run', '--config', config, '--resume', out]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`benchsuite run: resuming suite tiny in ${out}`);
    const done = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8'));
    expect(done).toMatchObject({ interrupted: false, resumed: true, seed: 11 });
    // Every window once: nothing that finished ran again, and each (block, round, target) appears once.
    type W = { block: number; round: number; target: string; startedAt: string };
    const keys = done.windows.map((w: W) => `${w.block}/${w.round}/${w.target}`);
    expect(new Set(keys).size).toBe(keys.length);
    const finished = new Set(done.windows.map((w: W) => `${w.startedAt}/${w.target}`));
    for (const w of partial.windows as W[]) expect(finished.has(`${w.startedAt}/${w.target}`), `${w.block}/${w.round} ran again or was lost`).toBe(true);
    expect(done.windows.length).toBeGreaterThanOrEqual(20);
    const again = binary(['run', '--resume', out, '--config', config]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('finished; there is nothing to resume');
  });
});

describe('a resumed run keeps its plan', () => {
  it('-c 3, --no-verify, --no-pin, --costs, --quick and --processes shared hold after --resume (in the windows and the result); a contradicting flag exits 2', async () => {
    const out = scratch();
    const run = start([
      '--config',
      config,
      '-s',
      'tiny',
      '-o',
      out,
      '--driver',
      'autocannon',
      '-c',
      '3',
      '--no-verify',
      '--no-pin',
      '--costs',
      '--quick',
      '--rounds',
      '12',
      '--processes',
      'shared',
      '--seed',
      '5',
    ]);
    try {
      expect(await until(() => existsSync(join(out, 'windows.jsonl')) && windowLines(out).length >= 2, 90_000), run.stderr()).toBe(true);
      run.runner.kill('SIGINT');
      expect(await run.exited, run.stderr()).toBe(130);
    } finally {
      run.runner.kill('SIGKILL');
    }
    const before = windowLines(out).length;
    const contradicting = binary(['run', '--config', config, '--resume', out, '-c', '7', '--verify', '--processes', 'per-scenario']);
    expect(contradicting.code).toBe(2);
    expect(contradicting.stderr).toContain("--resume: --connections contradicts the run's plan (3)");
    expect(contradicting.stderr).toContain("--resume: --verify contradicts the run's plan (off)");
    expect(contradicting.stderr).toContain("--resume: --processes contradicts the run's plan (shared)");
    const agreeing = binary(['run', '--config', config, '--resume', out, '-c', '3', '--no-pin']);
    expect(agreeing.code, agreeing.stderr).toBe(0);
    expect(agreeing.stderr).toMatch(/resume: replaying \d+ windows/);
    const done = JSON.parse(readFileSync(join(out, 'results.json'), 'utf8'));
    expect(done).toMatchObject({ interrupted: false, resumed: true, seed: 5 });
    const ok = done.windows.filter((w: { status: string }) => w.status === 'ok');
    expect(ok.length).toBeGreaterThan(before);
    for (const w of ok) {
      expect(w.steps.map((s: { connections: number }) => s.connections)).toEqual([3]);
      expect(w.durationSec).toBeLessThan(0.35); // --quick's 0.2-s windows, not the scenario's 0.4 s
    }
    expect(done.verify).toEqual([]);
    expect(done.environment.pinning.enabled).toBe(false);
    expect(done.targets[0].costs?.startupMs).toBeDefined();
    expect(done.design).toMatchObject({ rounds: { min: 12 }, blocks: { min: 1, max: 1 }, processes: 'shared' });
  });
});

describe('no server outlives the runner', () => {
  for (const signal of ['SIGINT', 'SIGKILL'] as const) {
    it(`after ${signal} of the runner, the server and its child are gone`, async () => {
      const marker = `bs-orphan-${randomUUID()}`;
      const out = scratch();
      const run = start(['--config', config, '-s', 'orphans', '-o', out, '--driver', 'autocannon', '--no-verify', '--rounds', '40'], { BENCHSUITE_TEST_MARKER: marker });
      try {
        let server = 0;
        let child = 0;
        expect(
          await until(() => {
            server = pidsWith(marker).find((p) => childrenOf(p).length > 0) ?? 0;
            child = server ? (childrenOf(server)[0] ?? 0) : 0;
            return server > 0 && child > 0;
          }, 30_000),
          run.stderr(),
        ).toBe(true);
        run.runner.kill(signal);
        const code = await run.exited;
        expect(await until(() => !alive(server) && !alive(child), 5000), `server ${server} or child ${child} survived ${signal}`).toBe(true);
        // Every other process of the run (the A/A twin's server too) within the same grace: the
        // reaper sends TERM, then KILL a second later. Read at once, a loaded CI host found the
        // twin's tree still exiting ([6729, 6751], 2026-11-29).
        expect(await until(() => pidsWith(marker).filter(alive).length === 0, 5000), `survived ${signal}: ${pidsWith(marker).filter(alive).join(', ')}`).toBe(true);
        if (signal === 'SIGINT') expect(code).toBe(130);
      } finally {
        run.runner.kill('SIGKILL');
      }
    });
  }
});
