import { defineConfig } from 'vitest/config';

/**
 * `npm run test:reliability`: crash and race suites with real processes, apart from `npm test`
 * because they take minutes. The lock race also runs in `npm test`; here beside the kills.
 */
export default defineConfig({
  test: {
    root: new URL('../..', import.meta.url).pathname,
    include: ['test/reliability/*.reliability.ts', 'test/store/lock-race.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    maxWorkers: 1,
    // As in npm test: days are UTC days on every machine.
    env: { TZ: 'UTC' },
    testTimeout: 1_800_000,
  },
});
