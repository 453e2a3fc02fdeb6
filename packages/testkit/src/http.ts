import { request as httpRequest } from 'node:http';

/** One request as the tests send it. */
export interface TestRequest {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Send the body with `transfer-encoding: chunked` (in 64-KiB writes) instead of a `content-length`. */
  chunked?: boolean;
}

export interface TestResponse {
  status: number;
  /** Every header, a repeated one joined with `, `. */
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * Sends one request on a fresh connection (no pooling: every case starts clean, and multi-worker
 * servers spread the load). A server that answers (413, 401) before reading a large body and then
 * closes is not an error.
 *
 * Such a server may also close while the body is still being sent (hono's node server drains a
 * refused body for 500 ms, then closes): the client's next write is answered with a reset, and on
 * Linux a reset discards the answer still unread in the client's buffer. On a loaded machine the
 * client can fall that far behind, so a reset before any answer, while a body was being sent, is
 * retried once on a new connection; a second reset is the error. A server that resets every time
 * still fails.
 */
export async function request(base: string, req: TestRequest): Promise<TestResponse> {
  try {
    return await requestOnce(base, req);
  } catch (e) {
    if (req.body === undefined || !RESET_CODES.has((e as NodeJS.ErrnoException).code ?? '')) throw e;
    return requestOnce(base, req);
  }
}

/** How a connection closed under a body still being written shows itself. */
const RESET_CODES = new Set(['EPIPE', 'ECONNRESET']);

function requestOnce(base: string, req: TestRequest): Promise<TestResponse> {
  const url = new URL(base);
  const headers: Record<string, string | number> = { ...req.headers };
  if (req.body !== undefined && !req.chunked) headers['content-length'] = Buffer.byteLength(req.body);
  // Node's client frames a written body as chunked only for methods it expects a body on; a GET
  // body would otherwise go out unframed and read as a second, malformed request.
  if (req.body !== undefined && req.chunked) headers['transfer-encoding'] = 'chunked';
  return new Promise((resolve, reject) => {
    let answered = false;
    // The path goes out as written (no URL normalising): malformed and odd paths are test cases.
    const r = httpRequest({ host: url.hostname, port: url.port, method: req.method ?? 'GET', path: req.path, headers, agent: false }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const h: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) h[k] = Array.isArray(v) ? v.join(', ') : v;
        resolve({ status: res.statusCode ?? 0, headers: h, body: Buffer.concat(chunks) });
      });
    });
    r.on('error', (err) => {
      if (!answered) reject(err);
    });
    if (req.body !== undefined && req.chunked) {
      // A few chunks, so that a limit is crossed while the body is still arriving.
      const buf = Buffer.from(req.body);
      const step = 64 * 1024;
      for (let i = 0; i < buf.length; i += step) r.write(buf.subarray(i, i + step));
      r.end();
    } else r.end(req.body);
  });
}
