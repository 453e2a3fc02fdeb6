/** Number and text formatting shared by the Markdown and HTML renderers. */

const nf0 = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const nf1 = new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });

export const DASH = '—';

/** Requests per second, grouped: `61,384`. */
export function fmtRps(x: number | null | undefined): string {
  return x == null || !Number.isFinite(x) ? DASH : nf0.format(x);
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
  while (Math.abs(v) >= 1024 && i < units.length - 1) { v /= 1024; i++; }
  return i === 0 ? `${v} B` : `${v.toFixed(1)} ${units[i]}`;
}

export function fmtSeconds(s: number | null | undefined): string {
  return s == null || !Number.isFinite(s) ? DASH : `${nf1.format(s)} s`;
}

export function fmtInt(x: number | null | undefined): string {
  return x == null || !Number.isFinite(x) ? DASH : nf0.format(x);
}

/** Wall time as `1 h 02 min`, `4 min 07 s` or `12.3 s`. */
export function fmtDuration(sec: number): string {
  if (!Number.isFinite(sec) || sec < 0) return DASH;
  if (sec < 60) return `${sec.toFixed(1)} s`;
  const m = Math.floor(sec / 60);
  const s = Math.round(sec - m * 60);
  if (m < 60) return `${m} min ${String(s).padStart(2, '0')} s`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`;
}

/** `2025-03-14 09:00:00 UTC` (reports must read the same wherever they are opened). */
export function fmtDate(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : `${d.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** Half-width of a 95% CI as `± 1,234` for RPS. */
export function ciHalf(ci: readonly [number, number] | null | undefined): number | null {
  return ci ? (ci[1] - ci[0]) / 2 : null;
}

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

/** Escape text for HTML element content and attribute values (both quote kinds). */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&quot;' : '&#39;'));
}

/**
 * Escape text for inline Markdown (including table cells): HTML is neutralised with entities so
 * renderers that allow raw HTML (GitHub does) show it as text; Markdown punctuation is
 * backslash-escaped; newlines collapse so a cell never breaks its table.
 */
export function escapeMarkdown(s: string): string {
  return s
    .replace(/[&<>]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;'))
    .replace(/[\\`*_[\]|~]/g, '\\$&')
    .replace(/\r?\n/g, ' ');
}
