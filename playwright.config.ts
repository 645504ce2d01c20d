/**
 * Browser tests against `routelens serve` (e2e/globalSetup.ts builds a fresh database from the fixtures and
 * starts the server), plus an Electron project that runs only where an Electron binary is installed.
 * Chromium is Debian's (see chromiumExecutable); `npx playwright install` is never needed.
 */
import { existsSync } from 'node:fs';
import { defineConfig } from '@playwright/test';
import { useMemoryTmpdir } from './test/memoryTmpdir.ts';

useMemoryTmpdir();

/**
 * Debian's headless shell (package chromium-headless-shell, the same Chromium without its desktop browser) when it
 * is installed, else Debian's chromium; ROUTELENS_CHROMIUM names another. Opening a view of the app cost the
 * machine 1.3 s of CPU in the shell against 3.4 s in chromium's headless mode, which draws the whole browser
 * (measured here, 2026-11-29): on two cores the browser tests are that CPU.
 */
function chromiumExecutable(): string {
  const chosen = process.env.ROUTELENS_CHROMIUM;
  if (chosen) return chosen;
  return ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium'].find((path) => existsSync(path)) ?? '/usr/bin/chromium';
}

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-dev-shm-usage',
];

/**
 * The window on a ClickHouse store: every view opened once on both servers and read the same (storeParity), and
 * what only a store shows (storeViews). The reading specs' behaviour checks run once, on SQLite: they do not
 * depend on where the data comes from (issue 39; they re-ran here before, a third of the browser tests' time).
 */
const STORE_SPECS = /(storeParity|storeViews)\.spec\.ts/;

export default defineConfig({
  testDir: './e2e',
  outputDir: 'test-results/artifacts',
  globalSetup: './e2e/globalSetup.ts',
  fullyParallel: true,
  forbidOnly: !!process.env.CI,
  retries: 0,
  // Two: the machines this runs on have two cores, and each worker drives a browser and a server.
  workers: 2,
  timeout: 30_000,
  expect: { timeout: 7_000 },
  reporter: [['list'], ['./e2e/summaryReporter.ts']],
  use: {
    viewport: { width: 1440, height: 900 },
    // No trace by default: recording one for every test (to keep it on failure) took a third of the suite's CPU
    // (screencast frames and DOM snapshots) on two cores. PW_TRACE=retain-on-failure records them when debugging.
    trace: (process.env.PW_TRACE as 'off' | 'on' | 'retain-on-failure' | undefined) ?? 'off',
    screenshot: 'only-on-failure',
  },
  projects: [
    {
      name: 'chromium',
      testIgnore: /(electron|storeParity|storeViews)\.spec\.ts/,
      use: {
        browserName: 'chromium',
        launchOptions: { executablePath: chromiumExecutable(), args: CHROMIUM_ARGS },
      },
    },
    {
      // The window served from a 2-shard ClickHouse cluster holding the same logs (issue 19).
      name: 'store',
      testMatch: STORE_SPECS,
      use: {
        browserName: 'chromium',
        launchOptions: { executablePath: chromiumExecutable(), args: CHROMIUM_ARGS },
      },
    },
    {
      name: 'electron',
      testMatch: /electron\.spec\.ts/,
    },
  ],
});
