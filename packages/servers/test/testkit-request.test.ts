/**
 * The test kit's `request` retries once when the connection is reset before any answer while a
 * body was being sent (a server that closed after refusing the body, on a client that fell behind);
 * a server that resets every time, or a reset without a body, is still an error.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { request } from '@benchsuite/testkit';
import { afterEach, expect, test } from 'vitest';

let server: Server | undefined;
afterEach(() => new Promise<void>((done) => (server ? server.close(() => done()) : done())));

/** A raw server: connection `i` (from 0) is reset on its first bytes when `reset(i)`, else answered 413. */
async function rawServer(reset: (i: number) => boolean): Promise<{ url: string; connections: () => number }> {
  let n = 0;
  server = createServer((socket: Socket) => {
    const i = n++;
    socket.once('data', () => {
      if (reset(i)) socket.resetAndDestroy();
      else socket.end('HTTP/1.1 413 Payload Too Large\r\nconnection: close\r\ncontent-length: 2\r\n\r\nno');
    });
    socket.on('error', () => {});
  });
  await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}`, connections: () => n };
}

const body = 'x'.repeat(256 * 1024);

test('a reset before the answer, while a body is being sent, is retried once on a new connection', async () => {
  const s = await rawServer((i) => i === 0);
  const res = await request(s.url, { method: 'POST', path: '/users', body, chunked: true });
  expect(res.status).toBe(413);
  expect(s.connections()).toBe(2);
});

test('a server that resets every time is an error after the one retry', async () => {
  const s = await rawServer(() => true);
  await expect(request(s.url, { method: 'POST', path: '/users', body })).rejects.toMatchObject({ code: expect.stringMatching(/^(ECONNRESET|EPIPE)$/) });
  expect(s.connections()).toBe(2);
});

test('a reset on a request without a body is not retried', async () => {
  const s = await rawServer(() => true);
  await expect(request(s.url, { path: '/healthz' })).rejects.toMatchObject({ code: 'ECONNRESET' });
  expect(s.connections()).toBe(1);
});
