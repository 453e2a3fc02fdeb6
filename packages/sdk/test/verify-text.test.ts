// The verify step's exact body text (`expect.text`): the bytes count, not only the parsed JSON.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseScenario, verifyScenario } from '../src/index.js';

let server: Server;
let base: string;

beforeAll(async () => {
  // `3.0` where JSON.stringify writes `3`: the same value, other bytes.
  server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(req.url === '/float' ? '{"price":3.0}' : '{"price":3}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const scenario = (path: string) => parseScenario({ name: 'price', request: { path }, expect: { status: 200, json: { price: 3 }, text: '{"price":3}' } });

describe('verify with expect.text', () => {
  it('passes when the body is exactly the text', async () => {
    const s = scenario('/int');
    expect(await verifyScenario(base, s, [s.request!], 'int')).toEqual({ scenario: 'price', target: 'int', ok: true });
  });

  it('fails on the same JSON value written with other bytes, naming where the text differs', async () => {
    const s = scenario('/float');
    const r = await verifyScenario(base, s, [s.request!], 'float');
    expect(r.ok).toBe(false);
    expect(r.diff).toContain('body text differs at character 10');
    expect(r.diff).toContain('- expected "}"');
    expect(r.diff).toContain('+ received ".0}"');
  });
});
