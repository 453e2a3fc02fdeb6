/**
 * Requests that Node's HTTP parser rejects before any routing, sent over raw sockets (node:net)
 * to every Contract A server: each must write Node's own bare answer, byte for byte — a status
 * line, `Connection: close`, no body — and close the connection. Fastify installs a
 * `clientError` listener of its own (JSON body); its adapter passes the shared
 * `answerClientError` instead.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { serverNames, startServers, stopServers, type RunningServer, type ServerName } from './_helpers-servers.js';

interface RawResult {
  /** Every byte the server wrote, as latin1 text. */
  bytes: string;
  /** Did the server close the connection (rather than the test giving up)? */
  closed: boolean;
}

/**
 * Writes `parts` one by one (a short pause between them, so each may arrive as its own packet),
 * optionally half-closes, and collects the answer until the server closes or `waitMs` passes.
 */
function rawExchange(url: string, parts: string[], options: { halfClose?: boolean; waitMs?: number } = {}): Promise<RawResult> {
  const { port, hostname } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    const done = (closed: boolean): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ bytes: Buffer.concat(chunks).toString('latin1'), closed });
    };
    const timer = setTimeout(() => done(false), options.waitMs ?? 3_000);
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', () => {}); // a reset after the answer is fine: the bytes are what count
    socket.on('close', () => done(true));
    void (async () => {
      for (const part of parts) {
        if (socket.destroyed) return;
        socket.write(part, 'latin1');
        await new Promise((r) => setTimeout(r, 20));
      }
      if (options.halfClose && !socket.destroyed) socket.end();
    })();
  });
}

const bare = (status: string): string => `HTTP/1.1 ${status}\r\nConnection: close\r\n\r\n`;
const BAD_REQUEST = bare('400 Bad Request');
const HOST = 'Host: 127.0.0.1\r\n';
const json = 'Content-Type: application/json\r\n';

interface Case {
  name: string;
  parts: string[];
  halfClose?: boolean;
  expected: string;
}

const cases: Case[] = [
  { name: 'body longer than its Content-Length (the rest reads as a bad request)', parts: [`POST /users HTTP/1.1\r\n${HOST}${json}Content-Length: 2\r\n\r\n{"a":1}`], expected: BAD_REQUEST },
  {
    name: 'body shorter than its Content-Length, then the client half-closes',
    parts: [`POST /users HTTP/1.1\r\n${HOST}${json}Content-Length: 50\r\n\r\n{"a":1}`],
    halfClose: true,
    expected: BAD_REQUEST,
  },
  { name: 'Content-Length that is not a number', parts: [`POST /users HTTP/1.1\r\n${HOST}${json}Content-Length: abc\r\n\r\n{}`], expected: BAD_REQUEST },
  { name: 'two different Content-Length values', parts: [`POST /users HTTP/1.1\r\n${HOST}${json}Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}`], expected: BAD_REQUEST },
  {
    name: 'Transfer-Encoding together with Content-Length',
    parts: [`POST /users HTTP/1.1\r\n${HOST}${json}Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`],
    expected: BAD_REQUEST,
  },
  { name: 'chunk size that is not hexadecimal', parts: [`POST /users HTTP/1.1\r\n${HOST}${json}Transfer-Encoding: chunked\r\n\r\nZZ\r\n{}\r\n0\r\n\r\n`], expected: BAD_REQUEST },
  { name: 'request line that is not HTTP', parts: ['GARBAGE\r\n\r\n'], expected: BAD_REQUEST },
  { name: 'lower-case method', parts: [`get /ping HTTP/1.1\r\n${HOST}\r\n`], expected: BAD_REQUEST },
  { name: 'control character in a header value', parts: [`GET /ping HTTP/1.1\r\n${HOST}X-Bad: a\u0001b\r\n\r\n`], expected: BAD_REQUEST },
  { name: 'headers over 16 KiB → 431', parts: [`GET /ping HTTP/1.1\r\n${HOST}X-Big: ${'a'.repeat(20_000)}\r\n\r\n`], expected: bare('431 Request Header Fields Too Large') },
  {
    name: 'a valid request, then garbage on the same connection: 201, then the bare 400',
    parts: [`POST /users HTTP/1.1\r\n${HOST}${json}Content-Length: 2\r\n\r\n{}`, 'xx garbage\r\n\r\n'],
    expected: 'HTTP/1.1 201 Created\r\n',
  },
];

let servers: Record<ServerName, RunningServer> | undefined;
beforeAll(async () => {
  servers = await startServers({ RATE_LIMIT_MAX: '1000000' });
});
afterAll(() => stopServers(servers));

describe("requests the HTTP parser rejects get Node's bare answer from every server", () => {
  test.each(cases)('$name', async ({ parts, halfClose, expected }) => {
    const results = await Promise.all(serverNames.map((n) => rawExchange(servers![n].url, parts, { halfClose })));
    const problems: string[] = [];
    serverNames.forEach((name, i) => {
      const { bytes, closed } = results[i] as RawResult;
      if (!closed) problems.push(`${name} kept the connection open`);
      if (expected.endsWith('\r\n\r\n') && bytes !== expected) problems.push(`${name} wrote ${JSON.stringify(bytes)}`);
      if (!expected.endsWith('\r\n\r\n') && !(bytes.startsWith(expected) && bytes.endsWith(BAD_REQUEST))) problems.push(`${name} wrote ${JSON.stringify(bytes)}`);
    });
    if (problems.length > 0) expect.fail(`expected ${JSON.stringify(expected)}\n${problems.join('\n')}`);
  });
});

/** Status line, content-type and body (de-chunked) of a raw HTTP/1.1 answer; other headers are not compared. */
function summarize(bytes: string): string {
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) return JSON.stringify(bytes);
  const [statusLine = '', ...lines] = bytes.slice(0, end).split('\r\n');
  const headers = new Map(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  let body = bytes.slice(end + 4);
  if (headers.get('transfer-encoding') === 'chunked') {
    let out = '';
    for (let rest = body; ; ) {
      const nl = rest.indexOf('\r\n');
      const size = Number.parseInt(rest.slice(0, nl), 16);
      if (!(size > 0)) break;
      out += rest.slice(nl + 2, nl + 2 + size);
      rest = rest.slice(nl + 2 + size + 2);
    }
    body = out;
  }
  return `${statusLine} | content-type: ${headers.get('content-type') ?? '(none)'} | ${body}`;
}

describe('request-targets that HTTP client libraries do not send', () => {
  test.each([
    {
      name: 'asterisk form (OPTIONS *) → 400 bad_request',
      raw: `OPTIONS * HTTP/1.1\r\n${HOST}Connection: close\r\n\r\n`,
      expected: 'HTTP/1.1 400 Bad Request | content-type: application/json; charset=utf-8 | {"error":"bad_request"}',
    },
    { name: "HTTP/1.1 without Host → Node's own 400", raw: 'GET /ping HTTP/1.1\r\nConnection: close\r\n\r\n', expected: 'HTTP/1.1 400 Bad Request | content-type: (none) | ' },
  ])('$name', async ({ raw, expected }) => {
    const results = await Promise.all(serverNames.map((n) => rawExchange(servers![n].url, [raw])));
    const problems = serverNames.flatMap((name, i) => {
      const got = summarize((results[i] as RawResult).bytes);
      return got === expected ? [] : [`${name}: ${got}`];
    });
    if (problems.length > 0) expect.fail(`expected ${expected}\n${problems.join('\n')}`);
  });
});
