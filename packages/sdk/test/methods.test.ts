// The registry of ways of measuring a round (run/methods/index.ts): every method in it has its name
// everywhere a name is read and its sentences, and a name it lacks is read, not trusted. Pure: no
// process starts here.
import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../src/defaults.js';
import { designOptionsSchema } from '../src/design-options.js';
import { designSchema, forecastSchema, type BenchResult } from '../src/result-schema.js';
import { fallbackMethod, isMethodName, METHOD_NAMES, methods, methodSentences, UNRECORDED_METHOD } from '../src/run/methods/index.js';

// A result with no windows: enough for a Rounds line (a sliced one then has no slot length to say).
const noWindows = { windows: [] } as unknown as BenchResult;

describe('method registry', () => {
  it('the names are the registry: METHOD_NAMES holds every key once, and the options and a result accept each', () => {
    expect(METHOD_NAMES).toEqual(Object.keys(methods));
    expect(new Set(METHOD_NAMES).size).toBe(METHOD_NAMES.length);
    for (const name of METHOD_NAMES) {
      expect(isMethodName(name)).toBe(true);
      expect(designOptionsSchema.parse({ method: name }).method).toBe(name);
      expect(designSchema.shape.method.parse(name)).toBe(name);
    }
    expect(isMethodName(DEFAULTS.method)).toBe(true);
    expect(isMethodName(UNRECORDED_METHOD)).toBe(true);
    expect(() => designOptionsSchema.parse({ method: 'quantum' })).toThrow();
  });

  it('every method carries its sentences: help, design, forecast and side-by-side clauses, and a Rounds line', () => {
    for (const name of METHOD_NAMES) {
      const s = methods[name].sentences;
      for (const text of [s.help, s.design, s.forecast, s.sideBySide, s.rounds(noWindows)]) {
        expect(typeof text, name).toBe('string');
        expect(text.trim().length, name).toBeGreaterThan(0);
      }
      // What the reports read is the module's own.
      expect(methodSentences(name)).toBe(s);
    }
    // Two methods that say the same thing could not be told apart in a report.
    for (const key of ['help', 'design', 'forecast', 'sideBySide'] as const) {
      expect(new Set(METHOD_NAMES.map((n) => methods[n].sentences[key])).size, key).toBe(METHOD_NAMES.length);
    }
  });

  it('the fallback measures anything with any driver', () => {
    expect(fallbackMethod.runsOn({} as Parameters<typeof fallbackMethod.runsOn>[0])).toBe(true);
    expect(fallbackMethod.measures({ load: { openLoop: true, rate: 100, requests: 10 } } as unknown as Parameters<typeof fallbackMethod.measures>[0])).toBe(true);
  });

  it('a result without a method reads as one window after another; a name this version lacks is said as unknown, never as another method', () => {
    expect(methodSentences(undefined)).toBe(methods[UNRECORDED_METHOD].sentences);
    // The result layer keeps no list: a newer benchsuite's method still reads.
    expect(designSchema.shape.method.parse('quantum')).toBe('quantum');
    expect(forecastSchema.shape.method.parse('quantum')).toBe('quantum');
    for (const name of ['quantum', 'toString', '__proto__']) {
      expect(isMethodName(name), name).toBe(false);
      const s = methodSentences(name);
      for (const text of [s.design, s.forecast, s.sideBySide, s.rounds(noWindows)]) expect(text, name).toContain(name);
      for (const known of METHOD_NAMES) expect(s.design).not.toBe(methods[known].sentences.design);
    }
  });
});
