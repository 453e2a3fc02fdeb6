/**
 * Flame graphs and "time by package" bars as inline SVG, from collapsed stacks
 * (`frame;frame;frame weight` lines, as the SDK stores them next to `results.json`).
 * Readable with JavaScript off: every frame is a rect with a `<title>` tooltip and, where it fits,
 * a truncated label. Every name passes through `escapeHtml`. The layout is deterministic (children
 * in name order, as flamegraph.pl does; colours from a hash of the name), and bounded: frames
 * narrower than `minWidth` pixels are merged, so a profile of any size gives a small SVG.
 */
import { escapeHtml } from './escape.js';
import { fmtPct } from './units.js';

/** Collapsed stacks: folded text, or `[stack, weight]` pairs such as the SDK's `CollapsedStacks` map. */
export type FlameInput = string | Iterable<readonly [stack: string, weight: number]>;

/** One drawn frame, in pixels. `merged` > 1 marks a frame that stands for that many narrow siblings. */
export interface FlameRect {
  name: string;
  depth: number;
  x: number;
  width: number;
  /** Weight under this frame (itself and everything it called). */
  value: number;
  merged?: number;
}

export interface FlameLayout {
  /** Total weight (the root frame's). */
  total: number;
  /** Deepest drawn depth (the root is 0). */
  maxDepth: number;
  width: number;
  /** Root first, then each level in order: a parent always comes before its children. */
  rects: FlameRect[];
}

export interface FlameLayoutOptions {
  /** Drawing width in px; default 960. */
  width?: number;
  /** Frames narrower than this (px) are merged with their narrow siblings and not descended into; default 1. */
  minWidth?: number;
  /** Name of the root frame; default `all`. */
  rootName?: string;
  /**
   * Stacks whose top frame is one of these are left out; default `['(idle)']`, V8's event loop
   * waiting, which the profile summary leaves out of every share too, so widths match its shares.
   */
  exclude?: readonly string[];
}

export interface FlameGraphOptions extends FlameLayoutOptions {
  /** Heading drawn above the graph (also the SVG's accessible name). */
  title?: string;
  /** What a weight counts, for tooltips: `samples` (default) or `us`. */
  unit?: 'samples' | 'us';
  /** Frame height, px; default 16. */
  frameHeight?: number;
  /** Fill for a frame; default a warm colour from a hash of its name. */
  color?: (name: string) => string;
}

interface Node {
  name: string;
  value: number;
  children: Map<string, Node>;
}

const FONT = 11;
/** Rough glyph width of the 11-px sans-serif used for labels: SVG cannot measure text before layout. */
const CHAR_W = FONT * 0.6;
const px = (x: number) => (Math.round(x * 100) / 100).toString();

/** XML 1.0 forbids most control characters even as entities; a lone surrogate cannot be encoded. */
const INVALID_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
/** Text or attribute value safe inside SVG in HTML and in standalone XML. */
export function escapeSvgText(s: string): string {
  return escapeHtml(s.replace(INVALID_XML, '\uFFFD'));
}

/** `name` cut to fit `width` px (by code point, so no surrogate pair or entity is split); '' when under 3 characters fit. */
function fitLabel(name: string, width: number): string {
  const room = Math.floor((width - 6) / CHAR_W);
  if (room < 3) return '';
  const chars = Array.from(name);
  return chars.length <= room ? name : `${chars.slice(0, room - 1).join('')}…`;
}

function entriesOf(input: FlameInput): Iterable<readonly [string, number]> {
  if (typeof input !== 'string') return input;
  const out: Array<[string, number]> = [];
  for (const raw of input.split('\n')) {
    const line = raw.trimEnd();
    const cut = line.lastIndexOf(' ');
    if (cut <= 0) continue;
    const w = Number(line.slice(cut + 1));
    if (Number.isFinite(w) && w > 0) out.push([line.slice(0, cut), w]);
  }
  return out;
}

function buildTree(input: FlameInput, rootName: string, exclude: readonly string[]): Node {
  const root: Node = { name: rootName, value: 0, children: new Map() };
  for (const [stack, weight] of entriesOf(input)) {
    if (!(weight > 0) || stack === '') continue;
    if (exclude.length > 0 && exclude.includes(stack.slice(stack.lastIndexOf(';') + 1))) continue;
    root.value += weight;
    let node = root;
    for (const frame of stack.split(';')) {
      let child = node.children.get(frame);
      if (!child) {
        child = { name: frame, value: 0, children: new Map() };
        node.children.set(frame, child);
      }
      child.value += weight;
      node = child;
    }
  }
  return root;
}

const byName = (a: Node, b: Node) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * Place every frame: x and width proportional to weight, children left to right in name order
 * from their parent's left edge (the rest of the parent's width is its self time). Children under
 * `minWidth` px are drawn as one merged frame at the right end of their siblings (a single narrow
 * child as itself), and nothing below them is drawn. Iterative, so deep stacks cannot overflow.
 */
export function flameLayout(input: FlameInput, options: FlameLayoutOptions = {}): FlameLayout {
  const width = options.width ?? 960;
  const minWidth = options.minWidth ?? 1;
  const root = buildTree(input, options.rootName ?? 'all', options.exclude ?? ['(idle)']);
  const rects: FlameRect[] = [];
  if (root.value <= 0) return { total: 0, maxDepth: 0, width, rects };
  const scale = width / root.value;
  let maxDepth = 0;
  // Breadth-first, so the output is ordered by depth, then left to right.
  let level: Array<{ node: Node; x: number }> = [{ node: root, x: 0 }];
  rects.push({ name: root.name, depth: 0, x: 0, width, value: root.value });
  for (let depth = 1; level.length > 0; depth++) {
    const next: Array<{ node: Node; x: number }> = [];
    for (const { node, x } of level) {
      let cx = x;
      const narrow: Node[] = [];
      for (const child of [...node.children.values()].sort(byName)) {
        const w = child.value * scale;
        if (w < minWidth) {
          narrow.push(child);
          continue;
        }
        rects.push({ name: child.name, depth, x: cx, width: w, value: child.value });
        next.push({ node: child, x: cx });
        cx += w;
        maxDepth = depth;
      }
      if (narrow.length > 0) {
        const value = narrow.reduce((a, c) => a + c.value, 0);
        const name = narrow.length === 1 ? narrow[0]!.name : `(${narrow.length} frames, each under ${minWidth}px)`;
        rects.push({ name, depth, x: cx, width: value * scale, value, ...(narrow.length > 1 ? { merged: narrow.length } : {}) });
        maxDepth = depth;
      }
    }
    level = next;
  }
  return { total: root.value, maxDepth, width, rects };
}

/** FNV-1a: a stable hash, so a frame keeps its colour across runs and reports. */
function hash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** flamegraph.pl's warm palette: reds to yellows, picked by the name's hash. */
function warmColor(name: string): string {
  const h = hash(name);
  const r = 205 + (h % 50);
  const g = Math.floor((((h >>> 8) % 1000) / 1000) * 230);
  const b = Math.floor((((h >>> 18) % 1000) / 1000) * 55);
  return `rgb(${r},${g},${b})`;
}

function formatShare(x: number): string {
  return fmtPct(x, x >= 0.1 ? 1 : 2);
}

function formatWeight(v: number, unit: 'samples' | 'us'): string {
  if (unit === 'us') return v >= 1000 ? `${(v / 1000).toFixed(1)} ms` : `${Math.round(v)} µs`;
  return `${Math.round(v).toLocaleString('en-US')} sample${v === 1 ? '' : 's'}`;
}

/**
 * A flame graph as one inline `<svg>`: the root at the bottom, callers below callees, widths
 * proportional to time. Hover a frame for its name and share (SVG `<title>`); no script needed.
 *
 * @example
 * flameGraphSvg('main;handle;burnCpuHot 90\nmain;handle 10\n', { title: 'fastify · baseline' })
 */
export function flameGraphSvg(input: FlameInput, options: FlameGraphOptions = {}): string {
  const layout = flameLayout(input, options);
  const fh = options.frameHeight ?? 16;
  const unit = options.unit ?? 'samples';
  const color = options.color ?? warmColor;
  const head = options.title ? 24 : 4;
  const height = head + (layout.maxDepth + 1) * fh + 4;
  const parts: string[] = [];
  if (options.title) parts.push(`<text class="flame-title" x="0" y="16" font-size="13" font-weight="600">${escapeSvgText(options.title)}</text>`);
  if (layout.rects.length === 0) parts.push(`<text x="0" y="${head + 12}">no samples</text>`);
  for (const r of layout.rects) {
    const y = head + (layout.maxDepth - r.depth) * fh;
    const share = layout.total > 0 ? r.value / layout.total : 0;
    const tip = `${r.name} — ${formatShare(share)} (${formatWeight(r.value, unit)})`;
    const label = fitLabel(r.name, r.width);
    const fill = r.merged ? '#d4d4d8' : r.depth === 0 ? '#e4e4e7' : color(r.name);
    parts.push(
      `<g${r.merged ? ' class="merged"' : ''}><title>${escapeSvgText(tip)}</title>` +
        `<rect x="${px(r.x)}" y="${y}" width="${px(r.width)}" height="${fh - 1}" rx="1.5" fill="${escapeSvgText(fill)}"/>` +
        (label ? `<text x="${px(r.x + 3)}" y="${y + fh - 5}">${escapeSvgText(label)}</text>` : '') +
        '</g>',
    );
  }
  const name = escapeSvgText(options.title ?? 'flame graph');
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" class="flame" width="${layout.width}" height="${height}" viewBox="0 0 ${layout.width} ${height}" ` +
    `role="img" aria-label="${name}" font-family="ui-monospace, SFMono-Regular, Menlo, monospace" font-size="${FONT}" fill="#111">` +
    `<title>${name}</title>${parts.join('')}</svg>`
  );
}

/** One bar of the "time by package" chart: a target's groups (as in a profile summary's `byPackage`). */
export interface PackageBarRow {
  label: string;
  groups: readonly { name: string; self: number }[];
}

export interface PackageBarsOptions {
  title?: string;
  /** Width in px; default 720. */
  width?: number;
  /** Groups with their own colour (the largest, by their biggest share in any row); the rest are `other`. Default 8. */
  maxGroups?: number;
}

const BAR_COLORS = ['#2563eb', '#d97706', '#059669', '#dc2626', '#7c3aed', '#0891b2', '#db2777', '#65a30d', '#475569', '#b45309', '#4f46e5', '#0d9488'];
const OTHER_COLOR = '#a1a1aa';

/**
 * Horizontal stacked bars, one per target, of self time by package (shares of busy CPU time):
 * the targets of one scenario side by side. Each segment has a tooltip; colours follow the
 * legend, the same group in the same colour on every bar.
 *
 * @example
 * packageBarsSvg([{ label: 'hono', groups: [{ name: 'runtime', self: 0.6 }, { name: 'hono', self: 0.3 }, { name: 'own', self: 0.1 }] }])
 */
export function packageBarsSvg(rows: readonly PackageBarRow[], options: PackageBarsOptions = {}): string {
  const width = options.width ?? 720;
  const maxGroups = options.maxGroups ?? 8;
  const peak = new Map<string, number>();
  for (const r of rows) for (const g of r.groups) peak.set(g.name, Math.max(peak.get(g.name) ?? 0, g.self));
  const kept = [...peak]
    .filter(([name, p]) => name !== 'other' && p > 0)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .slice(0, maxGroups)
    .map(([name]) => name);
  const colorOf = new Map(kept.map((name, i) => [name, BAR_COLORS[i % BAR_COLORS.length]!]));
  const hasOther = rows.some((r) => r.groups.some((g) => g.self > 0 && !colorOf.has(g.name)));
  const legendNames = hasOther ? [...kept, 'other'] : kept;

  const labelW = Math.min(220, Math.max(60, ...rows.map((r) => Array.from(r.label).length * 7 + 14)));
  const left = labelW;
  const barW = width - left - 8;
  const top = options.title ? 28 : 6;
  const barH = 20;
  const gap = 8;
  const parts: string[] = [];
  if (options.title) parts.push(`<text x="0" y="16" font-size="13" font-weight="600">${escapeSvgText(options.title)}</text>`);
  rows.forEach((row, i) => {
    const y = top + i * (barH + gap);
    parts.push(`<text x="${left - 8}" y="${y + barH / 2 + 4}" text-anchor="end">${escapeSvgText(row.label)}</text>`);
    const segs = kept.map((name) => ({ name, self: 0 }));
    let other = 0;
    for (const g of row.groups) {
      const at = kept.indexOf(g.name);
      if (at >= 0) segs[at]!.self += g.self;
      else other += g.self;
    }
    const all = [...segs, { name: 'other', self: other }].filter((s) => s.self > 0);
    let x = left;
    for (const s of all) {
      const w = s.self * barW;
      const fill = colorOf.get(s.name) ?? OTHER_COLOR;
      const text = w >= 34 ? `<text x="${px(x + w / 2)}" y="${y + barH / 2 + 4}" text-anchor="middle" fill="#fff">${Math.round(s.self * 100)}%</text>` : '';
      parts.push(
        `<g><title>${escapeSvgText(`${row.label} · ${s.name}: ${formatShare(s.self)} of CPU time`)}</title><rect x="${px(x)}" y="${y}" width="${px(w)}" height="${barH}" fill="${fill}"/>${text}</g>`,
      );
      x += w;
    }
  });
  // Legend, wrapped to the width.
  let lx = left;
  let ly = top + rows.length * (barH + gap) + 12;
  for (const name of legendNames) {
    const w = 18 + Array.from(name).length * 7 + 14;
    if (lx + w > width && lx > left) {
      lx = left;
      ly += 18;
    }
    parts.push(`<rect x="${lx}" y="${ly - 10}" width="12" height="12" rx="2" fill="${colorOf.get(name) ?? OTHER_COLOR}"/><text x="${lx + 17}" y="${ly}">${escapeSvgText(name)}</text>`);
    lx += w;
  }
  const height = ly + 10;
  const name = escapeSvgText(options.title ?? 'time by package');
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" class="package-bars" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" ` +
    `role="img" aria-label="${name}" font-family="system-ui, sans-serif" font-size="12" fill="#111"><title>${name}</title>${parts.join('')}</svg>`
  );
}

/**
 * A profile frame (`function (location)`, as the collapsed stacks name it) with a long file path cut
 * to its last `keep` segments: `handle (…/lib/route.js:12:5)`; `keep` 0 leaves the file name only.
 * Frames without a path location (`(program)`, `write (node:net:917)`, `sym (libc.so.6)`) are unchanged.
 */
export function shortFrame(name: string, keep = 3): string {
  if (!name.endsWith(')')) return name;
  // The '(' matching the final ')', so a path such as `/app (copy)/x.js` stays whole.
  let depth = 0;
  let open = -1;
  for (let i = name.length - 1; i > 0; i--) {
    if (name[i] === ')') depth++;
    else if (name[i] === '(' && --depth === 0) {
      open = i;
      break;
    }
  }
  if (open <= 0 || name[open - 1] !== ' ') return name;
  const location = name.slice(open + 1, -1);
  const segments = location.split('/');
  const room = Math.max(1, keep);
  if (!location.includes('/') || segments.length <= room + (location.startsWith('/') ? 1 : 0)) return name;
  return `${name.slice(0, open)}(${keep > 0 ? '…/' : ''}${segments.slice(-room).join('/')})`;
}
