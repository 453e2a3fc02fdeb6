import { createServer as createHttpServer, type Server, type ServerResponse } from 'node:http';
import { answer, contractC, decodePath, matchRoute, methodNotAllowedBody, notFoundBody } from './contract-c.js';

/**
 * Contract C on plain node:http: the cross-language reference of the Python suite. The shared
 * module (contract-c.ts) holds the data, the routing decision and the answers; this file
 * only reads the request and writes the response, as contract A's node-http adapter does.
 */

const JSON_TYPE = contractC.contentTypes.json;

function send(res: ServerResponse, status: number, body: string, contentType: string, extra: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body), ...extra });
  res.end(body);
}

const sendJson = (res: ServerResponse, status: number, value: unknown, extra?: Record<string, string>): void => send(res, status, JSON.stringify(value), JSON_TYPE, extra);

/** Builds the node:http server of contract C (not listening yet). */
export function createServer(): Server {
  return createHttpServer((req, res) => {
    const url = req.url ?? '/';
    const end = url.search(/[?#]/);
    // ASGI servers route on the percent-decoded path (scope["path"]); so do the others here.
    const path = decodePath(end < 0 ? url : url.slice(0, end));
    const match = matchRoute(path);
    if (!match) return sendJson(res, 404, notFoundBody);
    if (!match.route.methods.includes(req.method ?? 'GET')) return sendJson(res, 405, methodNotAllowedBody, { allow: match.route.methods.join(', ') });
    const { contentType, body } = answer(match.route.id, match.params);
    send(res, 200, body, contentType);
  });
}
