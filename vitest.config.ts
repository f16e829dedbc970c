import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The end-to-end suites each start their own adb server and simulated
    // devices; a generous timeout keeps a slow CI machine from flaking.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
