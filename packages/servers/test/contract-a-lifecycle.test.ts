/**
 * Process behaviour of `node dist/serve.js <name>`: the one `listening on` line, no per-request
 * output, and a graceful SIGTERM (in-flight request finished, idle keep-alive socket closed,
 * exit 0 within 5 s).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { Agent, request } from 'node:http';
import { describe, expect, test } from 'vitest';
import { send } from './_helpers-http.js';
import { contract, servePath, serverNames, startServer } from './_helpers-servers.js';

const PAYLOAD = JSON.stringify(contract.payload);

describe.each(serverNames)('%s process', (name) => {
  test('prints exactly one "listening on" line and nothing per request', async () => {
    const server = await startServer(name);
    try {
      for (let i = 0; i < 3; i++) await send(server.url, { path: '/ping' });
      await send(server.url, { path: '/nope' });
      expect(server.stdout()).toBe(`listening on ${server.url}\n`);
      expect(server.stderr()).toBe('');
    } finally {
      server.child.kill('SIGKILL');
      await server.exited;
    }
  });

  test('SIGTERM: finishes the in-flight request, closes idle keep-alive sockets, exits 0 within 5 s', async () => {
    const server = await startServer(name, { CONTRACT_A_TEST_HOOKS: '1' });
    const agent = new Agent({ keepAlive: true });
    try {
      const url = new URL(server.url);
      // An idle keep-alive socket: must not hold the process open.
      await new Promise<void>((resolve, reject) => {
        request({ host: url.hostname, port: url.port, path: '/healthz', agent }, (res) => {
          res.resume();
          res.on('end', resolve);
        })
          .on('error', reject)
          .end();
      });
      // An in-flight request that takes 600 ms.
      const inFlight = send(server.url, {
        method: 'POST',
        path: '/stack/auth/users',
        headers: { authorization: `Bearer ${contract.token}`, 'content-type': 'application/json', 'x-test-delay-ms': '600' },
        body: PAYLOAD,
      });
      await new Promise((r) => setTimeout(r, 200));
      const signalled = Date.now();
      server.child.kill('SIGTERM');
      const response = await inFlight;
      expect(response.status).toBe(201);
      const code = await server.exited;
      expect(code).toBe(0);
      expect(Date.now() - signalled).toBeLessThan(5_000);
      // No longer accepting.
      await expect(send(server.url, { path: '/healthz' })).rejects.toThrow(/ECONNREFUSED/);
    } finally {
      agent.destroy();
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
    }
  });
});

test('an unknown target name prints the usage and exits 2', async () => {
  const child = spawn(process.execPath, [servePath, 'nope'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  child.stdout.resume();
  const [code] = (await once(child, 'exit')) as [number];
  expect(code).toBe(2);
  expect(err).toContain('usage: node dist/serve.js <node-http|express|fastify|hono|hono-lean|koa>');
});
