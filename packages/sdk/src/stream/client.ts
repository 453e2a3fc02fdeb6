import { type Agent, request as httpRequest, type ClientRequest } from 'node:http';
import type { RequestSpec } from '../scenario.js';

/**
 * One socket read of a stream that completed at least one event: every event it completed arrived
 * at `at`. A read is what the loader's event loop handed over in one turn (the chunks of one socket
 * read); events batched by the target, or written while the loader was late, arrive in one read.
 */
export interface StreamRead {
  /** Arrival, ms on `performance.now()`'s clock (the turn's first chunk). */
  at: number;
  /** Events of any name completed by this read. */
  events: number;
  /** Of them, token events (the scenario's `deltaEvent`). */
  tokens: number;
}

/** One server-sent-events stream as the client saw it. Times are ms on `performance.now()`'s clock. */
export interface StreamTrace {
  startedAt: number;
  /** Response headers arrived (time to first byte). */
  headersAt: number | null;
  status: number | null;
  /** The reads that completed events, in order. */
  reads: StreamRead[];
  /** Token events received. */
  tokens: number;
  /** The end event arrived and the response ended. */
  complete: boolean;
  endedAt: number | null;
  error: string | null;
  /** Cut by the loader (its `timeoutMs`, or `cut`: a level's drain cap), not ended by the target. */
  timedOut: boolean;
}

export interface StreamEvents {
  deltaEvent: string;
  endEvent: string;
}

/** Split complete SSE events off `buffer`; returns their names (`message` when none is given) and the rest. */
export function parseSseEvents(buffer: string): { names: string[]; rest: string } {
  const names: string[] = [];
  let start = 0;
  for (;;) {
    // Events end with a blank line; accept CRLF too.
    const lf = buffer.indexOf('\n\n', start);
    const crlf = buffer.indexOf('\r\n\r\n', start);
    const end = lf < 0 ? crlf : crlf < 0 ? lf : Math.min(lf, crlf);
    if (end < 0) break;
    const block = buffer.slice(start, end);
    start = end + (end === crlf ? 4 : 2);
    let name = 'message';
    let any = false;
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith('event:')) name = line.slice(6).trim();
      if (line && !line.startsWith(':')) any = true;
    }
    if (any) names.push(name);
  }
  return { names, rest: buffer.slice(start) };
}

export interface OpenStreamOptions extends StreamEvents {
  baseUrl: string;
  request: RequestSpec;
  agent?: Agent;
  /** Called on every token event with the count so far (the cancellation phase disconnects from here). */
  onDelta?: (count: number, req: ClientRequest) => void;
  /** Give up after this many ms (the trace ends with an error, and `timedOut`); none when absent (the caller `cut`s it). */
  timeoutMs?: number;
  body?: string;
}

/** Send one streaming request and trace its events until it ends, fails, is destroyed, times out or is cut. */
export function openStream(o: OpenStreamOptions): { trace: StreamTrace; done: Promise<StreamTrace>; req: ClientRequest; cut: (error: string) => void } {
  const trace: StreamTrace = { startedAt: performance.now(), headersAt: null, status: null, reads: [], tokens: 0, complete: false, endedAt: null, error: null, timedOut: false };
  const url = new URL(o.request.path, o.baseUrl);
  const body = o.body ?? o.request.body;
  const headers: Record<string, string | number> = { accept: 'text/event-stream', ...o.request.headers };
  if (body !== undefined) headers['content-length'] = Buffer.byteLength(body);
  let sawEnd = false;
  let settle: (t: StreamTrace) => void = () => undefined;
  const done = new Promise<StreamTrace>((resolve) => (settle = resolve));
  const finish = (error: string | null): void => {
    if (trace.endedAt !== null) return;
    trace.endedAt = performance.now();
    trace.error = error;
    trace.complete = error === null && sawEnd;
    if (error === null && !sawEnd) trace.error = trace.status === 200 ? 'stream ended without its end event' : `status ${trace.status}`;
    clearTimeout(timer);
    settle(trace);
  };
  const req = httpRequest({ host: url.hostname, port: url.port, path: url.pathname + url.search, method: o.request.method, headers, agent: o.agent ?? false });
  /** End the stream from the loader's side: an error, and `timedOut`. */
  const cut = (error: string): void => {
    if (trace.endedAt !== null) return;
    trace.timedOut = true;
    finish(error);
    req.destroy();
  };
  const timer = o.timeoutMs === undefined ? undefined : setTimeout(() => cut(`no end within ${o.timeoutMs} ms`), o.timeoutMs);
  req.on('response', (res) => {
    trace.headersAt = performance.now();
    trace.status = res.statusCode ?? null;
    res.setEncoding('utf8');
    let buffer = '';
    // The chunks of one socket read are handed over in one turn of the event loop, before its
    // microtasks run: a turn opens a read, and a microtask closes it.
    let turnAt: number | null = null;
    let read: StreamRead | null = null;
    res.on('data', (chunk: string) => {
      if (turnAt === null) {
        turnAt = performance.now();
        queueMicrotask(() => {
          turnAt = null;
          read = null;
        });
      }
      buffer += chunk;
      const { names, rest } = parseSseEvents(buffer);
      buffer = rest;
      if (!names.length) return;
      if (!read) {
        read = { at: turnAt, events: 0, tokens: 0 };
        trace.reads.push(read);
      }
      for (const name of names) {
        read.events++;
        if (name === o.deltaEvent) {
          read.tokens++;
          trace.tokens++;
          o.onDelta?.(trace.tokens, req);
        } else if (name === o.endEvent) sawEnd = true;
      }
    });
    res.on('end', () => finish(null));
    res.on('error', (err) => finish(err.message));
    res.on('close', () => finish(sawEnd ? null : 'closed before its end event'));
  });
  req.on('error', (err) => finish(err.message));
  req.end(body);
  return { trace, done, req, cut };
}
