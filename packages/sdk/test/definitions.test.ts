import { describe, expect, it } from 'vitest';
import { BenchsuiteConfigError, runSuite, validateSuite } from '../src/index.js';
import { tiny } from './_helpers.js';

const ok = { name: 'ping', request: { path: '/ping' }, expect: { status: 200 } };

describe('definitions are validated before anything starts', () => {
  it('names the field of a bad scenario by its full path', () => {
    const bad = { name: 'third', request: { path: '/x' }, expect: { status: 200 }, load: { connections: 'many' } };
    expect(() => validateSuite({ scenarios: [ok, { ...ok, name: 'two' }, bad as never], targets: [tiny('t')] })).toThrowError(/scenarios\[2\]\.load\.connections: /);
  });

  it('lists every bad field at once, each with its path', () => {
    try {
      validateSuite({
        scenarios: [{ name: 'Bad Name', request: { path: 'no-slash' }, expect: { status: 200 } } as never],
        targets: [{ kind: 'process', name: 't', command: [] } as never],
        trials: 0,
      });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(BenchsuiteConfigError);
      const issues = (err as BenchsuiteConfigError).issues;
      expect(issues.some((i) => i.startsWith('trials: '))).toBe(true);
    }
    try {
      validateSuite({ scenarios: [{ name: 'Bad Name', request: { path: 'no-slash' }, expect: { status: 200 } } as never], targets: [{ kind: 'process', name: 't', command: [] } as never] });
      expect.unreachable();
    } catch (err) {
      const issues = (err as BenchsuiteConfigError).issues;
      expect(issues).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^scenarios\[0\]\.name: expected a kebab-case name/),
          expect.stringMatching(/^scenarios\[0\]\.request\.path: must start with "\/"/),
          expect.stringMatching(/^targets\[0\]\.command: /),
        ]),
      );
    }
  });

  it('requires exactly one of request / requests', () => {
    expect(() => validateSuite({ scenarios: [{ name: 'x', expect: { status: 200 } } as never], targets: [tiny('t')] })).toThrowError(/scenarios\[0\]\.request: give exactly one of "request" or "requests"/);
  });

  it('rejects duplicate names and an unknown target kind', () => {
    expect(() => validateSuite({ scenarios: [ok, ok], targets: [tiny('t')] })).toThrowError(/scenarios\[1\]\.name: duplicate name "ping"/);
    expect(() => validateSuite({ scenarios: [ok], targets: [{ kind: 'docker', name: 'x' } as never] })).toThrowError(/targets\[0\]\.kind: /);
  });

  it('applies command-line overrides to every load profile', () => {
    const { scenarios } = validateSuite({ scenarios: [ok, { ...ok, name: 'ramp', load: { connections: [1, 2] } }], targets: [tiny('t')], overrides: { duration: 3, warmup: 0.5 } });
    expect(scenarios.map((s) => [s.load.duration, s.load.warmup])).toEqual([[3, 0.5], [3, 0.5]]);
    expect(scenarios[1]!.load.connections).toEqual([1, 2]);
  });

  it('runSuite rejects before starting any process', async () => {
    await expect(runSuite({ scenarios: [{ ...ok, load: { duration: -1 } } as never], targets: [tiny('t')] })).rejects.toThrowError(/scenarios\[0\]\.load\.duration/);
  });
});
