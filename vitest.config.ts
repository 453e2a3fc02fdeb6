import { defineConfig } from 'vitest/config';

// One project per package; each package's tests sit in packages/<name>/test.
export default defineConfig({
  test: {
    projects: ['packages/sdk', 'packages/servers', 'packages/report', 'packages/cli'],
  },
});
