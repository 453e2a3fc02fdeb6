import { parseThresholds } from '@benchsuite/sdk';
/**
 * Parsers for flag values. Each takes the raw text and returns the value, or throws a
 * `ValueError` saying what was expected; the argument parser prefixes the flag's name.
 */

/** A flag value that cannot be read; the message completes "--flag: …". */
export class ValueError extends Error {
  override name = 'ValueError';
}

const UNIT_SECONDS: Record<string, number> = { ms: 0.001, s: 1, m: 60, min: 60, h: 3600 };

/**
 * Seconds from `10s`, `500ms`, `1.5` (bare numbers are seconds), `20m`, `1h`, or `1m30s`.
 *
 * @example parseDuration('500ms') // 0.5
 */
export function parseDuration(raw: string, opts: { min?: number; exclusive?: boolean } = {}): number {
  const text = raw.trim().toLowerCase();
  let total = 0;
  let rest = text;
  if (/^\d+(\.\d+)?$|^\.\d+$/.test(text)) total = Number(text);
  else {
    if (!text) rest = 'x';
    while (rest) {
      const m = /^(\d+(?:\.\d+)?|\.\d+)(ms|s|min|m|h)/.exec(rest);
      if (!m) throw new ValueError(`expected a duration like 10s, 500ms, 2m or 1.5 (seconds), got "${raw}"`);
      total += Number(m[1]) * UNIT_SECONDS[m[2]!]!;
      rest = rest.slice(m[0].length);
    }
  }
  const min = opts.min ?? 0;
  if (opts.exclusive ? total <= min : total < min) throw new ValueError(`expected a duration ${opts.exclusive ? 'over' : 'of at least'} ${min} s, got "${raw}"`);
  return total;
}

/**
 * A fraction from `2%` or `0.02`. A bare number over 1 is refused rather than guessed:
 * `2` could mean 2% or 200%.
 */
export function parseFraction(raw: string, opts: { allowZero?: boolean } = {}): number {
  const text = raw.trim();
  const pct = text.endsWith('%');
  const n = Number(pct ? text.slice(0, -1) : text);
  if (!text || !Number.isFinite(n)) throw new ValueError(`expected a percentage like 2% or a fraction like 0.02, got "${raw}"`);
  const f = pct ? n / 100 : n;
  if (!pct && n > 1) throw new ValueError(`"${raw}" would be ${n * 100}%; write ${n}% or ${n / 100}`);
  if (f > 1 || f < 0 || (f === 0 && !opts.allowZero)) throw new ValueError(`expected a share ${opts.allowZero ? 'from 0%' : 'over 0%'} up to 100%, got "${raw}"`);
  return f;
}

/** A whole number, at least `min`. */
export function parseInteger(raw: string, opts: { min?: number } = {}): number {
  const text = raw.trim();
  const n = Number(text);
  if (!/^[-+]?\d+$/.test(text) || !Number.isSafeInteger(n)) throw new ValueError(`expected a whole number, got "${raw}"`);
  if (opts.min !== undefined && n < opts.min) throw new ValueError(`expected a whole number ≥ ${opts.min}, got "${raw}"`);
  return n;
}

/** `MIN[,MAX]` of whole numbers ≥ 1, e.g. `5` or `5,20`. */
export function parseRange(raw: string): { min: number; max?: number } {
  const parts = raw.split(',').map((p) => p.trim());
  if (parts.length > 2 || parts.some((p) => !/^\d+$/.test(p))) throw new ValueError(`expected MIN or MIN,MAX (whole numbers), got "${raw}"`);
  const [min, max] = parts.map(Number) as [number, number | undefined];
  if (min < 1) throw new ValueError(`MIN must be at least 1, got "${raw}"`);
  if (max !== undefined && max < min) throw new ValueError(`MAX must be at least MIN, got "${raw}"`);
  return max === undefined ? { min } : { min, max };
}

/** A comma list of names (`a,b`); empty items are refused. */
export function parseNames(raw: string): string[] {
  const names = raw.split(',').map((s) => s.trim());
  if (names.some((n) => !n)) throw new ValueError(`expected a comma list of names, got "${raw}"`);
  return names;
}

/** Connections: `50`, or a stepped list `10,50,100` measured one step after the other. */
export function parseConnections(raw: string): number | number[] {
  const steps = raw.split(',').map((p) => {
    try {
      return parseInteger(p, { min: 1 });
    } catch {
      throw new ValueError(`expected a whole number ≥ 1 or a list like 10,50,100, got "${raw}"`);
    }
  });
  return steps.length === 1 ? steps[0]! : steps;
}

/**
 * Seconds in the flags' own syntax (`18m`, `1m30s`, `0.3s`, `500ms`), the inverse of `parseDuration`:
 * for flag defaults, the plan a user can type back, and the progress clock. Sentences about results
 * use `@benchsuite/report`'s formatters.
 */
export function formatSeconds(sec: number): string {
  if (sec < 1 && sec > 0) return `${Number((sec * 1000).toFixed(1))}ms`;
  if (sec < 60) return `${Number(sec.toFixed(2))}s`;
  const s = Math.round(sec);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const r = s % 60;
  return `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${r ? `${r}s` : ''}` || '0s';
}

/** A share in the flags' own syntax, without trailing zeros (`2%`, `0.5%`), the inverse of `parseFraction`: for flag defaults. */
export function formatPercent(x: number): string {
  return `${Number((x * 100).toFixed(2))}%`;
}

/** A `--threshold` / `--slo` value: checked with the SDK's parser, kept as written (a list, so the flag repeats). */
export function parseThresholdFlag(raw: string): string[] {
  try {
    parseThresholds(raw);
  } catch (err) {
    throw new ValueError((err as Error).message);
  }
  return [raw];
}
