import { defineProject } from 'vitest/config';

export default defineProject({
  test: { name: 'servers', include: ['test/**/*.test.ts'], testTimeout: 60_000, hookTimeout: 60_000,
    // Creates external/fastapi/.venv for the gateway tests when missing or stale.
    globalSetup: ['test/_gateway-global-setup.ts'] },
});
