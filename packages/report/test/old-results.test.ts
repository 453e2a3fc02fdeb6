// A result written by an earlier version of benchsuite renders the same report as before: each
// version-2 document under fixtures/v2 goes through `upgradeResult` and its Markdown, terminal and
// HTML reports are compared byte for byte with the goldens (first rendered by the code before
// version 3; see fixtures/render-goldens.ts), and with the reports of the same data written as v3.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RESULT_SCHEMA_VERSION, ResultVersionError, resultSchema, upgradeResult } from '@benchsuite/sdk';
import { oldResults, readOld, reports } from './fixtures/render-goldens.js';

const fixture = (p: string) => new URL(`./fixtures/${p}`, import.meta.url);
const json = (p: string) => JSON.parse(readFileSync(fixture(p), 'utf8'));

describe('a version-2 result, read through upgradeResult', () => {
  const olds = oldResults();

  it('are there: the fixtures of every shape the readers handled', () => {
    expect(olds.map((o) => o.name)).toEqual(expect.arrayContaining(['2026-11-23-early', '2026-11-24-synthetic']));
    for (const o of olds) expect(JSON.parse(readFileSync(o.file, 'utf8')).schemaVersion).toBe(2);
  });

  for (const { name, file } of olds) {
    it(`${name}: renders the same Markdown, terminal and HTML reports as the goldens`, () => {
      const got = reports(readOld(JSON.parse(readFileSync(file, 'utf8'))));
      for (const ext of ['md', 'txt', 'html'] as const) expect(got[ext], `${name}.${ext}`).toBe(readFileSync(fixture(`golden/${name}.${ext}`), 'utf8'));
    });
  }

  it('is the document the current code writes from the same data (the report fixture as v3), with the same reports', () => {
    const v3 = resultSchema.parse(json('v3/2026-11-24-synthetic.json'));
    const upgraded = readOld(json('v2/2026-11-24-synthetic.json'));
    expect(v3.schemaVersion).toBe(RESULT_SCHEMA_VERSION);
    expect(upgraded).toEqual(v3);
    expect(reports(v3)).toEqual(reports(upgraded));
  });
});

describe('upgradeResult', () => {
  it('leaves its input unchanged, and a current document as it is', () => {
    const v2 = json('v2/2026-11-23-early.json');
    const before = structuredClone(v2);
    const up = upgradeResult(v2) as { schemaVersion: number };
    expect(v2).toEqual(before);
    expect(up.schemaVersion).toBe(RESULT_SCHEMA_VERSION);
    const v3 = json('v3/2026-11-24-synthetic.json');
    expect(upgradeResult(v3)).toBe(v3);
  });

  it('names a version it cannot read', () => {
    expect(() => upgradeResult({ ...json('v2/2026-11-23-early.json'), schemaVersion: 1 })).toThrow(ResultVersionError);
    expect(() => upgradeResult({ schemaVersion: 1 })).toThrow(/schema version 1; this benchsuite reads versions 2 and 3/);
    expect(() => upgradeResult({ schemaVersion: 4 })).toThrow(/schema version 4, newer than this benchsuite reads/);
  });

  it('returns what is not a versioned document as it is, for the schema to reject', () => {
    for (const x of [null, 'text', [], { suite: 'x' }]) expect(upgradeResult(x)).toEqual(x);
    expect(resultSchema.safeParse(upgradeResult({ suite: 'x' })).success).toBe(false);
  });
});
