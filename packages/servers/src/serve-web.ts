/**
 * Runs the Hono server of Contract A on Bun (`Bun.serve`) or Deno (`Deno.serve`) through Hono's
 * own adapters — the idiomatic way on those runtimes, where `dist/serve.js` would run it through
 * their Node compatibility and @hono/node-server instead:
 *
 *   bun dist/serve-web.js hono
 *   deno run -A dist/serve-web.js hono
 *
 * Same contract as serve.js: PORT (0 = any), one `listening on` line, SIGTERM/SIGINT stop it.
 * Bun and Deno hand the app a parsed URL only, so the contract's checks of the request-target as
 * sent see it after normalisation (dot segments resolved): docs/contract-a.md says what differs.
 */
import { createHonoApp, honoBodyLimit } from './adapters/hono.js';
import { contractA, loadContractAConfig } from './contract/index.js';

interface BunServer {
  port: number;
  stop(closeActiveConnections?: boolean): void;
}
interface BunGlobal {
  serve(o: { port: number; hostname: string; fetch: (req: Request, server: unknown) => Response | Promise<Response> }): BunServer;
}
interface DenoGlobal {
  serve(o: { port: number; hostname: string; onListen?: (a: { port: number }) => void }, handler: (req: Request, info: unknown) => Response | Promise<Response>): { shutdown(): Promise<void> };
  env: { get(name: string): string | undefined };
  args: string[];
  exit(code: number): never;
  addSignalListener(signal: string, handler: () => void): void;
}

const g = globalThis as { Bun?: BunGlobal; Deno?: DenoGlobal };
const HOST = '127.0.0.1';
const argv: string[] = g.Deno ? g.Deno.args : process.argv.slice(2);
const port = Number((g.Deno ? g.Deno.env.get(contractA.env.port) : process.env[contractA.env.port]) || 0);

if (argv[0] !== 'hono') {
  console.error('usage: bun dist/serve-web.js hono | deno run -A dist/serve-web.js hono');
  (g.Deno ? g.Deno.exit : process.exit)(2);
}
// Each runtime's own conninfo helper: hono/bun and hono/deno read their runtime's global at import.
const { getConnInfo } = (g.Bun ? await import('hono/bun') : await import('hono/deno')) as {
  getConnInfo: (c: Parameters<Parameters<typeof createHonoApp>[1]['clientAddress']>[0]) => { remote: { address?: string } };
};
const app = createHonoApp(loadContractAConfig(), {
  limitBody: honoBodyLimit(),
  rawTarget: (c) => {
    const u = new URL(c.req.url);
    return `${u.pathname}${u.search}`;
  },
  clientAddress: (c) => getConnInfo(c).remote.address ?? '',
});

if (g.Bun) {
  const server = g.Bun.serve({ port, hostname: HOST, fetch: (req, s) => app.fetch(req, s) });
  console.log(`listening on http://${HOST}:${server.port}`);
  const stop = () => {
    server.stop();
    setTimeout(() => process.exit(0), 100);
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
} else if (g.Deno) {
  const deno = g.Deno;
  const server = deno.serve({ port, hostname: HOST, onListen: (a) => console.log(`listening on http://${HOST}:${a.port}`) }, (req, info) => app.fetch(req, info));
  const stop = () => void server.shutdown().then(() => deno.exit(0));
  deno.addSignalListener('SIGTERM', stop);
  deno.addSignalListener('SIGINT', stop);
} else {
  console.error('serve-web.js runs on Bun or Deno; on Node use dist/serve.js');
  process.exit(2);
}
