/**
 * Inline SVG charts, drawn here rather than in the browser so the report is readable with
 * JavaScript off and needs nothing from the network. Every label passes through `escapeHtml`.
 */
import { escapeHtml as esc } from './escape.js';

export const PALETTE = ['#2563eb', '#d97706', '#059669', '#dc2626', '#7c3aed', '#0891b2', '#db2777', '#65a30d', '#475569', '#b45309'];

const W = 560;
const FONT = 12;
const n = (x: number) => (Math.round(x * 10) / 10).toString();

/** Rough text width; SVG cannot measure before layout and this only sizes margins. */
const textWidth = (s: string, size = FONT) => s.length * size * 0.58;

function niceStep(span: number, target = 5): number {
  if (!(span > 0)) return 1;
  const raw = span / target;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const f = raw / mag;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10) * mag;
}

function linearTicks(max: number): { max: number; ticks: number[] } {
  const step = niceStep(max, 5);
  const top = Math.max(step, Math.ceil(max / step) * step);
  const ticks: number[] = [];
  for (let v = 0; v <= top + step / 2; v += step) ticks.push(Number(v.toPrecision(12)));
  return { max: top, ticks };
}

/** 1-2-5 ticks between lo and hi (both > 0). */
function logTicks(lo: number, hi: number): number[] {
  const out: number[] = [];
  for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) {
    for (const m of [1, 2, 5]) {
      const v = m * 10 ** e;
      if (v >= lo && v <= hi) out.push(Number(v.toPrecision(12)));
    }
  }
  return out;
}

function legend(series: { name: string; color: string }[], x0: number, y0: number, width: number): { svg: string; height: number } {
  let x = x0;
  let y = y0;
  const parts: string[] = [];
  for (const s of series) {
    const w = 18 + textWidth(s.name) + 16;
    if (x + w > x0 + width && x > x0) {
      x = x0;
      y += 18;
    }
    parts.push(`<rect x="${n(x)}" y="${n(y - 9)}" width="12" height="12" rx="2" fill="${s.color}"/><text x="${n(x + 17)}" y="${n(y + 1)}">${esc(s.name)}</text>`);
    x += w;
  }
  return { svg: `<g class="legend">${parts.join('')}</g>`, height: y - y0 + 18 };
}

interface BarRow {
  label: string;
  value: number | null;
  /** Whisker (e.g. 95% CI). */
  lo?: number | null;
  hi?: number | null;
  color: string;
  /** Short text after the label, e.g. a warning mark. */
  note?: string;
  /** Striped fill: the figure is a ceiling, not the server's (client-bound). */
  hatched?: boolean;
}

export interface BarChartOptions {
  title: string;
  rows: BarRow[];
  format: (v: number) => string;
  /** Axis tick labels; default `format`. */
  tickFormat?: (v: number) => string;
  /** Unit shown under the axis. */
  axisLabel: string;
  /** Dashed vertical marker, e.g. the reference target. */
  marker?: { value: number; label: string };
  width?: number;
}

/** Horizontal bars with optional CI whiskers. */
export function barChart(o: BarChartOptions): string {
  const width = o.width ?? W;
  const labelW = Math.min(200, Math.max(70, ...o.rows.map((r) => textWidth(r.label + (r.note ? ` ${r.note}` : '')) + 12)));
  const valueW = Math.max(60, ...o.rows.map((r) => (r.value == null ? 0 : textWidth(o.format(r.value)) + 14)));
  const left = labelW;
  const right = width - valueW - 8;
  const top = 34;
  const barH = 20;
  const gap = 10;
  const plotH = o.rows.length * (barH + gap);
  const maxV = Math.max(0, ...o.rows.flatMap((r) => [r.value ?? 0, r.hi ?? 0]), o.marker?.value ?? 0);
  const { max, ticks } = linearTicks(maxV || 1);
  const sx = (v: number) => left + (Math.max(0, v) / max) * (right - left);
  const height = top + plotH + 34;
  const parts: string[] = [];
  parts.push(`<text class="chart-title" x="0" y="16">${esc(o.title)}</text>`);
  for (const t of ticks) {
    parts.push(`<line class="grid" x1="${n(sx(t))}" x2="${n(sx(t))}" y1="${top - 4}" y2="${top + plotH}"/>`);
    parts.push(`<text class="tick" x="${n(sx(t))}" y="${top + plotH + 14}" text-anchor="middle">${esc((o.tickFormat ?? o.format)(t))}</text>`);
  }
  parts.push(`<text class="axis" x="${n((left + right) / 2)}" y="${top + plotH + 30}" text-anchor="middle">${esc(o.axisLabel)}</text>`);
  o.rows.forEach((r, i) => {
    const y = top + i * (barH + gap);
    parts.push(`<text class="label" x="${left - 8}" y="${n(y + barH / 2 + 4)}" text-anchor="end">${esc(r.label)}${r.note ? ` <tspan class="note">${esc(r.note)}</tspan>` : ''}</text>`);
    if (r.value == null) {
      parts.push(`<text class="tick" x="${left + 4}" y="${n(y + barH / 2 + 4)}">not measured</text>`);
      return;
    }
    const fill = r.hatched ? 'url(#hatch)' : r.color;
    parts.push(
      `<rect x="${left}" y="${y}" width="${n(Math.max(1, sx(r.value) - left))}" height="${barH}" rx="3" fill="${fill}" stroke="${r.color}" stroke-width="${r.hatched ? 1.5 : 0}"><title>${esc(`${r.label}: ${o.format(r.value)}`)}</title></rect>`,
    );
    if (r.lo != null && r.hi != null) {
      const cy = y + barH / 2;
      parts.push(`<path class="whisker" d="M${n(sx(r.lo))} ${n(cy)}H${n(sx(r.hi))}M${n(sx(r.lo))} ${n(cy - 6)}V${n(cy + 6)}M${n(sx(r.hi))} ${n(cy - 6)}V${n(cy + 6)}"/>`);
    }
    parts.push(`<text class="value" x="${n(Math.max(sx(r.value), r.hi != null ? sx(r.hi) : 0) + 6)}" y="${n(y + barH / 2 + 4)}">${esc(o.format(r.value))}</text>`);
  });
  if (o.marker) {
    const x = sx(o.marker.value);
    parts.push(`<line class="marker" x1="${n(x)}" x2="${n(x)}" y1="${top - 8}" y2="${top + plotH}"/><text class="tick" x="${n(x)}" y="${top - 11}" text-anchor="middle">${esc(o.marker.label)}</text>`);
  }
  return svgDoc(width, height, o.title, parts);
}

export interface LineSeries {
  name: string;
  color: string;
  /** `mark`: a ring around the point with this label (e.g. the best clean point, the knee). */
  points: { x: number; y: number; lo?: number | null; hi?: number | null; mark?: string }[];
}

export interface LineChartOptions {
  title: string;
  series: LineSeries[];
  xTicks: { x: number; label: string }[];
  xLabel: string;
  yLabel: string;
  yLog?: boolean;
  yFormat: (v: number) => string;
  /** Axis tick labels; default `yFormat`. */
  yTickFormat?: (v: number) => string;
  width?: number;
}

/** Lines with markers; log or linear y; x already transformed by the caller. */
export function lineChart(o: LineChartOptions): string {
  const width = o.width ?? W;
  const all = o.series.flatMap((s) => s.points.flatMap((p) => [p.y, p.lo ?? p.y, p.hi ?? p.y])).filter((v) => Number.isFinite(v));
  const xs = [...o.xTicks.map((t) => t.x), ...o.series.flatMap((s) => s.points.map((p) => p.x))];
  const xMin = Math.min(...xs);
  const xMax = Math.max(...xs);
  const lg = legend(o.series, 80, 36, width - 90);
  const top = 36 + lg.height + 6;
  const plotH = 240;
  const left = 80;
  const right = width - 16;
  let ticks: number[];
  let sy: (v: number) => number;
  if (o.yLog) {
    const pos = all.filter((v) => v > 0);
    const lo = pos.length ? Math.min(...pos) * 0.85 : 1;
    const hi = pos.length ? Math.max(...pos) * 1.15 : 10;
    ticks = logTicks(lo, hi);
    if (ticks.length < 2) ticks = [Number(lo.toPrecision(2)), Number(hi.toPrecision(2))];
    const l0 = Math.log10(lo);
    const l1 = Math.log10(hi);
    sy = (v) => top + plotH - ((Math.log10(Math.max(v, lo)) - l0) / (l1 - l0 || 1)) * plotH;
  } else {
    const lt = linearTicks(Math.max(0, ...all) || 1);
    ticks = lt.ticks;
    sy = (v) => top + plotH - (v / lt.max) * plotH;
  }
  const sx = (x: number) => left + ((x - xMin) / (xMax - xMin || 1)) * (right - left);
  const parts: string[] = [`<text class="chart-title" x="0" y="16">${esc(o.title)}</text>`, lg.svg];
  for (const t of ticks) {
    parts.push(
      `<line class="grid" x1="${left}" x2="${right}" y1="${n(sy(t))}" y2="${n(sy(t))}"/><text class="tick" x="${left - 6}" y="${n(sy(t) + 4)}" text-anchor="end">${esc((o.yTickFormat ?? o.yFormat)(t))}</text>`,
    );
  }
  for (const t of o.xTicks) {
    parts.push(
      `<line class="grid" x1="${n(sx(t.x))}" x2="${n(sx(t.x))}" y1="${top}" y2="${top + plotH}"/><text class="tick" x="${n(sx(t.x))}" y="${top + plotH + 15}" text-anchor="middle">${esc(t.label)}</text>`,
    );
  }
  parts.push(`<text class="axis" x="${n((left + right) / 2)}" y="${top + plotH + 32}" text-anchor="middle">${esc(o.xLabel)}</text>`);
  parts.push(`<text class="axis" transform="translate(14 ${n(top + plotH / 2)}) rotate(-90)" text-anchor="middle">${esc(o.yLabel)}</text>`);
  for (const s of o.series) {
    const pts = s.points.filter((p) => Number.isFinite(p.y));
    if (!pts.length) continue;
    parts.push(`<g class="series"><title>${esc(s.name)}</title>`);
    parts.push(`<path d="${pts.map((p, i) => `${i ? 'L' : 'M'}${n(sx(p.x))} ${n(sy(p.y))}`).join('')}" fill="none" stroke="${s.color}" stroke-width="2"/>`);
    for (const p of pts) {
      if (p.lo != null && p.hi != null) {
        parts.push(`<path d="M${n(sx(p.x))} ${n(sy(p.lo))}V${n(sy(p.hi))}M${n(sx(p.x) - 4)} ${n(sy(p.lo))}h8M${n(sx(p.x) - 4)} ${n(sy(p.hi))}h8" stroke="${s.color}" stroke-width="1.3"/>`);
      }
      parts.push(`<circle cx="${n(sx(p.x))}" cy="${n(sy(p.y))}" r="3.2" fill="${s.color}"><title>${esc(`${s.name}: ${o.yFormat(p.y)}`)}</title></circle>`);
      if (p.mark) {
        parts.push(
          `<circle class="mark" cx="${n(sx(p.x))}" cy="${n(sy(p.y))}" r="7" fill="none" stroke="${s.color}" stroke-width="1.5"><title>${esc(`${s.name}: ${p.mark}, ${o.yFormat(p.y)}`)}</title></circle>`,
        );
      }
    }
    parts.push('</g>');
  }
  return svgDoc(width, top + plotH + 42, o.title, parts);
}

function svgDoc(width: number, height: number, title: string, parts: string[]): string {
  return `<svg class="chart" viewBox="0 0 ${width} ${n(height)}" width="${width}" height="${n(height)}" role="img" aria-label="${esc(title)}">${parts.join('')}</svg>`;
}

/** Shared SVG definitions, emitted once per document (ids must be unique). */
export const SVG_DEFS =
  '<svg width="0" height="0" style="position:absolute" aria-hidden="true"><defs>' +
  '<pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#fde68a"/><line x1="0" y1="0" x2="0" y2="6" stroke="#d97706" stroke-width="3"/></pattern>' +
  '</defs></svg>';
