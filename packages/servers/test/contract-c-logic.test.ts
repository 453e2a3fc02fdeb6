/**
 * The two twins of contract C's logic — src/contract-c/contract-c.ts (Node) and
 * external/python-web/webapp/contract.py (Python, standard library only) — against hand-written
 * values and against each other: the page, the list, the route match and the path decoding.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { answer, contractC, contractCFile, decodePath, itemBody, largeItems, matchRoute, renderPage } from '../src/contract-c/contract-c.js';

const pythonWebSrc = fileURLToPath(new URL('../../../external/python-web/', import.meta.url));
const python3 = spawnSync('python3', ['--version'], { encoding: 'utf8' });
const pythonAbsent = python3.status === 0 ? null : `python3 not runnable (${python3.error?.message ?? python3.stderr})`;

/** Runs a snippet with the Python twin importable; returns its stdout parsed as JSON. */
function py(code: string, input: unknown = null): unknown {
  const r = spawnSync('python3', ['-c', `import json, sys\nfrom webapp import contract as c\ndata = json.load(sys.stdin)\n${code}`], {
    cwd: pythonWebSrc,
    input: JSON.stringify(input),
    encoding: 'utf8',
    env: { ...process.env, CONTRACT_C_PATH: fileURLToPath(contractCFile) },
  });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout) as unknown;
}

describe('contract C logic (Node)', () => {
  it('items: integral prices are integers, the rest halves; JSON.stringify writes 3 for 3.0', () => {
    expect(largeItems).toHaveLength(100);
    expect(largeItems[0]).toEqual({ id: 1, name: 'item 1', price: 1.5, tags: ['a', 'b'] });
    expect(JSON.stringify(largeItems.slice(0, 2))).toBe('[{"id":1,"name":"item 1","price":1.5,"tags":["a","b"]},{"id":2,"name":"item 2","price":3,"tags":["a","b"]}]');
    expect(largeItems[99]!.price).toBe(150);
  });

  it('the page: head, 50 rows with two-decimal prices, tail; 10,226 bytes', () => {
    const page = renderPage();
    expect(page.startsWith(contractC.page.head)).toBe(true);
    expect(page.endsWith(contractC.page.tail)).toBe(true);
    expect(page).toContain('<tr id="item-3" class="item-row"><td class="id">3</td><td class="name"><a href="/items/3">item 3</a></td><td class="price">4.50</td><td class="tags">a, b</td>');
    expect(page).not.toContain('{{');
    expect(Buffer.byteLength(page)).toBe(10_226);
  });

  it('route match: exact, case-sensitive, {id} is one non-empty segment', () => {
    expect(matchRoute('/items/7')).toEqual({ route: contractC.routes.find((r) => r.id === 'item'), params: { id: '7' } });
    expect(matchRoute('/')?.route.id).toBe('root');
    for (const miss of ['/items/', '/items/a/b', '/Hello', '/hello/', '', '/api']) expect(matchRoute(miss), miss).toBeUndefined();
    expect(itemBody('a b')).toEqual({ id: 'a b', name: 'item a b' });
  });

  it('decodePath: escapes decoded as UTF-8, malformed ones kept, invalid bytes as U+FFFD', () => {
    expect(decodePath('/items/caf%C3%A9')).toBe('/items/café');
    expect(decodePath('/items/a%ZZ%4')).toBe('/items/a%ZZ%4');
    expect(decodePath('/items/x%E0%A4y')).toBe('/items/x\uFFFDy');
    expect(decodePath('/%68ello')).toBe('/hello');
    expect(decodePath('/items/😀%F0%9F%98%80')).toBe('/items/😀😀');
  });
});

describe.skipIf(pythonAbsent !== null)(`contract C logic: the Python twin gives the same bytes${pythonAbsent ? ` (skipped: ${pythonAbsent})` : ''}`, () => {
  it('every route answers the same content type and bytes', () => {
    const routes = contractC.routes.map((r) => [r.id, r.id === 'item' ? { id: 'café 1' } : {}] as const);
    const theirs = py('print(json.dumps([[t, b.decode()] for t, b in (c.answer(rid, p) for rid, p in data)], ensure_ascii=False))', routes);
    expect(theirs).toEqual(routes.map(([id, params]) => Object.values(answer(id, params))));
    expect(theirs).toHaveLength(7);
  });

  it('the page and the 100-item list', () => {
    expect(py('print(json.dumps([c.render_page(), c.dumps(c.LARGE).decode()]))')).toEqual([renderPage(), JSON.stringify(largeItems)]);
  });

  it('http.server speaks HTTP/1.1 keep-alive with TCP_NODELAY (else every response waits ~40 ms for a delayed ACK)', () => {
    expect(py('from webapp.stdlib_server import Handler\nprint(json.dumps([Handler.protocol_version, Handler.disable_nagle_algorithm]))')).toEqual(['HTTP/1.1', true]);
  });

  it('path decoding and route match on tricky paths', () => {
    const paths = ['/items/caf%C3%A9', '/items/a%ZZ%4', '/items/x%E0%A4y', '/%68ello', '/items/%F0%9F%98%80', '/items/%c3%28', '/items/%ED%A0%80', '/items/', '/items/a/b', '/HELLO', '/'];
    const theirs = py(
      'from urllib.parse import unquote\nout = []\nfor p in data:\n    d = unquote(p)\n    m = c.match(d)\n    out.append([d, m[0]["id"] if m else None, m[1] if m else None])\nprint(json.dumps(out, ensure_ascii=False))',
      paths,
    );
    const ours = paths.map((p) => {
      const d = decodePath(p);
      const m = matchRoute(d);
      return [d, m ? m.route.id : null, m ? m.params : null];
    });
    expect(ours).toEqual(theirs);
  });
});
