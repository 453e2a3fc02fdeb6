import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'servers',
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Refreshes dist/fastapi from external/fastapi and creates its venv when missing or stale;
    // when that fails, the FastAPI tests are skipped with the reason.
    globalSetup: ['test/_gateway-global-setup.ts'],
  },
});
