import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // PGlite's initdb and the ONNX runtime are CPU-heavy; two cores → two workers.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // New stores start from a template made once per run instead of running initdb (test/global-setup.ts).
    globalSetup: ['test/global-setup.ts'],
  },
});
