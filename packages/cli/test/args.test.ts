import { describe, expect, it } from 'vitest';
import { closest, defineCommand, parseArgs, renderFlagsMarkdown, renderHelp } from '../src/_cli.js';
import { UsageError } from '../src/_errors.js';
import { parseDuration, parseInteger, parseNames } from '../src/_values.js';

const cmd = defineCommand({
  name: 'demo',
  summary: 'a command for the parser tests',
  positionals: [{ name: 'file', help: 'a file', required: false }],
  flags: {
    duration: { type: 'value', short: 'd', value: 'S', parse: (r: string) => parseDuration(r), help: 'seconds', default: '1s' },
    seed: { type: 'value', value: 'N', parse: (r: string) => parseInteger(r), help: 'a seed' },
    target: { type: 'value', value: 'X,Y', parse: parseNames, repeatable: true, help: 'targets' },
    dryRun: { type: 'switch', short: 'n', help: 'plan only' },
    quiet: { type: 'switch', short: 'q', help: 'say less' },
    verify: { type: 'switch', negatable: true, help: 'skip verify' },
    trials: { type: 'removed', message: 'use --rounds' },
  },
  examples: [['benchsuite demo -n', 'plan only']],
  exitCodes: [[0, 'done']],
  strayHint: (a) => (a === 'gateway' ? 'did you mean --suite gateway?' : undefined),
  run: async () => 0,
});

const issues = (argv: string[]) => {
  try {
    parseArgs(cmd, argv);
  } catch (e) {
    if (e instanceof UsageError) return e.issues;
    throw e;
  }
  return [];
};

describe('parseArgs: conventional forms', () => {
  it('reads --flag value, --flag=value, -f value, -fvalue, and typed values', () => {
    for (const argv of [['--duration', '10s'], ['--duration=10s'], ['-d', '10s'], ['-d10s'], ['-d=10s']]) {
      expect(parseArgs(cmd, argv).flags.duration, argv.join(' ')).toBe(10);
    }
  });
  it('takes a negative number as a value, not as a flag', () => {
    expect(parseArgs(cmd, ['--seed', '-3']).flags.seed).toBe(-3);
  });
  it('adds up repeatable lists; the last wins otherwise', () => {
    const { flags } = parseArgs(cmd, ['--target', 'a,b', '--target', 'c', '-d', '1', '-d', '2']);
    expect(flags.target).toEqual(['a', 'b', 'c']);
    expect(flags.duration).toBe(2);
  });
  it('reads switches, bundled short switches and --no-NAME', () => {
    expect(parseArgs(cmd, ['-nq', '--no-verify']).flags).toEqual({ dryRun: true, quiet: true, verify: false });
    expect(parseArgs(cmd, ['--verify']).flags.verify).toBe(true);
  });
  it('keeps everything after -- as positionals', () => {
    expect(parseArgs(cmd, ['--', '-d']).positionals).toEqual(['-d']);
  });
});

describe('parseArgs: strict, every problem at once', () => {
  it('lists unknown flags (with a suggestion), bad values, missing values, removed flags and stray arguments together', () => {
    expect(issues(['--duraton', '3', '-d', '10x', '--seed', '--trials', '3', '-x', 'a.json', 'gateway', '--dry-run=yes', '--no-quiet'])).toEqual([
      'unknown option --duraton; did you mean --duration? (see `benchsuite demo --help`)',
      '-d/--duration: expected a duration like 10s, 500ms, 2m or 1.5 (seconds), got "10x"',
      '--seed needs a value (N)',
      '--trials: use --rounds',
      'unknown option -x (see `benchsuite demo --help`)',
      '--dry-run takes no value (got "--dry-run=yes")',
      'unknown option --no-quiet (see `benchsuite demo --help`)',
      'unexpected argument "gateway"; did you mean --suite gateway?',
    ]);
  });
  it('closest suggests only near misses', () => {
    expect(closest('precison', ['precision', 'budget'])).toBe('precision');
    expect(closest('trails', ['precision', 'budget'])).toBeUndefined();
  });
});

describe('text generated from the table', () => {
  it('help shows the command as `benchsuite demo`, every flag with its default, examples and exit codes; colour only when asked', () => {
    const plain = renderHelp(cmd, { color: false });
    expect(plain).toMatch(/^benchsuite demo — a command for the parser tests\n\nUsage:\n {2}benchsuite demo \[<file>\] \[options\]\n/);
    expect(plain).toMatch(/-d, --duration S +seconds \(default: 1s\)/);
    expect(plain).toMatch(/ {6}--no-verify +skip verify/);
    expect(plain).toContain('Examples:\n  benchsuite demo -n\n      plan only');
    expect(plain).toMatch(/Exit codes:\n {2}0 +done/);
    expect(plain).not.toContain('trials');
    expect(plain).not.toMatch(/\u001b/);
    expect(renderHelp(cmd, { color: true })).toContain('\u001b[1mUsage:\u001b[22m');
  });
  it('the README table has one row per visible flag, pipes and angle brackets escaped', () => {
    const md = renderFlagsMarkdown(cmd).split('\n');
    expect(md.slice(0, 2)).toEqual(['| flag | meaning |', '|---|---|']);
    expect(md).toContain('| `-d, --duration S` | seconds (default: 1s) |');
    expect(md).toHaveLength(2 + 6);
  });
});
