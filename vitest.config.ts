import { configDefaults, defineConfig } from 'vitest/config';

// The stress tests kill and restart hosts at random moments and time their kills to a
// command's start: they run last, one file at a time, with the machine to themselves.
const STRESS = ['test/faults/chaos.test.ts', 'test/faults/crash-loop.test.ts'];

// TETHER_TEST_HOST_BROWSER_ONLY=1 (.ci/run's second pass, on Node 24: it says why) runs of
// test/browser only the files whose subject is the host as a browser sees it.
const HOST_BROWSER_FILES = ['run-flow', 'host-restart'];
const PAGE_FILES =
  process.env['TETHER_TEST_HOST_BROWSER_ONLY'] === '1'
    ? [`test/browser/!(${HOST_BROWSER_FILES.join('|')}).test.ts`]
    : [];

export default defineConfig({
  test: {
    pool: 'forks',
    // zod's English issue messages, as the host's and the CLI's entries set them.
    setupFiles: ['test/support/issue-messages.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'suite',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...STRESS, ...PAGE_FILES],
          // Most files wait on sockets, child processes and Chromium, not on the CPU: two at
          // a time (vitest's default on 2 cores is one, which took ~10 minutes).
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'stress',
          include: STRESS,
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
