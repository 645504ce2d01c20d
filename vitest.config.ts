import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['**/*.test.ts', '**/*.test.tsx'],
    exclude: ['node_modules/**', 'dist/**', 'e2e/**'],
    reporters: ['default', './test/summaryReporter.ts'],
    globalSetup: ['./test/buildCli.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default is one worker fewer than the cores: on CI's 2 cores that is a single file at a time, while
    // most of the slow files wait on child processes (the CLI, serve, clickhouse-server) rather than compute.
    maxWorkers: 2,
  },
});
