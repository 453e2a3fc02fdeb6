import type { IncomingMessage } from 'node:http';
import { contractA } from './contract-a.js';
import { contractError, type ContractError } from './errors.js';
import { jsonRequestError } from './negotiation.js';

/** Result of `readJsonBody`: the parsed value, or the contract error to send. */
export type ReadJsonBodyResult = { ok: true; value: unknown } | { ok: false; error: ContractError };

/** Options of `readJsonBody`. */
export interface ReadJsonBodyOptions {
  /** Largest accepted body in bytes; default the contract's 1 MiB. */
  limit?: number;
}

const BOM = '\uFEFF';

/**
 * JSON body reader for frameworks without one (node:http, Koa): 415 from the headers first,
 * then 413 (declared `content-length` over the limit, or more bytes than that arriving), then
 * 400 for an empty body or invalid JSON. A leading UTF-8 BOM is skipped, as body-parser,
 * secure-json-parse and `Response.json()` do.
 *
 * On a 413 the rest of the body is still read and discarded, like body-parser does, so a client
 * that is still sending gets the response instead of a reset connection.
 *
 * @example
 * const r = await readJsonBody(req);
 * if (!r.ok) return send(res, r.error.status, r.error.body);
 */
export function readJsonBody(req: IncomingMessage, options: ReadJsonBodyOptions = {}): Promise<ReadJsonBodyResult> {
  const limit = options.limit ?? contractA.limits.bodyBytes;
  const typeError = jsonRequestError(req.headers['content-type'], req.headers['content-encoding']);
  if (typeError) return drain(req, typeError);
  const declared = req.headers['content-length'];
  if (declared !== undefined && Number(declared) > limit) return drain(req, contractError('payload_too_large'));

  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      if (tooLarge) return;
      size += chunk.length;
      if (size > limit) {
        tooLarge = true;
        chunks.length = 0;
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (tooLarge) return resolve({ ok: false, error: contractError('payload_too_large') });
      let text = Buffer.concat(chunks, size).toString('utf8');
      if (text.startsWith(BOM)) text = text.slice(1);
      if (text.trim() === '') return resolve({ ok: false, error: contractError('bad_request') });
      try {
        resolve({ ok: true, value: JSON.parse(text) as unknown });
      } catch {
        resolve({ ok: false, error: contractError('bad_request') });
      }
    });
    req.on('error', () => resolve({ ok: false, error: contractError('bad_request') }));
  });
}

/** Discards the unread body (keeps the connection usable) and answers `error` right away. */
function drain(req: IncomingMessage, error: ContractError): Promise<ReadJsonBodyResult> {
  req.resume();
  return Promise.resolve({ ok: false, error });
}
