import type { Estimate } from '@benchsuite/sdk';

/** Figures as text in their units (rates, ratios, µs and ms, percentages, bytes, durations, dates, CPU lists), shared by every renderer (Markdown, HTML, terminal). */

const nf0 = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

export const DASH = '—';

/** Narrow no-break space: the SI digit-group separator, so `[60 100, 62 000]` cannot be misread as four numbers. */
const GROUP = '\u202f';

/** Requests per second, digits grouped by a narrow space: `61 384`. */
export function fmtRps(x: number | null | undefined): string {
  return x == null || !Number.isFinite(x) ? DASH : nf0.format(x).replace(/,/g, GROUP);
}

/** A ratio to the reference: `0.758`. */
export function fmtRatio(x: number | null | undefined): string {
  return x == null || !Number.isFinite(x) ? DASH : x.toFixed(3);
}

/** Microseconds with three significant figures or more: `12.3`, `4.56`, `148`. */
export function fmtUs(x: number | null | undefined): string {
  if (x == null || !Number.isFinite(x)) return DASH;
  return Math.abs(x) >= 100 ? x.toFixed(0) : Math.abs(x) >= 10 ? x.toFixed(1) : x.toFixed(2);
}

/** A figure with its 95% interval: `0.758 [0.733, 0.779]`; the point alone when there is no interval. */
export function fmtEstimate(e: Estimate | null | undefined, f: (x: number) => string): string {
  if (!e) return DASH;
  return e.ci95 ? `${f(e.point)} [${f(e.ci95[0])}, ${f(e.ci95[1])}]` : f(e.point);
}

/** A relative half-width: 0.0142 → `±1.4%`. */
export function fmtHalfWidth(h: number | null | undefined): string {
  return h == null || !Number.isFinite(h) ? DASH : `±${(h * 100).toFixed(1)}%`;
}

/** A latency held in µs shown in ms with µs precision: `1.234 ms`. */
export function fmtMs(us: number | null | undefined): string {
  return us == null || !Number.isFinite(us) ? DASH : `${(us / 1000).toFixed(3)} ms`;
}

/** A fraction as a percentage: 0.0312 → `3.1%`. */
export function fmtPct(fraction: number | null | undefined, digits = 1): string {
  return fraction == null || !Number.isFinite(fraction) ? DASH : `${(fraction * 100).toFixed(digits)}%`;
}

/** A signed percentage (already ×100): `+4.2%`, `−3.0%`. */
export function fmtSignedPct(pct: number | null | undefined, digits = 1): string {
  if (pct == null || !Number.isFinite(pct)) return DASH;
  const s = Math.abs(pct).toFixed(digits);
  if (Number(s) === 0) return `±${s}%`;
  return `${pct < 0 ? '−' : '+'}${s}%`;
}

/** Bytes in binary units: `74.3 MiB`. */
export function fmtBytes(bytes: number | null | undefined): string {
  if (bytes == null || !Number.isFinite(bytes)) return DASH;
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = bytes;
  let i = 0;
  while (Math.abs(v) >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${v} B` : `${v.toFixed(1)} ${units[i]}`;
}

export function fmtInt(x: number | null | undefined): string {
  return x == null || !Number.isFinite(x) ? DASH : nf0.format(x).replace(/,/g, GROUP);
}

/** Wall time as `1 h 02 min`, `4 min 07 s` or `12.3 s`. */
export function fmtDuration(sec: number): string {
  if (!Number.isFinite(sec) || sec < 0) return DASH;
  if (sec < 59.95) return `${sec.toFixed(1)} s`;
  // Round once, to the unit shown, so 359.6 s reads `6 min 00 s`, never `5 min 60 s`.
  if (sec < 3599.5) {
    const whole = Math.round(sec);
    return `${Math.floor(whole / 60)} min ${String(whole % 60).padStart(2, '0')} s`;
  }
  const minutes = Math.round(sec / 60);
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
}

/** `2025-03-14 09:00:00 UTC` (reports must read the same wherever they are opened). */
export function fmtDate(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : `${d.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** `[2,3,4,5,7]` → `2-5,7`. */
export function cpuList(cpus: readonly number[]): string {
  if (cpus.length === 0) return 'none';
  const sorted = [...cpus].sort((a, b) => a - b);
  const parts: string[] = [];
  let start = sorted[0]!;
  let prev = start;
  for (const c of [...sorted.slice(1), Number.NaN]) {
    if (c === prev + 1) {
      prev = c;
      continue;
    }
    parts.push(start === prev ? String(start) : `${start}-${prev}`);
    start = c;
    prev = c;
  }
  return parts.join(',');
}

/** `s` unless n is 1. */
export const plural = (n: number, word: string, many = `${word}s`) => `${n} ${n === 1 ? word : many}`;

/** A metadata value as text: strings as they are, everything else as compact JSON. */
export function valueText(v: unknown): string {
  if (v === undefined) return DASH;
  if (typeof v === 'string') return v;
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}
