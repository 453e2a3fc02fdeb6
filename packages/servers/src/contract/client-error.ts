import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';

/** Status of Node's own answer for each parser error code; every other code gets 400. */
const statusByCode: Record<string, number> = {
  HPE_HEADER_OVERFLOW: 431,
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 413,
  ERR_HTTP_REQUEST_TIMEOUT: 408,
};

/** The bytes Node's HTTP server writes for a request its parser rejected (`lib/_http_server.js`). */
export function clientErrorResponse(code: string | undefined): string {
  const status = statusByCode[code ?? ''] ?? 400;
  return `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\n\r\n`;
}

/**
 * The contract's answer to a request that the HTTP parser rejects before any routing (a body
 * longer than its `Content-Length`, a bad request line, `Transfer-Encoding` with
 * `Content-Length`, oversized headers…): exactly what Node's server does when no `clientError`
 * listener is set, which is what node:http, Express, Hono and Koa send. A status line
 * (400; 431, 413 or 408 for the codes above), `Connection: close`, no body, then the socket is
 * closed. Fastify always installs a listener of its own, with a JSON body; its
 * `clientErrorHandler` option calls this instead.
 *
 * As Node does, nothing is written when a response on the socket has already begun: its bytes
 * would corrupt that response.
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  // `_httpMessage` is the socket's in-flight ServerResponse; Node's own handler checks the same field.
  const inFlight = (socket as Duplex & { _httpMessage?: { _headerSent?: boolean } | null })._httpMessage;
  if (socket.writable && !inFlight?._headerSent) socket.write(clientErrorResponse(error.code));
  socket.destroy(error);
}
