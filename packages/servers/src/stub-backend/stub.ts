import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { contractB } from '../gateway/contract.js';
import type { ObservedRequest } from '@benchsuite/sdk';

/**
 * The deterministic OpenAI-compatible backend behind the gateways (node:http only).
 * Latency = ceil(chars / charsPerToken) tokens × msPer100Tokens / 100, where chars is the
 * length of every message content (system included). Debug endpoints let tests count
 * aborted requests and switch on failures at run time.
 */
export interface StubBackendOptions {
  charsPerToken?: number;
  msPer100Tokens?: number;
  /** Pause between streamed chunks (0 = all chunks back to back). */
  streamChunkDelayMs?: number;
  /** Answer every chat completion with this status (e.g. 503) instead of a completion. */
  failStatus?: number;
  /**
   * The completion text repeated this many times in a streamed answer (1 = the contract's text):
   * a long, fast stream for the backpressure measurement. `max_tokens` still truncates it.
   */
  streamRepeat?: number;
  /**
   * How the stub waits `ms` (the latency, the pause between chunks). Default: a timer. Injectable
   * so that a test can see the delay the stub applied and hold the answer back, instead of timing it.
   */
  sleep?: (ms: number) => Promise<void>;
}

export interface StubBackendStats {
  /** Chat-completion requests received. */
  requests: number;
  /** Completed normally. */
  completed: number;
  /** Closed by the client before the stub finished answering. */
  aborted: number;
  /** Answered with the configured failure status. */
  failed: number;
  inFlight: number;
}

/** Requests the stub keeps records of (at least the newest 20,000; older ones are dropped in bulk). */
const RECORDS_KEPT = 20_000;

export interface StubBackend {
  server: Server;
  stats: StubBackendStats;
  /** The newest requests (at least 20,000 once there were as many), oldest first. */
  records: ObservedRequest[];
  options: Required<Omit<StubBackendOptions, 'failStatus' | 'sleep'>> & { failStatus: number | undefined };
}

/** The stub's clock: ms since the epoch at sub-ms resolution, comparable across processes on one host. */
function stubClock(): number {
  return performance.timeOrigin + performance.now();
}

/** Estimated tokens of `chars` characters. */
export function estimateTokens(chars: number, charsPerToken: number): number {
  return Math.ceil(chars / charsPerToken);
}

/** Backend latency in ms for `tokens` prompt tokens. */
export function latencyMs(tokens: number, msPer100Tokens: number): number {
  return (tokens * msPer100Tokens) / 100;
}

/** Read the stub's options from its environment variables (names in the contract). */
export function stubOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): StubBackendOptions {
  const e = contractB.stub.env;
  const num = (name: string): number | undefined => {
    const v = env[name];
    if (v === undefined || v === '') return undefined;
    const n = Number(v);
    if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a non-negative number, got ${v}`);
    return n;
  };
  const opts: StubBackendOptions = {};
  const cpt = num(e.charsPerToken);
  if (cpt !== undefined) opts.charsPerToken = cpt;
  const ms = num(e.msPer100Tokens);
  if (ms !== undefined) opts.msPer100Tokens = ms;
  const delay = num(e.streamChunkDelayMs);
  if (delay !== undefined) opts.streamChunkDelayMs = delay;
  const fail = num(e.failStatus);
  if (fail !== undefined && fail > 0) opts.failStatus = fail;
  return opts;
}

const JSON_TYPE = 'application/json; charset=utf-8';

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': JSON_TYPE, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function openAIError(res: ServerResponse, status: number, message: string, type = 'invalid_request_error'): void {
  send(res, status, { error: { message, type, param: null, code: null } });
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function promptChars(messages: unknown[]): number {
  let chars = 0;
  for (const m of messages) {
    if (typeof m !== 'object' || m === null) continue;
    const content = (m as { content?: unknown }).content;
    if (typeof content === 'string') chars += content.length;
    else if (Array.isArray(content)) {
      for (const part of content) {
        const text = (part as { text?: unknown } | null)?.text;
        if (typeof text === 'string') chars += text.length;
      }
    }
  }
  return chars;
}

/** Words of the completion with their leading space: the streamed chunks. */
function chunksOf(text: string): string[] {
  return text.split(/(?= )/);
}

/**
 * Create (but do not start) the stub backend.
 *
 * @example
 * const stub = createStubBackend({ msPer100Tokens: 0 });
 * stub.server.listen(0, '127.0.0.1');
 */
export function createStubBackend(initial: StubBackendOptions = {}): StubBackend {
  const d = contractB.stub.defaults;
  const options: StubBackend['options'] = {
    charsPerToken: initial.charsPerToken ?? d.charsPerToken,
    msPer100Tokens: initial.msPer100Tokens ?? d.msPer100Tokens,
    streamChunkDelayMs: initial.streamChunkDelayMs ?? d.streamChunkDelayMs,
    streamRepeat: initial.streamRepeat ?? 1,
    failStatus: initial.failStatus,
  };
  if (!(options.charsPerToken > 0)) throw new Error('charsPerToken must be > 0');
  const sleep = initial.sleep ?? timerSleep;
  const stats: StubBackendStats = { requests: 0, completed: 0, aborted: 0, failed: 0, inFlight: 0 };
  const records: ObservedRequest[] = [];
  let counter = 0;
  let recordId = 0;

  async function completions(req: IncomingMessage, res: ServerResponse): Promise<void> {
    stats.requests++;
    stats.inFlight++;
    const record: ObservedRequest = { id: ++recordId, stream: false, startedAt: stubClock(), endedAt: null, outcome: 'in-flight', bytes: 0, waits: 0, blockedMs: 0 };
    records.push(record);
    // Dropped in bulk, so that the hot path of the heavy scenarios pays nothing per request.
    if (records.length >= 2 * RECORDS_KEPT) records.splice(0, RECORDS_KEPT);
    let settled = false;
    const settle = (kind: 'completed' | 'aborted' | 'failed'): void => {
      if (settled) return;
      settled = true;
      stats.inFlight--;
      stats[kind]++;
      record.outcome = kind;
      record.endedAt = stubClock();
    };
    // 'close' fires for finished and aborted responses alike; only an unfinished one is an abort.
    res.on('close', () => settle(res.writableFinished ? 'completed' : 'aborted'));

    const raw = await readBody(req);
    if (options.failStatus !== undefined) {
      settle('failed');
      openAIError(res, options.failStatus, 'stub backend configured to fail', 'server_error');
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      openAIError(res, 400, 'invalid JSON body');
      return;
    }
    const b = body as { model?: unknown; messages?: unknown; max_tokens?: unknown; stream?: unknown; stream_options?: { include_usage?: unknown } };
    if (typeof body !== 'object' || body === null || !Array.isArray(b.messages)) {
      openAIError(res, 400, 'messages must be an array');
      return;
    }
    const model = typeof b.model === 'string' ? b.model : contractB.stub.modelId;
    const promptTokens = estimateTokens(promptChars(b.messages), options.charsPerToken);
    const full = b.stream === true && options.streamRepeat > 1 ? `${contractB.stub.completionText} `.repeat(options.streamRepeat).trimEnd() : contractB.stub.completionText;
    const fullTokens = estimateTokens(full.length, options.charsPerToken);
    const maxTokens = typeof b.max_tokens === 'number' && b.max_tokens > 0 ? Math.floor(b.max_tokens) : Infinity;
    const truncated = maxTokens < fullTokens;
    const text = truncated ? full.slice(0, Math.floor(maxTokens * options.charsPerToken)) : full;
    const completionTokens = truncated ? maxTokens : fullTokens;
    const finishReason = truncated ? 'length' : 'stop';
    const id = `${contractB.stub.idPrefix}${++counter}`;
    const created = contractB.stub.created;
    const usage = { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
    const delay = latencyMs(promptTokens, options.msPer100Tokens);

    if (b.stream === true) {
      record.stream = true;
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
      res.flushHeaders();
      await sleep(delay);
      const chunk = (delta: Record<string, unknown>, finish: string | null): string =>
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      const parts = [chunk({ role: 'assistant', content: '' }, null)];
      for (const word of chunksOf(text)) parts.push(chunk({ content: word }, null));
      parts.push(chunk({}, finishReason));
      if (b.stream_options?.include_usage === true) {
        parts.push(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage })}\n\n`);
      }
      parts.push('data: [DONE]\n\n');
      for (const p of parts) {
        if (res.destroyed) return;
        record.bytes += Buffer.byteLength(p);
        // Honour the reader's pace: a full socket buffer waits for drain (counted: the stream was throttled).
        if (!res.write(p)) {
          const t0 = performance.now();
          record.waits++;
          await new Promise<void>((resolve) => {
            const done = (): void => {
              res.off('drain', done);
              res.off('close', done);
              resolve();
            };
            res.on('drain', done);
            res.on('close', done);
          });
          record.blockedMs += performance.now() - t0;
        }
        if (options.streamChunkDelayMs > 0) await sleep(options.streamChunkDelayMs);
      }
      res.end();
      return;
    }
    await sleep(delay);
    if (res.destroyed) return;
    send(res, 200, {
      id,
      object: 'chat.completion',
      created,
      model,
      choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: finishReason }],
      usage,
    });
  }

  const created = contractB.stub.created;
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://stub');
    const route = `${req.method} ${url.pathname}`;
    const fail = (err: unknown): void => {
      if (!res.headersSent) openAIError(res, 500, String(err), 'server_error');
      else res.destroy();
    };
    switch (route) {
      case 'GET /health':
        send(res, 200, { status: 'ok' });
        return;
      case 'GET /v1/models':
        send(res, 200, { object: 'list', data: [{ id: contractB.stub.modelId, object: 'model', created, owned_by: 'benchsuite-stub' }] });
        return;
      case 'POST /v1/chat/completions':
        completions(req, res).catch(fail);
        return;
      case 'GET /debug/stats':
        send(res, 200, stats);
        return;
      case 'POST /debug/reset':
        Object.assign(stats, { requests: 0, completed: 0, aborted: 0, failed: 0 });
        send(res, 200, stats);
        return;
      case 'GET /debug/requests': {
        // The stream observer protocol: records after ?after=<id>, and the stub's clock now.
        const after = Number(url.searchParams.get('after') ?? 0);
        send(res, 200, { now: stubClock(), requests: records.filter((r) => r.id > after) });
        return;
      }
      case 'POST /debug/config':
        readBody(req)
          .then((text) => {
            const patch = text ? (JSON.parse(text) as Record<string, unknown>) : {};
            for (const key of ['streamChunkDelayMs', 'streamRepeat', 'msPer100Tokens'] as const) {
              const v = patch[key];
              if (v === undefined) continue;
              if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new Error(`${key} must be a non-negative number`);
              options[key] = key === 'streamRepeat' ? Math.max(1, Math.floor(v)) : v;
            }
            send(res, 200, { streamChunkDelayMs: options.streamChunkDelayMs, streamRepeat: options.streamRepeat, msPer100Tokens: options.msPer100Tokens });
          })
          .catch((err: Error) => openAIError(res, 400, err.message));
        return;
      case 'POST /debug/fail': {
        // ?status=503 switches failures on, ?status=0 (or none) switches them off.
        const status = Number(url.searchParams.get('status') ?? 0);
        options.failStatus = status > 0 ? status : undefined;
        send(res, 200, { failStatus: options.failStatus ?? null });
        return;
      }
      default:
        openAIError(res, 404, `no route ${route}`, 'not_found');
    }
  });
  server.keepAliveTimeout = 65_000;
  return { server, stats, records, options };
}

function timerSleep(ms: number): Promise<void> {
  return ms > 0 ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve();
}
