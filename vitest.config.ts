import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { useMemoryTmpdir } from './test/memoryTmpdir.ts';

const root = fileURLToPath(new URL('.', import.meta.url));
useMemoryTmpdir();
const SKIP_DIRS = new Set(['node_modules', 'dist', 'e2e', '.git', 'test-results', 'release']);

/**
 * Test files that replace modules or globals (vi.mock, stubbed globals or environment, fake timers, a window of
 * their own): they run each in a fresh module graph. Read from the files themselves, so a new test that mocks is
 * isolated without anyone listing it.
 */
const REPLACES_SHARED_STATE = /\bvi\.(mock|doMock|stubGlobal|stubEnv|useFakeTimers)\b|process\.env(\.\w+|\[[^\]]+\]) = |delete process\.env|globalThis\.window\b/;

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.isDirectory()) return SKIP_DIRS.has(e.name) ? [] : testFiles(join(dir, e.name));
    return /\.test\.tsx?$/.test(e.name) ? [join(dir, e.name)] : [];
  });
}

const isolated = testFiles(root)
  .filter((f) => REPLACES_SHARED_STATE.test(readFileSync(f, 'utf8')))
  .map((f) => relative(root, f).split('\\').join('/'));

const EXCLUDE = ['node_modules/**', 'dist/**', 'e2e/**'];

export default defineConfig({
  test: {
    // Each project says which files it runs: a project extending this config would add to a list set here.
    exclude: EXCLUDE,
    reporters: ['default', './test/summaryReporter.ts'],
    globalSetup: ['./test/buildCli.ts', './test/buildCaseViewer.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default is one worker fewer than the cores: on CI's 2 cores that is a single file at a time, while
    // most of the slow files wait on child processes (the CLI, serve, clickhouse-server) rather than compute.
    maxWorkers: 2,
    projects: [
      // Every other file shares its worker's module graph with the files run before it: importing the same modules
      // afresh for each of ~200 files was a fifth of the suite's time on two cores (455 s → 360 s).
      { extends: true, test: { name: 'shared', include: ['**/*.test.ts', '**/*.test.tsx'], exclude: isolated, isolate: false } },
      { extends: true, test: { name: 'isolated', include: isolated.length > 0 ? isolated : ['no-such-file'], isolate: true } },
    ],
  },
});
