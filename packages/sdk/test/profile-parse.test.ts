import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  classifyFrame,
  cpuProfileToCollapsed,
  formatCollapsed,
  nodePackageOf,
  parseCollapsed,
  perfScriptToCollapsed,
  profileSummarySchema,
  pySpyRawToCollapsed,
  pySpyRecordArgs,
  perfRecordArgs,
  pythonPackageOf,
  resolveProfiler,
  summarizeProfile,
  type CollapsedProfile,
  type CpuProfile,
} from '../src/profile/index.js';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/profile/${name}`, import.meta.url), 'utf8');
const collapsed = (text: string): CollapsedProfile => {
  const stacks = parseCollapsed(text);
  return { stacks, unit: 'samples', samples: [...stacks.values()].reduce((a, b) => a + b, 0) };
};

/** Root → main → { burnCpuHot, writeHead }, plus (idle) and (garbage collector); six samples. */
const v8Fixture: CpuProfile = {
  nodes: [
    { id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1 }, children: [2, 4, 5] },
    { id: 2, callFrame: { functionName: 'main', url: 'file:///srv/app/server.js', lineNumber: 9 }, children: [3, 6] },
    { id: 3, callFrame: { functionName: 'burnCpuHot', url: 'file:///srv/app/server.js', lineNumber: 2 } },
    { id: 4, callFrame: { functionName: '(idle)', url: '', lineNumber: -1 } },
    { id: 5, callFrame: { functionName: '(garbage collector)', url: '', lineNumber: -1 } },
    { id: 6, callFrame: { functionName: 'writeHead', url: 'node:_http_server', lineNumber: 340 } },
  ],
  startTime: 1000,
  endTime: 1900,
  samples: [3, 3, 6, 4, 3, 5],
  // sample times 1100, 1200, 1300, 1600, 1700, 1800; each weighs the time to the next (the last: to endTime)
  timeDeltas: [100, 100, 100, 300, 100, 100],
};

describe('V8 .cpuprofile → collapsed stacks', () => {
  it('weighs each sample by the time until the next one, names frames `function (path:line)`, drops (root)', () => {
    const p = cpuProfileToCollapsed(v8Fixture);
    expect(p.unit).toBe('us');
    expect(p.samples).toBe(6);
    expect(p.durationSec).toBeCloseTo(0.0009, 10);
    expect(formatCollapsed(p.stacks)).toBe(
      ['(garbage collector) 100', '(idle) 100', 'main (/srv/app/server.js:10);burnCpuHot (/srv/app/server.js:3) 300', 'main (/srv/app/server.js:10);writeHead (node:_http_server:341) 300', ''].join(
        '\n',
      ),
    );
  });

  it('counts samples when asked to', () => {
    const p = cpuProfileToCollapsed(v8Fixture, { weight: 'samples' });
    expect(p.unit).toBe('samples');
    expect(p.stacks.get('main (/srv/app/server.js:10);burnCpuHot (/srv/app/server.js:3)')).toBe(3);
    expect(p.stacks.get('main (/srv/app/server.js:10);writeHead (node:_http_server:341)')).toBe(1);
  });

  it('handles a 20 000-frame deep stack (no recursion in the converter)', () => {
    const depth = 20_000;
    const nodes: CpuProfile['nodes'] = [{ id: 0, callFrame: { functionName: '(root)', url: '', lineNumber: -1 }, children: [1] }];
    for (let i = 1; i <= depth; i++) nodes.push({ id: i, callFrame: { functionName: 'rec', url: '/r.js', lineNumber: 0 }, children: i < depth ? [i + 1] : [] });
    const p = cpuProfileToCollapsed({ nodes, startTime: 0, endTime: 10, samples: [depth], timeDeltas: [5] });
    const [stack] = [...p.stacks.keys()];
    expect(stack!.split(';')).toHaveLength(depth);
    expect(p.stacks.get(stack!)).toBe(5);
  });

  it('keeps `;` and newlines out of frame names', () => {
    const p = cpuProfileToCollapsed({
      nodes: [
        { id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1 }, children: [2] },
        { id: 2, callFrame: { functionName: 'a;b\nc', url: '/x.js', lineNumber: 0 } },
      ],
      startTime: 0,
      endTime: 2,
      samples: [2],
      timeDeltas: [1],
    });
    expect([...p.stacks.keys()]).toEqual(['a:b c (/x.js:1)']);
  });
});

describe('py-spy raw and perf script → collapsed stacks', () => {
  it('reads py-spy raw output as folded stacks', () => {
    const p = pySpyRawToCollapsed(fixture('py-spy.raw'));
    expect(p.unit).toBe('samples');
    expect(p.samples).toBe(100);
    expect(p.stacks.size).toBe(3);
  });

  it('reverses perf script blocks to root-first, strips +0x offsets, keeps C++ names with spaces', () => {
    const p = perfScriptToCollapsed(fixture('perf.script'));
    expect(p.samples).toBe(4);
    expect(p.durationSec).toBeCloseTo(0.003, 9);
    expect(formatCollapsed(p.stacks).split('\n')).toEqual([
      '[unknown] ([unknown]) 1',
      '__libc_start_main (/usr/lib/x86_64-linux-gnu/libc.so.6);main (/srv/hb/.build/release/App);$s11Hummingbird6RouterV6handle (/srv/hb/.build/release/App) 1',
      'main (/srv/hb/.build/release/App);__write (/usr/lib/x86_64-linux-gnu/libc.so.6);copy_user_generic_string ([kernel.kallsyms]) 1',
      'std::vector<int, std::allocator<int> >::push_back(int const&) (/usr/lib/x86_64-linux-gnu/libstdc++.so.6) 1',
      '',
    ]);
  });

  it('can put the thread name at the root, as [comm]', () => {
    const p = perfScriptToCollapsed(fixture('perf.script'), { includeComm: true });
    expect([...p.stacks.keys()].filter((k) => k.startsWith('[NIO ELT 0];'))).toHaveLength(2);
  });

  it('parses folded text whose frames contain spaces, summing repeated stacks and skipping junk', () => {
    const s = parseCollapsed('a (/x y.js:1);b 3\n\nnot a line\na (/x y.js:1);b 2\nc -1\n');
    expect([...s]).toEqual([['a (/x y.js:1);b', 5]]);
  });
});

describe('frame classification', () => {
  it('finds package names, scoped and nested (pnpm) ones included', () => {
    expect(nodePackageOf('/a/node_modules/@hono/node-server/dist/index.mjs')).toBe('@hono/node-server');
    expect(nodePackageOf('/a/node_modules/.pnpm/hono@4.13.0/node_modules/hono/dist/x.js')).toBe('hono');
    expect(pythonPackageOf('/v/lib/python3.11/site-packages/httpcore/_async/connection.py')).toBe('httpcore');
    expect(pythonPackageOf('/v/lib/python3.11/site-packages/six.py')).toBe('six');
    expect(pythonPackageOf('/v/lib/python3.11/site-packages/_cffi_backend.cpython-311-x86_64-linux-gnu.so')).toBe('_cffi_backend');
  });

  it('tells runtime, gc, idle, kernel, contract, own, other and synthetic frames apart', () => {
    const c = (f: string, o?: Parameters<typeof classifyFrame>[1]) => classifyFrame(f, o);
    expect(c('(idle)')).toEqual({ kind: 'idle', group: 'idle' });
    expect(c('(anonymous)')).toEqual({ kind: 'runtime', group: 'runtime' });
    expect(c('h (/home/me/app (copy)/node_modules/koa/x.js:3)')).toEqual({ kind: 'package', group: 'koa' });
    expect(c('(garbage collector)')).toEqual({ kind: 'runtime', group: 'gc' });
    expect(c('(program)')).toEqual({ kind: 'runtime', group: 'runtime' });
    expect(c('writev')).toEqual({ kind: 'runtime', group: 'runtime' });
    expect(c('read (node:internal/webstreams/readablestream:100)')).toEqual({ kind: 'runtime', group: 'runtime' });
    expect(c('dumps (/root/.pyenv/versions/3.11.7/lib/python3.11/json/__init__.py:183)')).toEqual({ kind: 'runtime', group: 'runtime' });
    expect(c('_find_and_load (<frozen importlib._bootstrap>:1165)')).toEqual({ kind: 'runtime', group: 'runtime' });
    expect(c('__write (/usr/lib/x86_64-linux-gnu/libc.so.6)')).toEqual({ kind: 'runtime', group: 'runtime' });
    expect(c('copy_user_generic_string ([kernel.kallsyms])')).toEqual({ kind: 'kernel', group: 'kernel' });
    expect(c('[unknown] ([unknown])')).toEqual({ kind: 'other', group: 'other' });
    expect(c('process 12:"python run.py"')).toEqual({ kind: 'meta', group: 'meta' });
    expect(c('[node]')).toEqual({ kind: 'meta', group: 'meta' });
    expect(c('validate (/w/packages/servers/src/contract/validation.ts:5)')).toEqual({ kind: 'contract', group: 'contract' });
    expect(c('handler (/w/packages/servers/dist/adapters/koa.js:5)')).toEqual({ kind: 'own', group: 'own' });
    // with own prefixes, other files are `other`, and a dependency folder below an own prefix stays a package
    const own = { own: ['/srv/app/'] };
    expect(c('h (/srv/app/main.js:1)', own)).toEqual({ kind: 'own', group: 'own' });
    expect(c('h (/elsewhere/main.js:1)', own)).toEqual({ kind: 'other', group: 'other' });
    expect(c('route (/srv/app/node_modules/fastify/lib/route.js:1)', own)).toEqual({ kind: 'package', group: 'fastify' });
    // another repository's contract, by relative and absolute prefix
    expect(c('v (/r/shared/contract/v.js:1)', { contract: ['shared/contract/'] })).toEqual({ kind: 'contract', group: 'contract' });
    expect(c('v (/r/shared/contract/v.js:1)', { contract: ['/r/shared/'] })).toEqual({ kind: 'contract', group: 'contract' });
    expect(c('v (/w/packages/servers/src/contract/v.ts:1)', { contract: [] })).toEqual({ kind: 'own', group: 'own' });
  });
});

describe('summarizeProfile: per-package aggregation on a fixed collapsed-stack fixture', () => {
  const profile = collapsed(fixture('packages.collapsed'));

  it('gives self and total shares of busy time by package, idle reported apart', () => {
    const s = summarizeProfile(profile, { profiler: 'node' });
    expect(profileSummarySchema.parse(s)).toEqual(s);
    expect(s.weight).toBe(450);
    expect(s.idle).toBe(0.1111); // 50 of 450, in no other share
    expect(s.byPackage).toEqual([
      { name: 'runtime', kind: 'runtime', self: 0.275, total: 0.275 }, // (program) 10 + runMicrotasks 20 + webstreams read 80, of 400
      { name: 'contract', kind: 'contract', self: 0.25, total: 0.25 },
      { name: 'fast-json-stringify', kind: 'package', self: 0.225, total: 0.225 },
      { name: 'own', kind: 'own', self: 0.15, total: 0.825 }, // serve.js is on every request stack
      { name: 'gc', kind: 'runtime', self: 0.1, total: 0.1 },
      { name: '@hono/node-server', kind: 'package', self: 0, total: 0.2 },
      { name: 'fastify', kind: 'package', self: 0, total: 0.375 },
      { name: 'hono', kind: 'package', self: 0, total: 0.2 },
    ]);
    expect(s.byPackage.reduce((a, g) => a + g.self, 0)).toBeCloseTo(1, 10);
    expect(s.top.map((f) => [f.name.split(' ')[0], f.self])).toEqual([
      ['validate', 0.25],
      ['serialize', 0.225],
      ['read', 0.2],
      ['handler', 0.15],
      ['(garbage', 0.1],
      ['runMicrotasks', 0.05],
      ['(program)', 0.025],
    ]);
    // handler is a leaf on one stack and on the validate stack below it: total counts both
    expect(s.top.find((f) => f.name.startsWith('handler'))!.total).toBe(0.4);
  });

  it('follows the own and contract prefixes it is given', () => {
    const s = summarizeProfile(profile, { profiler: 'node', own: ['/app/packages/servers/dist/adapters/'], contract: [] });
    const g = Object.fromEntries(s.byPackage.map((x) => [x.name, [x.self, x.total]]));
    // only the adapter is own now; validate.js (no contract prefix) and serve.js (outside `own`) are other
    expect(g.own).toEqual([0.15, 0.4]);
    expect(g.other).toEqual([0.25, 0.825]);
    expect(g.contract).toBeUndefined();
  });

  it('summarizes the V8 fixture: ties broken by name, idle left out', () => {
    const s = summarizeProfile(cpuProfileToCollapsed(v8Fixture), { profiler: 'node', top: 2 });
    expect(s.idle).toBe(0.125);
    expect(s.top).toEqual([
      { name: 'burnCpuHot (/srv/app/server.js:3)', group: 'own', self: 0.4286, total: 0.4286 },
      { name: 'writeHead (node:_http_server:341)', group: 'runtime', self: 0.4286, total: 0.4286 },
    ]);
    expect(s.byPackage.map((g) => [g.name, g.self, g.total])).toEqual([
      ['own', 0.4286, 0.8571],
      ['runtime', 0.4286, 0.4286],
      ['gc', 0.1429, 0.1429],
    ]);
  });

  it('summarizes py-spy output, ignoring its process frames', () => {
    const s = summarizeProfile(pySpyRawToCollapsed(fixture('py-spy.raw')), { profiler: 'py-spy' });
    expect(s.top[0]).toEqual({ name: 'has_expired (/srv/gw/.venv/lib/python3.11/site-packages/httpcore/_async/connection.py:90)', group: 'httpcore', self: 0.7, total: 0.7 });
    expect(s.byPackage.map((g) => [g.name, g.self, g.total])).toEqual([
      ['httpcore', 0.7, 0.7],
      ['runtime', 0.3, 0.3],
      ['own', 0, 1],
      ['uvicorn', 0, 0.9],
    ]);
  });

  it('summarizes perf output: own binary, libc, kernel, unresolved', () => {
    const s = summarizeProfile(perfScriptToCollapsed(fixture('perf.script')), { profiler: 'perf' });
    expect(s.byPackage.map((g) => [g.name, g.kind, g.self, g.total])).toEqual([
      ['kernel', 'kernel', 0.25, 0.25],
      ['other', 'other', 0.25, 0.25],
      ['own', 'own', 0.25, 0.5],
      ['runtime', 'runtime', 0.25, 0.75],
    ]);
  });

  it('an npm package named like a kind stays a separate group', () => {
    const s = summarizeProfile(collapsed('f (/a/node_modules/runtime/i.js:1) 1\n(program) 1\n'), { profiler: 'x' });
    expect(s.byPackage).toEqual([
      { name: 'runtime', kind: 'package', self: 0.5, total: 0.5 },
      { name: 'runtime', kind: 'runtime', self: 0.5, total: 0.5 },
    ]);
  });

  it('an empty profile summarizes to zeros', () => {
    const s = summarizeProfile({ stacks: new Map(), unit: 'samples', samples: 0 }, { profiler: 'x' });
    expect(s).toMatchObject({ weight: 0, idle: 0, top: [], byPackage: [] });
  });
});

describe('profiler commands and choice', () => {
  it('builds py-spy and perf command lines', () => {
    expect(pySpyRecordArgs(42, '/o/p.txt', { rate: 250, durationSec: 2.2 })).toEqual([
      'record',
      '--pid',
      '42',
      '--rate',
      '250',
      '--duration',
      '3',
      '--format',
      'raw',
      '--function',
      '--full-filenames',
      '--subprocesses',
      '--output',
      '/o/p.txt',
    ]);
    expect(perfRecordArgs([7, 9], '/o/perf.data', { frequency: 999, durationSec: 5, controlFd: [3, 4] })).toEqual([
      'record',
      '-q',
      '-e',
      'cpu-clock',
      '-F',
      '999',
      '-g',
      '-D',
      '-1',
      '--control=fd:3,4',
      '-p',
      '7,9',
      '-o',
      '/o/perf.data',
      '--',
      'sleep',
      '5',
    ]);
  });

  it("picks node for Node commands, py-spy for Python, perf otherwise, or the target's own", () => {
    expect(resolveProfiler('auto', [process.execPath, 'server.js']).name).toBe('node');
    expect(resolveProfiler('auto', ['node', 'server.js']).name).toBe('node');
    expect(resolveProfiler('auto', ['/srv/.venv/bin/python3.11', 'run.py']).name).toBe('py-spy');
    expect(resolveProfiler('auto', ['./hummingbird-gateway']).name).toBe('perf');
    const mine = { name: 'mine', available: async () => true as const, start: async () => ({ stop: async () => ({ stacks: new Map(), unit: 'samples' as const, samples: 0 }) }) };
    expect(resolveProfiler(mine, ['node'])).toBe(mine);
    expect(resolveProfiler('perf', ['node']).name).toBe('perf');
  });
});
