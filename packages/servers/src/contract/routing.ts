import { contractA, type ContractRoute } from './contract-a.js';
import { contractError, type ContractError } from './errors.js';

interface CompiledRoute {
  route: ContractRoute;
  segments: string[];
}

const compiled: CompiledRoute[] = contractA.routes.map((route) => ({ route, segments: route.path.split('/') }));

/** A matched route with its raw (still percent-encoded) parameters. */
export interface RouteMatch {
  route: ContractRoute;
  params: Record<string, string>;
}

/**
 * Matches a pathname (no query) against the contract routes: exact, case-sensitive, no
 * trailing-slash folding; a `:param` matches one non-empty segment.
 */
export function matchRoute(pathname: string): RouteMatch | undefined {
  const parts = pathname.split('/');
  outer: for (const { route, segments } of compiled) {
    if (segments.length !== parts.length) continue;
    const params: Record<string, string> = {};
    for (let i = 0; i < segments.length; i++) {
      const seg = segments[i] as string;
      const part = parts[i] as string;
      if (seg.startsWith(':')) {
        if (part === '') continue outer;
        params[seg.slice(1)] = part;
      } else if (seg !== part) continue outer;
    }
    return { route, params };
  }
  return undefined;
}

/** A routing failure: 404, or 405 with the `Allow` value of the path's route. */
export interface RoutingError extends ContractError {
  allow?: string;
}

/**
 * What to answer when the framework found no handler for a request: 405 with `Allow` if the path
 * is a contract route (so only the method was wrong), else 404. Every adapter's not-found hook
 * calls this, so the 404/405 decision is made once.
 *
 * @example
 * notRouted('/ping') // { status: 405, allow: 'GET, HEAD', body: { error: 'method_not_allowed' } }
 */
export function notRouted(pathname: string): RoutingError {
  const match = matchRoute(pathname);
  if (!match) return contractError('not_found');
  return { ...contractError('method_not_allowed'), allow: match.route.methods.join(', ') };
}

// `scheme://authority` of an absolute-form request-target (RFC 9112 §3.2.2).
const ABSOLUTE_FORM = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/;

/**
 * Raw pathname of a request-target, still percent-encoded: `/a/b?x=1` → `/a/b`. The absolute
 * form keeps only its path (`http://h/a?x` → `/a`, as the frameworks' URL parsers do), and a
 * `#fragment`, which no client should send, is dropped.
 */
export function pathnameOf(url: string): string {
  let path = url;
  if (path.charCodeAt(0) !== 47 /* / */) {
    const m = ABSOLUTE_FORM.exec(path);
    if (m) path = path.slice(m[0].length) || '/';
  }
  const end = path.search(/[?#]/);
  return end < 0 ? path : path.slice(0, end);
}

/** Raw query of a request-target (`/a?x=1` → `x=1`, no `?` → empty), without a `#fragment`. */
export function queryOf(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return '';
  const hash = url.indexOf('#', q);
  return hash < 0 ? url.slice(q + 1) : url.slice(q + 1, hash);
}

// A `.` or `..` segment, its dots written plainly or as `%2E` (WHATWG URL treats both alike).
const DOT_SEGMENT = /(?:^|\/)(?:\.|%2e){1,2}(?=\/|$)/i;

/**
 * True when a raw pathname is not one the contract routes, whatever the route table says: a
 * malformed %-escape, a dot segment (`/a/../ping`, `/users/%2E`), a backslash, or no leading
 * `/` (the asterisk form `OPTIONS *`). Each is answered 400 `bad_request` before routing.
 * RFC 3986 clients never send the dot segments or `\`, and URL parsers disagree on them:
 * @hono/node-server resolves dot segments and refuses `\` and `*`, and the other routers take
 * them literally.
 *
 * @example
 * isMalformedPath('/users/..') // true
 * isMalformedPath('/users/a.b') // false
 */
export function isMalformedPath(rawPathname: string): boolean {
  if (rawPathname.charCodeAt(0) !== 47 /* / */ || rawPathname.includes('\\')) return true;
  if (DOT_SEGMENT.test(rawPathname)) return true;
  return hasMalformedEscape(rawPathname);
}

/**
 * For routers that decode or normalize a path before matching it (find-my-way decodes
 * %-escapes, so `/%70ing` would find `/ping`; @hono/node-server's WHATWG URL resolves dot
 * segments): the contract's answer to give before the framework's router runs, else
 * `undefined`. 400 for a malformed path (see `isMalformedPath`); 404 when the path has an
 * escape and matches no route as sent, because an escaped character never matches a literal
 * one of a route. Paths without `%`, `.` or `\` return at once.
 */
export function unroutedRawPath(rawPathname: string): ContractError | undefined {
  if (rawPathname.charCodeAt(0) === 47 /* / */ && !/[%.\\]/.test(rawPathname)) return undefined;
  if (isMalformedPath(rawPathname)) return contractError('bad_request');
  if (rawPathname.includes('%') && !matchRoute(rawPathname)) return contractError('not_found');
  return undefined;
}

/**
 * True when a raw pathname holds a malformed percent-escape (`%ZZ`, a cut `%E0%A4`): the contract
 * answers 400 before routing, whatever the path (Fastify's router does so by itself).
 */
export function hasMalformedEscape(rawPathname: string): boolean {
  if (!rawPathname.includes('%')) return false;
  try {
    decodeURIComponent(rawPathname);
    return false;
  } catch {
    return true;
  }
}
