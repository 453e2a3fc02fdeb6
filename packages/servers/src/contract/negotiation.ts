import { contractA } from './contract-a.js';
import { contractError, type ContractError } from './errors.js';

interface Range {
  value: string;
  q: number;
}

/** Parses a `#( token [ ; q=… ] )` list; other parameters are ignored, malformed q counts as 1. */
function parseList(header: string): Range[] {
  const out: Range[] = [];
  for (const part of header.split(',')) {
    const [rawValue = '', ...params] = part.split(';');
    const value = rawValue.trim().toLowerCase();
    if (!value) continue;
    let q = 1;
    for (const p of params) {
      const [k = '', v = ''] = p.split('=');
      if (k.trim().toLowerCase() === 'q') {
        const n = Number(v.trim());
        q = Number.isFinite(n) ? n : 1;
      }
    }
    out.push({ value, q });
  }
  return out;
}

/**
 * Does an `Accept` header allow `application/json`? Absent or empty means yes. The most specific
 * matching range decides (`application/json` over `application/*` over `*\/*`); q=0 means no.
 *
 * @example
 * acceptsJson('text/html') // false → 406
 */
export function acceptsJson(accept: string | undefined | null): boolean {
  if (accept === undefined || accept === null || accept.trim() === '') return true;
  let best: { specificity: number; q: number } | undefined;
  for (const { value, q } of parseList(accept)) {
    const specificity = value === 'application/json' ? 2 : value === 'application/*' ? 1 : value === '*/*' ? 0 : -1;
    if (specificity >= 0 && (!best || specificity > best.specificity)) best = { specificity, q };
  }
  return best !== undefined && best.q > 0;
}

/**
 * Does an `Accept-Encoding` header allow gzip (explicit `gzip` first, else `*`; q=0 means no)?
 * gzip is the only coding the stack route uses; everything else gets identity.
 */
export function acceptsGzip(acceptEncoding: string | undefined | null): boolean {
  if (!acceptEncoding) return false;
  let explicit: number | undefined;
  let wildcard: number | undefined;
  for (const { value, q } of parseList(acceptEncoding)) {
    if (value === 'gzip') explicit = q;
    else if (value === '*') wildcard = q;
  }
  return (explicit ?? wildcard ?? 0) > 0;
}

/**
 * The 415 check of a JSON route, made from headers alone before any byte of the body is read:
 * media type `application/json` (case-insensitive), a `charset` parameter if any must be
 * `utf-8`, and no request `content-encoding` other than identity.
 *
 * @returns `undefined` when acceptable, else the 415 to send.
 */
export function jsonRequestError(contentType: string | undefined | null, contentEncoding?: string | undefined | null): ContractError | undefined {
  const unsupported = contractError('unsupported_media_type');
  if (contentEncoding && contentEncoding.trim().toLowerCase() !== 'identity') return unsupported;
  if (!contentType) return unsupported;
  const [type = '', ...params] = contentType.split(';');
  if (type.trim().toLowerCase() !== 'application/json') return unsupported;
  for (const p of params) {
    const eq = p.indexOf('=');
    if (eq < 0) continue;
    if (p.slice(0, eq).trim().toLowerCase() !== 'charset') continue;
    const charset = p
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1')
      .toLowerCase();
    if (charset !== 'utf-8') return unsupported;
  }
  return undefined;
}

/** CORS headers of every production-stack response (preflight adds methods and headers). */
export const corsHeaders = { 'access-control-allow-origin': contractA.headers.corsAllowOrigin } as const;

/** Headers of the 204 answer to an `OPTIONS` on the production-stack route. */
export const preflightHeaders = {
  'access-control-allow-origin': contractA.headers.corsAllowOrigin,
  'access-control-allow-methods': contractA.headers.corsAllowMethods,
  'access-control-allow-headers': contractA.headers.corsAllowHeaders,
  vary: contractA.headers.stackVary,
} as const;
