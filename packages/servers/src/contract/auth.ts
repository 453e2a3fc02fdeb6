import { createHash, timingSafeEqual } from 'node:crypto';
import { contractA } from './contract-a.js';

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();
const expectedDigest = digest(contractA.token);
// Scheme is case-insensitive (RFC 9110 §11.1); one or more spaces; the token must be a token68.
const BEARER = /^bearer +([A-Za-z0-9\-._~+/]+=*)$/i;

/**
 * Checks an `Authorization` header against the contract token.
 * Both sides are hashed to 32 bytes first, so `timingSafeEqual` never sees different lengths
 * and the comparison time does not depend on where (or whether) the strings differ.
 *
 * @example
 * isAuthorized('Bearer YmVuY2gtc2VjcmV0LXRva2Vu') // true
 * isAuthorized('Basic abc') // false
 */
export function isAuthorized(header: string | undefined | null): boolean {
  if (!header) return false;
  const match = BEARER.exec(header);
  if (!match?.[1]) return false;
  return timingSafeEqual(digest(match[1]), expectedDigest);
}

/** Headers sent with every 401. */
export const unauthorizedHeaders = { 'www-authenticate': contractA.headers.wwwAuthenticate } as const;
