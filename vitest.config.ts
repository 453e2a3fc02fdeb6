import { defineConfig } from 'vitest/config';

// One project per package; each package's tests sit in packages/<name>/test.
// Files run one at a time: several of them measure (latency of a delayed server, the loader
// core's busy share, client-bound detection) on the machine's two cores, and a parity file
// loading servers at the same time would make those figures — and the tests — lie.
export default defineConfig({
  test: {
    projects: ['packages/sdk', 'packages/servers', 'packages/history', 'packages/report', 'packages/cli'],
    fileParallelism: false,
    // Every test's scratch folder sits in one folder per run, removed when the run ends.
    globalSetup: ['./scripts/vitest-scratch-root.ts'],
    // After the summary, why tests were skipped (a missing chromium, wrk or python3-venv).
    reporters: ['default', './scripts/vitest-skip-reasons.ts'],
  },
});
