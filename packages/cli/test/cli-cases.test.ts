import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '@benchsuite/sdk';
import { ANSI, binary, fixture, inProcess, scratch, STACK } from './_helpers.js';

const config = fixture('benchsuite.config.ts');

/** A user mistake: exit 2, a message on stderr, nothing on stdout, no stack trace, no run header. */
function refused(r: { code: number | null; stdout: string; stderr: string }) {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr).not.toMatch(STACK);
  expect(r.stderr).not.toContain('benchsuite run: suite');
  expect(r.stderr.startsWith('benchsuite: ')).toBe(true);
}

/**
 * A config written for one test whose suite `marked` leaves a file in its folder for each thing a
 * run starts: `setup` (the target's setup hook ran), `service` (its helper process started),
 * `server` (its server process started; it exits at once, so no load is ever sent). `top` and
 * `suites` are spliced into the config to put a mistake in it. Plain ESM, no imports to resolve.
 */
function markedConfig(mistake: { top?: string; suites?: string } = {}) {
  const dir = scratch();
  const file = join(dir, 'benchsuite.config.mjs');
  const touch = (what: string) => `require('node:fs').writeFileSync(${JSON.stringify(join(dir, what))}, '')`;
  writeFileSync(
    file,
    `import { writeFileSync } from 'node:fs';
const node = ${JSON.stringify(process.execPath)};
export default {
  ${mistake.top ?? ''}
  suites: {
    marked: {
      scenarios: [{ name: 'ping', request: { path: '/ping' }, expect: { status: 200 } }],
      targets: [{
        kind: 'process', name: 'marked',
        setup: () => writeFileSync(${JSON.stringify(join(dir, 'setup'))}, ''),
        services: { helper: { command: [node, '-e', ${JSON.stringify(`${touch('service')}; console.log('listening on http://127.0.0.1:9'); setInterval(() => {}, 1000)`)}] } },
        command: [node, '-e', ${JSON.stringify(touch('server'))}],
      }],
    },
    ${mistake.suites ?? ''}
  },
  design: { windowSec: 0.3, rounds: { min: 2, max: 2 }, blocks: { min: 1, max: 1 }, budgetSec: 30 },
};
`,
  );
  const out = join(dir, 'out');
  return { file, out, started: () => ['setup', 'service', 'server'].filter((f) => existsSync(join(dir, f))) };
}

describe('what a config starts can be seen', () => {
  // The control for the tests below that find nothing started: the markers do show a start.
  it('the marked config without a mistake runs its setup hook and starts its service and its server', async () => {
    const c = markedConfig();
    const r = await inProcess(['run', '--config', c.file, '-s', 'marked', '-o', c.out, '--driver', 'autocannon', '--no-pin']);
    expect(c.started(), r.stderr).toEqual(['setup', 'service', 'server']);
    expect(r.code, r.stderr).toBe(1); // its server exits before listening: a failed target
  });
});

describe('the whole config is validated before anything is printed or started', () => {
  it.each([
    ['an unknown key', { top: 'trails: 7,' }, ['run', '-s', 'marked'], /trails: unknown key/],
    [
      'another suite without targets',
      { suites: "empty: { scenarios: [{ name: 'ping', request: { path: '/ping' }, expect: { status: 200 } }] }," },
      ['run', '-s', 'marked'],
      /suites\.empty\.targets: missing; a suite needs at least one target/,
    ],
    ['a value of the wrong type', { top: "seed: 'one'," }, ['run', '-s', 'marked'], /seed: Invalid input: expected number, received string/],
    ['a flag out of range', {}, ['run', '-s', 'marked', '--precision', '2'], /--precision: "2" would be 200%/],
    ['a stray argument', {}, ['run', 'marked', '-s', 'marked'], /unexpected argument "marked"/],
  ] as const)('%s: refused, and no setup hook, service or server was started', async (_, mistake, args, message) => {
    const c = markedConfig(mistake);
    const r = await inProcess([...args, '--config', c.file, '-o', c.out]);
    refused(r);
    expect(r.stderr).toMatch(message);
    expect(c.started()).toEqual([]);
    expect(existsSync(c.out)).toBe(false);
  });

  it('a suite with no targets: `targets: missing`, for run and for list', async () => {
    for (const cmd of ['run', 'list']) {
      const r = await inProcess([cmd, '--config', fixture('no-targets.config.ts')]);
      refused(r);
      expect(r.stderr).toContain('no-targets.config.ts has 1 problem:\n  targets: missing; a suite needs at least one target');
    }
  });

  it('`trails: 7`: unknown keys are listed, each named, never ignored', async () => {
    const r = await inProcess(['run', '--config', fixture('typo.config.ts')]);
    refused(r);
    expect(r.stderr).toContain('typo.config.ts has 2 problems:');
    expect(r.stderr).toContain('  trails: unknown key; expected one of: suite, suites, scenarios, targets, design');
    expect(r.stderr).toContain('  duration: unknown key; did you mean overrides.duration?');
  });

  it('unknown keys, wrong types and missing parts are all listed at once, each naming its field', async () => {
    const r = await inProcess(['run', '--config', fixture('many-mistakes.config.ts')]);
    refused(r);
    const lines = r.stderr.trim().split('\n');
    expect(lines[0]).toMatch(/many-mistakes\.config\.ts has 6 problems:$/);
    expect(lines.slice(1).map((l) => l.trim().split(':')[0])).toEqual([
      'trails',
      'suites.mine.scenarios[0].load.connections',
      'suites.mine.targets',
      'suites.other.targets[0].url',
      'design.precision',
      'driver',
    ]);
  });

  it('a syntax error keeps its file, line and column, with a code frame', async () => {
    // Written at test time: a broken file kept in the repository would trip every linter.
    const file = join(scratch(), 'benchsuite.config.ts');
    writeFileSync(file, ['// line 1', "import { defineConfig } from '@benchsuite/sdk';", '', 'export default defineConfig({', '  seed: 1,', "  driver: 'auto',,", '});', ''].join('\n'));
    const r = await inProcess(['run', '--config', file]);
    refused(r);
    expect(r.stderr).toContain(`${file}:6:18: syntax error: Unexpected token`);
    expect(r.stderr).toContain("> 6 |   driver: 'auto',,");
    expect(r.stderr).toMatch(/\n {4}\| {18}\^/);
  });

  it('a config that throws names the line it threw on', async () => {
    const dir = scratch();
    const file = join(dir, 'benchsuite.config.mjs');
    writeFileSync(file, 'const a = 1;\nexport default { seed: missingName };\n');
    const r = await inProcess(['list', '--config', file]);
    refused(r);
    expect(r.stderr).toContain(`${file}:2:`);
    expect(r.stderr).toContain('missingName is not defined');
  });
});

describe('flags', () => {
  it('`run gateway`: a stray positional is an error that says what was meant', async () => {
    const r = await inProcess(['run', 'gateway']);
    refused(r);
    expect(r.stderr).toBe('benchsuite: unexpected argument "gateway"; did you mean --suite gateway?\n');
  });

  it('`--duration 10s` and `500ms` are accepted; `10x` is refused, naming the flag', async () => {
    const plan = async (d: string) => JSON.parse((await inProcess(['run', '--config', config, '-s', 'tiny', '-n', '--json', '-o', scratch(), '--duration', d])).stdout);
    expect((await plan('10s')).overrides.duration).toBe(10);
    expect((await plan('500ms')).overrides.duration).toBe(0.5);
    expect((await plan('1.5')).overrides.duration).toBe(1.5);
    const bad = await inProcess(['run', '--duration', '10x']);
    refused(bad);
    expect(bad.stderr).toBe('benchsuite: --duration: expected a duration like 10s, 500ms, 2m or 1.5 (seconds), got "10x"\n');
  });

  it('short flags -s -c -d -w -o -n mean their long forms', async () => {
    const out = scratch();
    const r = await inProcess(['run', '--config', config, '-s', 'tiny', '-c', '7', '-d', '2s', '-w', '0.5', '-o', out, '-n', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const plan = JSON.parse(r.stdout);
    expect(plan).toMatchObject({ suite: 'tiny', overrides: { connections: 7, duration: 2, warmup: 0.5 }, outDir: out, scenarios: ['ping'], targets: ['tiny', 'tiny.twin'] });
  });

  it('design flags land in the design; defaults come from the SDK', async () => {
    const r = await inProcess([
      'run',
      '--config',
      config,
      '-s',
      'tiny',
      '-n',
      '--json',
      '-o',
      scratch(),
      '--precision',
      '1%',
      '--budget',
      '2m',
      '--rounds',
      '3',
      '--blocks',
      '2,4',
      '--steal-threshold',
      '0.2',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const d = JSON.parse(r.stdout).design;
    expect(d).toMatchObject({ precision: 0.01, budgetSec: 120, rounds: { min: 3, max: 3 }, blocks: { min: 2, max: 4 }, stealThreshold: 0.2 });
    const defaults = JSON.parse((await inProcess(['run', '-n', '--json', '-o', scratch()])).stdout).design;
    expect(defaults).toMatchObject({
      precision: DEFAULTS.precision,
      budgetSec: DEFAULTS.budgetSec,
      rounds: { max: DEFAULTS.rounds.max },
      blocks: { max: DEFAULTS.blocks.max },
      windowSec: DEFAULTS.windowSec,
    });
    // The budget planner may start the default suite with fewer rounds to fit its budget, never more.
    expect(defaults.rounds.min).toBeLessThanOrEqual(DEFAULTS.rounds.min);
  });

  it('--dry-run prints the plan and the driver with its reason, starting nothing', async () => {
    const c = markedConfig();
    const r = await inProcess(['run', '--config', c.file, '-s', 'marked', '-n', '-o', c.out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^suite {6}marked: 1 scenario × 1 target \+ an A\/A control \(/);
    expect(r.stdout).toMatch(/\ntargets {4}(.*, )?marked \(reference\)/);
    expect(r.stdout).toMatch(/\ndriver {5}(wrk|autocannon): \S/);
    expect(r.stdout).toContain('nothing was started (--dry-run)');
    // No setup hook, no service, no server (the same config starts all three without -n, above).
    expect(c.started()).toEqual([]);
    expect(existsSync(c.out)).toBe(false);
  });

  it('bad usage exits 2 naming what is wrong, every problem at once', async () => {
    for (const [args, msg] of [
      [['run', '--trials', '3'], /--trials: there are no trials any more: .* use --rounds MIN\[,MAX\], --blocks MIN\[,MAX\] or --precision PCT/],
      [['run', '--precison', '1%'], /unknown option --precison; did you mean --precision\?/],
      [['run', '--target', 'nginx', '--scenario', 'nope'], /--scenario: unknown "nope".*\n.*--target: unknown "nginx"; expected one of: node-http/],
      [['run', '--driver', 'gatling'], /--driver: expected one of auto, \w+, \w+, .*got "gatling"/],
      [['run', '--precision', '2'], /--precision: "2" would be 200%; write 2% or 0\.02/],
      [['run', '--reference', 'nope', '-n'], /--reference: "nope" is not a target of this suite/],
      [['frobnicate'], /unknown command "frobnicate"/],
      [['run', '--config', '/nonexistent.config.ts'], /--config: \/nonexistent\.config\.ts does not exist/],
      [['report'], /missing <results\.json>/],
      [['compare', 'a.json'], /missing <head\.json>/],
    ] as const) {
      const r = await inProcess([...args]);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(msg);
      expect(r.stderr).not.toMatch(STACK);
    }
  });

  it('--out on a folder that holds a run points to --resume instead of mixing two runs', async () => {
    const out = scratch();
    writeFileSync(join(out, 'run.json'), '{}');
    const r = await inProcess(['run', '--config', config, '-s', 'tiny', '-n', '-o', out]);
    refused(r);
    expect(r.stderr).toContain(`\`benchsuite run --resume ${out}\` continues it`);
  });

  it('--resume: a folder without a run, or that does not exist, is refused', async () => {
    const empty = scratch();
    const none = await inProcess(['run', '--resume', empty]);
    refused(none);
    expect(none.stderr).toContain(`--resume: ${empty} holds no run to resume (no run.json`);
    const missing = await inProcess(['run', '--resume', join(empty, 'nope')]);
    refused(missing);
    expect(missing.stderr).toContain(`--resume: ${join(empty, 'nope')} does not exist`);
    mkdirSync(empty, { recursive: true });
  });

  it('--resume: a run that warmed fresh processes one by one (a removed design) is refused, saying why', async () => {
    const out = scratch();
    const design = { reference: 'a', windowSec: 0.8, warmup: { minSec: 2, maxSec: 3, tolerance: 0.05 }, rounds: { min: 3, max: 20 }, blocks: { min: 2, max: 12 } };
    const plan = {
      suite: 'tiny',
      seed: 1,
      driver: 'wrk',
      scenarios: ['ping'],
      targets: ['a'],
      startedAt: '2026-11-25T10:00:00.000Z',
      options: { overrides: {}, verify: true, costs: false, profile: false, pinning: 'auto' },
    };
    const common = { precision: 0.02, budgetSec: 1080, stealThreshold: 0.1, practicalBand: 0.01, bootstrapResamples: 2000, confidence: 0.95, clientBoundBusy: 0.9 };
    writeFileSync(
      join(out, 'run.json'),
      JSON.stringify({ ...plan, design: { ...design, ...common, processes: 'shared', freshWarmup: 'one-by-one', carriedWarmupRounds: 1, carriedWarmupWindowSec: 0.5 } }),
    );
    const r = await inProcess(['run', '--config', config, '--resume', out]);
    refused(r);
    expect(r.stderr).toContain(`--resume: the run in ${out} recorded design.freshWarmup 'one-by-one', which this version cannot continue (removed: `);
  });
});

describe('help', () => {
  it('`run --help | cat`: on stdout, exit 0, no ANSI codes; shows `benchsuite run`, examples and exit codes', () => {
    const r = binary(['run', '--help']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).not.toMatch(ANSI);
    expect(r.stdout).toContain('Usage:\n  benchsuite run [options]');
    expect(r.stdout).toContain('Examples:\n  benchsuite run --quick');
    expect(r.stdout).toMatch(/Exit codes:\n {2}0 +done\n {2}1 +.*\n {2}2 +bad usage or config.*\n {2}99 +a threshold .*\n.*\n {2}130 +interrupted/);
    expect(r.stdout).toContain(`(default: benchsuite-results/<timestamp>_<suite>)`);
    expect(r.stdout).not.toContain('run [OPTIONS]');
  });

  it('help wins over other mistakes on the line, for every command', async () => {
    for (const cmd of ['run', 'report', 'compare', 'setup', 'list']) {
      const r = await inProcess([cmd, '--bogus', '-h']);
      expect(r.code, cmd).toBe(0);
      expect(r.stdout).toContain(`Usage:\n  benchsuite ${cmd}`);
      expect(r.stdout).toContain('Exit codes:');
      expect(r.stderr).toBe('');
    }
  });

  it('colour only on a terminal, and never with NO_COLOR set to any non-empty value', async () => {
    expect((await inProcess(['run', '--help'], { stdoutTTY: true, env: {} })).stdout).toMatch(ANSI);
    for (const value of ['1', '0', 'true', 'yes']) {
      expect((await inProcess(['run', '--help'], { stdoutTTY: true, env: { NO_COLOR: value } })).stdout, `NO_COLOR=${value}`).not.toMatch(ANSI);
    }
    expect((await inProcess(['run', '--help'], { stdoutTTY: true, env: { NO_COLOR: '' } })).stdout).toMatch(ANSI);
    expect((await inProcess(['--help'], { stdoutTTY: false })).stdout).not.toMatch(ANSI);
  });

  it('`benchsuite --help` lists the commands on stdout; no command at all is a usage error on stderr', async () => {
    const asked = await inProcess(['--help']);
    expect(asked.code).toBe(0);
    expect(asked.stdout).toMatch(/Commands:\n {2}run +run a suite/);
    expect(asked.stdout).toMatch(/\n {2}history check +judge a new run/);
    const none = await inProcess([]);
    expect(none.code).toBe(2);
    expect(none.stdout).toBe('');
    expect(none.stderr).toContain('Usage:');
  });
});

/** A plain file in a scratch folder. */
const scratchFile = () => {
  const f = join(scratch(), 'a-file');
  writeFileSync(f, '');
  return f;
};

describe('output folders that cannot be written', () => {
  it('--out under /proc, or below a file, exits 2 within a second, naming why, before anything starts', () => {
    for (const [out, why] of [
      ['/proc/x', '/proc is a kernel pseudo-filesystem'],
      [join(scratchFile(), 'sub'), 'is a file, not a folder'],
    ] as const) {
      const t0 = Date.now();
      const r = binary(['run', '--out', out], {}, 10_000);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`--out: cannot write results to ${out}: `);
      expect(r.stderr).toContain(why);
      expect(r.stderr).not.toMatch(STACK);
      expect(Date.now() - t0).toBeLessThan(5_000); // a second of work; the margin is for a loaded machine
    }
  });
});
