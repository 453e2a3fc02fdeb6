import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineTarget } from '@benchsuite/sdk';
import { manifests, type NodeTargetName } from './adapters/manifests.js';

const require = createRequire(import.meta.url);

/** Absolute path of the built entry point; the same hop works from `src/` and `dist/`. */
export const serveScript = fileURLToPath(new URL('../dist/serve.js', import.meta.url));
/** Bun.serve / Deno.serve entry point of the Hono server (`--runtime bun`, `--runtime deno`). */
const serveWebScript = fileURLToPath(new URL('../dist/serve-web.js', import.meta.url));

/**
 * Installed version of a package, read from its package.json. Some packages (hono,
 * @hono/node-server) do not export `./package.json`, so the entry point is resolved and the
 * folders above it searched.
 */
export function installedVersion(pkg: string): string {
  try {
    return (require(`${pkg}/package.json`) as { version: string }).version;
  } catch {
    let dir = dirname(require.resolve(pkg));
    for (;;) {
      try {
        const json = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
        if (json.name === pkg && json.version) return json.version;
      } catch {
        // no package.json at this level
      }
      const parent = dirname(dir);
      if (parent === dir) throw new Error(`cannot find the version of ${pkg}`);
      dir = parent;
    }
  }
}

const nodeTarget = <const N extends NodeTargetName>(name: N, framework: string, version: string) =>
  defineTarget({
    kind: 'process',
    name,
    command: [process.execPath, serveScript, name],
    version,
    language: 'javascript',
    framework,
    metadata: { ...manifests[name] },
    supports: ['group:framework'],
    // Hono on Bun and Deno through its own adapters; the other servers through their Node compatibility.
    ...(name === 'hono' ? { runtimeCommands: { bun: [serveWebScript, 'hono'], deno: [serveWebScript, 'hono'] } } : {}),
  });

/**
 * The Node targets of Contract A, keyed by name (the keys are the valid names).
 * Each runs `node dist/serve.js <name>` as its own process.
 *
 * @example
 * nodeTargets.fastify.command // [node, '/…/packages/servers/dist/serve.js', 'fastify']
 */
export const nodeTargets = {
  'node-http': nodeTarget('node-http', 'node:http', process.versions.node),
  express: nodeTarget('express', 'express', installedVersion('express')),
  fastify: nodeTarget('fastify', 'fastify', installedVersion('fastify')),
  hono: nodeTarget('hono', 'hono', installedVersion('hono')),
  // A fairness variant of `hono` (its manifest names what differs), run next to it by default.
  'hono-lean': nodeTarget('hono-lean', 'hono', installedVersion('hono')),
  koa: nodeTarget('koa', 'koa', installedVersion('koa')),
} as const satisfies Record<NodeTargetName, unknown>;

/** The Node targets of Contract A as a list (node-http first: it is the parity reference). */
export const contractATargets = Object.values(nodeTargets);

export type { NodeTargetName };
