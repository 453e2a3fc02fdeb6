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

/** Pathname of a raw request-target (`/a/b?x=1` → `/a/b`). */
export function pathnameOf(url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
}

/** Raw query of a request-target (`/a?x=1` → `x=1`, no `?` → empty). */
export function queryOf(url: string): string {
  const q = url.indexOf('?');
  return q < 0 ? '' : url.slice(q + 1);
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
