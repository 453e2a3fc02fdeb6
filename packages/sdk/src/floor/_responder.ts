/**
 * The trivial responder of the loader's round-trip floor: a raw TCP server (node:net, no HTTP
 * parser, no framework) that answers every HTTP/1.1 request with the same small response, written
 * as one buffer. It does as little as a server can per request: find the end of the request
 * (its header block, then `content-length` bytes of body) and write. What a loader measures
 * against it is the loader's own time per request plus the kernel's loopback and this minimum.
 *
 * Started as its own (pinned) process by `run/floor.ts`; prints the `listening on` line every
 * target prints. Chunked request bodies are not understood (no driver sends them).
 */
import { createServer, type Socket } from 'node:net';

const body = '{"ok":true}';
const response = Buffer.from(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`);
const HEADER_END = Buffer.from('\r\n\r\n');
const CONTENT_LENGTH = /\r\ncontent-length:\s*(\d+)/i;

/** Answer each complete request in `buf` (pipelined ones too); return the bytes of an unfinished one. */
function answer(socket: Socket, buf: Buffer): Buffer {
  let at = 0;
  for (;;) {
    const end = buf.indexOf(HEADER_END, at);
    if (end < 0) break;
    const head = buf.toString('latin1', at, end);
    const length = Number(CONTENT_LENGTH.exec(head)?.[1] ?? 0);
    const next = end + HEADER_END.length + length;
    if (next > buf.length) break;
    socket.write(response);
    at = next;
  }
  return at === 0 ? buf : buf.subarray(at);
}

const server = createServer((socket) => {
  socket.setNoDelay(true);
  let pending: Buffer | undefined;
  socket.on('data', (chunk: Buffer) => {
    const rest = answer(socket, pending ? Buffer.concat([pending, chunk]) : chunk);
    pending = rest.length ? Buffer.from(rest) : undefined;
  });
  socket.on('error', () => socket.destroy());
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const a = server.address();
  if (a && typeof a === 'object') console.log(`listening on http://127.0.0.1:${a.port}`);
});
process.on('SIGTERM', () => process.exit(0));
