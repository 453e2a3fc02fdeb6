import { readFileSync } from 'node:fs';

/** One route of contract C; `{id}` marks a path parameter (one non-empty segment). */
export interface ContractCRoute {
  id: 'healthz' | 'hello' | 'root' | 'json' | 'item' | 'large' | 'page';
  path: string;
  /** Methods answered; `Allow` on a 405 is `methods.join(', ')`. */
  methods: string[];
}

/** A load scenario as stored in the JSON file (`kind` says which content type it answers). */
interface ContractCScenario {
  name: string;
  description: string;
  path: string;
  kind: 'json' | 'html';
  connections: number;
}

/** One row of `/api/large` and `/page`. */
export interface ContractCItem {
  id: number;
  name: string;
  price: number;
  tags: string[];
}

/** The machine-readable contract C (`packages/servers/contract/contract-c.json`). */
export interface ContractC {
  contract: 'C';
  version: number;
  description: string;
  env: { port: string; workers: string; path: string };
  contentTypes: { json: string; html: string };
  comparedHeaders: string[];
  errors: { not_found: number; method_not_allowed: number };
  routes: ContractCRoute[];
  bodies: { healthz: unknown; hello: unknown; json: unknown; rootHtml: string };
  items: { namePrefix: string; priceFactor: number; tags: string[] };
  large: { count: number };
  page: { rows: number; head: string; row: string; tail: string; tagSeparator: string };
  scenarios: ContractCScenario[];
}

/**
 * Absolute URL of the contract file; the same hop works from `src/contract-c/` and
 * `dist/contract-c/`. Python servers read the same file (external/python-web/webapp/contract.py).
 */
export const contractCFile = new URL('../../contract/contract-c.json', import.meta.url);

/** Contract C, read once at module load. */
export const contractC: ContractC = Object.freeze(JSON.parse(readFileSync(contractCFile, 'utf8')) as ContractC);

/** Item n (1-based): `{"id":n,"name":"item n","price":n*1.5,"tags":["a","b"]}`. */
function makeItem(n: number): ContractCItem {
  const { namePrefix, priceFactor, tags } = contractC.items;
  return { id: n, name: `${namePrefix}${n}`, price: n * priceFactor, tags: [...tags] };
}

const range = (count: number): ContractCItem[] => Array.from({ length: count }, (_, i) => makeItem(i + 1));

/** The data behind `/api/large`, made once per process; serialising it is the per-request work. */
export const largeItems: readonly ContractCItem[] = range(contractC.large.count);
/** The rows behind `/page`, made once per process; rendering them is the per-request work. */
const pageRows: readonly ContractCItem[] = range(contractC.page.rows);

/** `GET /items/{id}` body: the id as the string sent (after percent-decoding). */
export const itemBody = (id: string): { id: string; name: string } => ({ id, name: `${contractC.items.namePrefix}${id}` });

/**
 * The ~10 KiB HTML page, built per request from the rows: head, one row each (`{{id}}`, `{{name}}`,
 * `{{price}}` with two decimals, `{{tags}}` joined), tail. Python's `render_page` gives the same bytes.
 */
export function renderPage(rows: readonly ContractCItem[] = pageRows): string {
  const { head, row, tail, tagSeparator } = contractC.page;
  let html = head;
  for (const it of rows) {
    html += row.replaceAll('{{id}}', String(it.id)).replaceAll('{{name}}', it.name).replaceAll('{{price}}', it.price.toFixed(2)).replaceAll('{{tags}}', it.tags.join(tagSeparator));
  }
  return html + tail;
}

/**
 * Percent-decodes a raw path as Python's `urllib.parse.unquote` does (and so uvicorn's
 * `scope["path"]`): valid `%XX` escapes become bytes, the bytes are read as UTF-8 with invalid
 * sequences replaced by U+FFFD, and a malformed escape stays as it is.
 */
export function decodePath(raw: string): string {
  if (!raw.includes('%')) return raw;
  const bytes: number[] = [];
  for (let i = 0; i < raw.length; ) {
    const c = raw.charCodeAt(i);
    if (c === 37 /* % */ && /^[0-9A-Fa-f]{2}$/.test(raw.slice(i + 1, i + 3))) {
      bytes.push(Number.parseInt(raw.slice(i + 1, i + 3), 16));
      i += 3;
    } else {
      const cp = raw.codePointAt(i)!;
      bytes.push(...Buffer.from(String.fromCodePoint(cp), 'utf8'));
      i += cp > 0xffff ? 2 : 1;
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

const compiled = contractC.routes.map((route) => ({ route, segments: route.path.split('/') }));

/** Exact, case-sensitive match of a decoded path; `{id}` matches one non-empty segment. */
export function matchRoute(path: string): { route: ContractCRoute; params: Record<string, string> } | undefined {
  const parts = path.split('/');
  outer: for (const { route, segments } of compiled) {
    if (segments.length !== parts.length) continue;
    const params: Record<string, string> = {};
    for (let i = 0; i < segments.length; i++) {
      const seg = segments[i]!;
      const part = parts[i]!;
      if (seg.startsWith('{')) {
        if (part === '') continue outer;
        params[seg.slice(1, -1)] = part;
      } else if (seg !== part) continue outer;
    }
    return { route, params };
  }
  return undefined;
}

/** A routed answer: its content type and body. */
export interface ContractCAnswer {
  contentType: string;
  body: string;
}

/**
 * The 200 answer of a route, made afresh on every call (serialising the list and rendering the
 * page are the per-request work): the node:http server sends it, and the suite's scenarios expect
 * its exact text.
 *
 * @example
 * answer('item', { id: '42' }).body // '{"id":"42","name":"item 42"}'
 */
export function answer(route: ContractCRoute['id'], params: Record<string, string> = {}): ContractCAnswer {
  const { json, html } = contractC.contentTypes;
  switch (route) {
    case 'healthz':
      return { contentType: json, body: JSON.stringify(contractC.bodies.healthz) };
    case 'hello':
      return { contentType: json, body: JSON.stringify(contractC.bodies.hello) };
    case 'root':
      return { contentType: html, body: contractC.bodies.rootHtml };
    case 'json':
      return { contentType: json, body: JSON.stringify(contractC.bodies.json) };
    case 'item':
      return { contentType: json, body: JSON.stringify(itemBody(params.id ?? '')) };
    case 'large':
      return { contentType: json, body: JSON.stringify(largeItems) };
    case 'page':
      return { contentType: html, body: renderPage() };
  }
}

/** Error bodies of contract C: the shape of contract A's (`{"error":"<code>"}`). */
export const notFoundBody = { error: 'not_found' } as const;
export const methodNotAllowedBody = { error: 'method_not_allowed' } as const;
