// One plan: `benchsuite run` asks the SDK for the plan (`planSuiteRun`), prints it and hands it back
// to `runSuite`; it validates, plans and resolves nothing itself. Read from its source: the names it
// imports from the SDK.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const source = readFileSync(fileURLToPath(new URL('../src/commands/run.ts', import.meta.url)), 'utf8');

/** The names a module imports from `from`, type-only ones included (`type X` → `X`, `X as Y` → `X`). */
function importedNames(text: string, from: string): string[] {
  const quoted = from.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const blocks = [...text.matchAll(new RegExp(`import\\s+(?:type\\s+)?\\{([^}]*)\\}\\s+from\\s+'${quoted}'`, 'g'))];
  return blocks.flatMap((m) =>
    m[1]!
      .split(',')
      .map(
        (n) =>
          n
            .trim()
            .replace(/^type\s+/, '')
            .split(/\s+as\s+/)[0]!,
      )
      .filter(Boolean),
  );
}

const PLANNER_INTERNALS = ['validateSuite', 'planRun', 'resolveDriver', 'driverNeeds', 'FRESH_WARMUP', 'resolveReference', 'planBudget', 'capacitySettings', 'capacityDurationSec'];

describe("the run command's imports (one plan)", () => {
  const sdk = importedNames(source, '@benchsuite/sdk');

  it('reads its import list (the parser sees the SDK block)', () => {
    expect(sdk.length).toBeGreaterThan(5);
    expect(sdk).toContain('runSuite');
  });

  it('imports none of the planner or validator internals from the SDK', () => {
    expect(sdk.filter((n) => PLANNER_INTERNALS.includes(n))).toEqual([]);
  });

  it('asks the SDK for the plan and hands the same plan to the run', () => {
    expect(sdk).toContain('planSuiteRun');
    expect(source).toMatch(/runSuite\(p\.plan,/);
  });

  it('imports the SDK only by its package name (no path into its sources)', () => {
    expect(source).not.toMatch(/from '[^']*sdk\/src/);
  });
});
