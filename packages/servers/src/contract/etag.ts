import { createHash } from 'node:crypto';

/**
 * Strong ETag of a response body: the SHA-1 of its bytes in base64url (27 characters), quoted.
 *
 * @example
 * computeEtag('{"ok":true}') // '"…27 chars…"'
 */
export function computeEtag(body: string | Uint8Array): string {
  return `"${createHash('sha1').update(body).digest('base64url')}"`;
}

const opaque = (tag: string): string => (tag.startsWith('W/') ? tag.slice(2) : tag);

/**
 * Evaluates `If-None-Match` against the current ETag (RFC 9110 §13.1.2): `*` matches any
 * representation; otherwise each listed tag is compared with the weak comparison (a `W/` prefix
 * on either side is ignored). True means "answer 304".
 *
 * @example
 * isNotModified('"a", W/"b"', '"b"') // true
 */
export function isNotModified(ifNoneMatch: string | undefined | null, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const trimmed = ifNoneMatch.trim();
  if (trimmed === '*') return true;
  const current = opaque(etag);
  // Entity tags cannot contain commas or spaces, so a split on commas is exact.
  for (const tag of trimmed.split(',')) if (opaque(tag.trim()) === current) return true;
  return false;
}
