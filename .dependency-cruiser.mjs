/**
 * The import rules `npm run check` enforces (docs/ARCHITECTURE.md): no import circles, type-only
 * imports included, and the result layer never imports the run layer. TypeScript is read by swc:
 * TypeScript 7 has no compiler API for dependency-cruiser, and swc keeps every `import type`.
 */
export default {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import circle, type-only imports included: move what both sides need to a module of its own (a small types module).',
      from: {},
      to: { circular: true },
    },
    {
      name: 'result-not-run',
      severity: 'error',
      comment: 'The result document (sdk/src/result/) is read without the run loop: it may not reach any module of sdk/src/run/, directly or through another.',
      from: { path: '^packages/sdk/src/result/' },
      to: { path: '^packages/sdk/src/run/', reachable: true },
    },
  ],
  options: {
    parser: 'swc',
    tsPreCompilationDeps: true,
    // Each package's own files; another package is reached through node_modules and its dist, not followed.
    doNotFollow: { path: ['node_modules', '/dist/'] },
    // Packages by their `exports` (the test kit has nothing else).
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'types', 'default'] },
    exclude: { path: ['(^|/)dist/', '(^|/)node_modules/', '(^|/)\\.venv/', '/test/fixtures/'] },
  },
};
