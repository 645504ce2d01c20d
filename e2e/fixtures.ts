/**
 * The `test` every spec uses: fails a test on any console error, uncaught page error or dialog (an `alert`
 * from log text would be one), and hands out page objects bound to the serve URL from globalSetup.
 */
import { test as base, expect } from '@playwright/test';
import { AnalysesPage } from './pages/AnalysesPage.ts';
import { AppPage } from './pages/AppPage.ts';
import { EpisodesPage } from './pages/EpisodesPage.ts';
import { InspectorPage } from './pages/InspectorPage.ts';
import { RunsPage } from './pages/RunsPage.ts';
import { e2eState, type E2eState } from './state.ts';

interface Options {
  /** Console errors a test expects (e.g. Chromium logging the 404 of an API call that asks for a missing episode). */
  allowedConsoleErrors: RegExp[];
}

interface WorkerFixtures {
  state: E2eState;
}

interface Fixtures {
  problems: string[];
  app: AppPage;
  runs: RunsPage;
  episodes: EpisodesPage;
  inspector: InspectorPage;
  analyses: AnalysesPage;
}

export const test = base.extend<Fixtures & Options, WorkerFixtures>({
  allowedConsoleErrors: [[], { option: true }],
  problems: [
    async ({ page, allowedConsoleErrors, state }, use, testInfo) => {
      testInfo.skip('skip' in state.store && testInfo.project.name === 'store', 'skip' in state.store ? state.store.skip : '');
      const problems: string[] = [];
      page.on('console', (msg) => {
        if (msg.type() !== 'error') return;
        const text = `console error: ${msg.text()} (${msg.location().url})`;
        if (!allowedConsoleErrors.some((re) => re.test(text))) problems.push(text);
      });
      page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
      page.on('dialog', (dialog) => {
        problems.push(`unexpected ${dialog.type()} dialog: ${dialog.message()}`);
        void dialog.dismiss();
      });
      await use(problems);
      expect(problems, 'the page logged errors').toEqual([]);
    },
    { auto: true },
  ],
  // The `store` project's specs (storeParity, storeViews) get `serve --store` (a ClickHouse cluster holding the same logs).
  state: [
    // eslint-disable-next-line no-empty-pattern
    async ({}, use, workerInfo) => {
      const state = e2eState();
      await use(workerInfo.project.name === 'store' && 'url' in state.store ? { ...state, url: state.store.url } : state);
    },
    { scope: 'worker' },
  ],
  app: async ({ page, state }, use) => use(new AppPage(page, state.url)),
  runs: async ({ page }, use) => use(new RunsPage(page)),
  episodes: async ({ page }, use) => use(new EpisodesPage(page)),
  inspector: async ({ page }, use) => use(new InspectorPage(page)),
  analyses: async ({ page }, use) => use(new AnalysesPage(page)),
});

export { expect };
