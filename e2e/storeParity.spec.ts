/**
 * The window reads the same from a ClickHouse store as from SQLite (the `store` project, issue 39): each view is
 * opened once on both servers globalSetup started over the same logs (`serve --db` and `serve --store`), and what
 * a person reads there — rows, counts, headers, turn lists, figures' marks — must be equal. What the views do with
 * that data (sorting, keys, hover, links) does not depend on the store: the chromium project checks it, once.
 * The API's answers are held equal field by field in electron/services/storeApi.test.ts; this holds the window.
 */
import type { Browser, Page } from '@playwright/test';
import { ANALYSIS_IDS } from '../shared/analysisResults.ts';
import { expect, test } from './fixtures.ts';
import { AnalysesPage, RUNS_FOR } from './pages/AnalysesPage.ts';
import { AppPage } from './pages/AppPage.ts';
import { ComparePage } from './pages/ComparePage.ts';
import { EpisodesPage } from './pages/EpisodesPage.ts';
import { InspectorPage } from './pages/InspectorPage.ts';
import { PairPage } from './pages/PairPage.ts';
import { RunsPage } from './pages/RunsPage.ts';
import { e2eState } from './state.ts';

/** Episodes of every kind the inspector shows differently: a session with a subagent, a sub-agent, a priced-less
 * Codex rollout, mini-swe-agent, MTRouter's own format, the canonical example, simulated, hostile text. */
const EPISODES = [
  '8463c716-a2ea-4c14-9efa-87158ebd9f20',
  '8463c716-a2ea-4c14-9efa-87158ebd9f20/agent-a7be2f0',
  '01996135-afde-7911-97f0-d863511eca56',
  'astropy__astropy-7166',
  'handworked',
  'boil_0_run1',
  'grow-fruit_27_e1',
  'hostile_0',
];

/** One side of the comparison: a page in its own browser context, opened through that server's token URL. */
interface Side {
  app: AppPage;
  page: Page;
}

async function sqliteSide(browser: Browser): Promise<Side> {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  return { app: new AppPage(page, e2eState().url), page };
}

/**
 * Where two readings of the same view differ, beyond what a store keeps differently by design: a normalised score is
 * a Float32 there (schema.ts), so a two-decimal score can read one hundredth apart at an exact half (0.775 → 0.78 in
 * SQLite, 0.77 from the store). Every other word must be equal.
 */
function differences(sqlite: string[], store: string[]): string[] {
  const out: string[] = [];
  if (sqlite.length !== store.length) out.push(`${sqlite.length} lines from SQLite, ${store.length} from the store`);
  for (let i = 0; i < Math.min(sqlite.length, store.length); i++) {
    const a = (sqlite[i] as string).split(' ');
    const b = (store[i] as string).split(' ');
    const same = a.length === b.length && a.every((w, k) => w === b[k] || (/^\d\.\d\d$/.test(w) && /^\d\.\d\d$/.test(b[k] as string) && Math.abs(Number(w) - Number(b[k])) < 0.0101));
    if (!same) out.push(`SQLite: ${sqlite[i]}\nstore:  ${store[i]}`);
  }
  return out;
}

/**
 * An episode row starts with its # column, the database's own row id: SQLite's, which a store (keyed by hashes)
 * does not show.
 */
function withoutRowId(rows: string[]): string[] {
  return rows.map((r) => r.replace(/^\d+ /, ''));
}

/**
 * A search hit's snippet is cut around the words by each engine's own rule (SQLite FTS5's snippet(), the store's
 * window): the episode, the turn, the field and the count of matching turns must agree, the cut may not.
 */
function withoutSnippet(rows: string[]): string[] {
  return rows.map((r) => r.replace(/ …[\s\S]*$/, ''));
}

/** Runs listed in import order: a store imports files in parallel, so they may come in another order. */
function inAnyOrder(rows: string[]): string[] {
  return [...rows].sort();
}

/**
 * Lift's 95% intervals come from a seeded bootstrap over episodes in the order the database returns them, which a
 * store does not share with SQLite: the point estimate and n must agree, the interval's ends may not.
 */
function withoutBootstrapInterval(label: string): string {
  return label.replace(/ \(95% CI [^)]*\)/, ' (95% CI)');
}

/** What a person reads in `testId`'s element: its text with runs of white space made one. */
async function textOf(page: Page, testId: string): Promise<string> {
  return (await page.getByTestId(testId).first().innerText()).replace(/\s+/g, ' ').trim();
}

/** The text of every element with `testId`, in order. */
async function textsOf(page: Page, testId: string): Promise<string[]> {
  return (await page.getByTestId(testId).allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
}

test.describe('a ClickHouse store reads as its SQLite twin', () => {
  let sqlite: Side;
  let store: Side;

  test.beforeEach(async ({ browser, app, page }, testInfo) => {
    test.skip(testInfo.project.name !== 'store', 'parity of the two servers: the store project only');
    sqlite = await sqliteSide(browser);
    store = { app, page };
  });

  /** Each side's own page opened once, so its API calls (ids of episodes and runs) carry its cookie. */
  async function signIn(): Promise<void> {
    for (const side of [sqlite, store]) await side.app.open('#/runs');
  }

  test.afterEach(async () => {
    await sqlite?.page.context().close();
  });

  /**
   * Opens `hash` on both sides, waits with `ready`, and returns both readings. `navigate`: go there inside the page
   * already open (a walk over episodes or figures), instead of loading the app again.
   */
  async function both<T>(
    hash: (side: 'sqlite' | 'store') => Promise<string> | string, read: (s: Side) => Promise<T>, how: 'open' | 'navigate' = 'open',
  ): Promise<{ sqlite: T; store: T }> {
    const out = {} as { sqlite: T; store: T };
    for (const [name, side] of [['sqlite', sqlite], ['store', store]] as const) {
      const target = await hash(name);
      if (how === 'navigate') await side.app.go(target);
      else await side.app.open(target);
      out[name] = await read(side);
    }
    return out;
  }

  test('Runs: every run with the same episodes, turns, models, cost and success', async () => {
    const r = await both(
      () => '#/runs',
      async ({ page }) => {
        await new RunsPage(page).waitReady();
        return { rows: await textsOf(page, 'run-row'), summary: await textOf(page, 'runs-summary') };
      },
    );
    expect(r.store.rows.length).toBe(e2eState().info.runs.length);
    expect(differences(inAnyOrder(r.sqlite.rows), inAnyOrder(r.store.rows))).toEqual([]);
    expect(r.store.summary).toBe(r.sqlite.summary);
  });

  test('Episodes: the same rows in the same order, sorted, filtered by outcome, and found by search', async () => {
    test.setTimeout(120_000);
    const read = async (page: Page) => {
      const episodes = new EpisodesPage(page);
      await episodes.waitReady();
      return { count: await textOf(page, 'episode-count'), rows: (await textsOf(page, 'episode-row')).slice(0, 40) };
    };
    // Sorted by a unique key (the episode's own id), both list the same episodes in the same order.
    const sorted = await both(
      () => '#/episodes',
      async ({ page }) => {
        await new EpisodesPage(page).waitReady();
        await new EpisodesPage(page).sortBy('ext_id', 'ascending');
        return read(page);
      },
    );
    expect(sorted.store.rows.length).toBeGreaterThan(10);
    expect(sorted.store.count).toBe(sorted.sqlite.count);
    expect(differences(withoutRowId(sorted.sqlite.rows), sorted.store.rows)).toEqual([]);

    // Then, on the same pages (the list re-asks its server for each change): the other way, only failures.
    const failed = await both(
      () => '#/episodes',
      async ({ page }) => {
        const episodes = new EpisodesPage(page);
        await episodes.sortBy('ext_id', 'descending');
        await episodes.setOutcome('Failure');
        return read(page);
      },
      'navigate',
    );
    expect(failed.store.count).not.toBe(sorted.store.count); // the filter was applied before the reading
    expect(failed.store.count).toBe(failed.sqlite.count);
    expect(differences(withoutRowId(failed.sqlite.rows), failed.store.rows)).toEqual([]);

    const found = await both(
      () => '#/episodes',
      async ({ page }) => {
        const episodes = new EpisodesPage(page);
        await episodes.setOutcome('Any');
        await episodes.searchFor('error');
        await episodes.sortBy('ext_id', 'ascending');
        return { matches: await episodes.matchCount(), rows: (await textsOf(page, 'episode-row')).slice(0, 40) };
      },
      'navigate',
    );
    expect(found.store.matches).toBeGreaterThan(0);
    expect(found.store.matches).toBe(found.sqlite.matches);
    expect(differences(withoutSnippet(withoutRowId(found.sqlite.rows)), withoutSnippet(found.store.rows))).toEqual([]);
  });

  test('the inspector: the same header, legend, turn list, and turn as read, for every kind of episode', async () => {
    test.setTimeout(180_000);
    await signIn();
    for (const ext of EPISODES) {
      const ids = { sqlite: await sqlite.app.episodeId(ext), store: await store.app.episodeId(ext) };
      const r = await both(
        (name) => `#/episode/${ids[name]}/turn/1`,
        async ({ page }) => {
          const inspector = new InspectorPage(page);
          await expect(inspector.view).toHaveAttribute('data-episode-id', String(page === sqlite.page ? ids.sqlite : ids.store));
          await inspector.waitReady();
          await inspector.expectTurn(1);
          return {
            header: await textOf(page, 'episode-header'),
            legend: await textOf(page, 'model-legend'),
            turns: await textsOf(page, 'turn-item'),
            timeline: await inspector.timelineTurns.count(),
            errors: await inspector.timelineErrors.count(),
            turn: (await inspector.detail.innerText()).replace(/\s+/g, ' ').trim(),
          };
        },
        'navigate',
      );
      expect(r.store.turns.length, ext).toBeGreaterThan(0);
      expect(r.store, ext).toEqual(r.sqlite);
    }
  });

  test('every analysis draws the same marks with the same values', async () => {
    test.setTimeout(240_000);
    await signIn();
    for (const id of ANALYSIS_IDS) {
      const r = await both(
        async (name) => `#/analyses/${id}${await (name === 'sqlite' ? sqlite : store).app.runsQuery(RUNS_FOR[id] ?? [])}`,
        async ({ page }) => {
          const analyses = new AnalysesPage(page);
          await expect(analyses.panel()).toHaveAttribute('data-analysis', id);
          await analyses.waitFigure();
          // A mark's accessible name holds its values and n (what the tooltip shows).
          const labels = await analyses.marks().evaluateAll((marks) => marks.map((m) => m.getAttribute('aria-label') ?? ''));
          return { labels: labels.map((l) => (id === 'lift' ? withoutBootstrapInterval(l) : l)).sort(), legend: await textsOf(page, 'figure-legend') };
        },
        'navigate',
      );
      expect(r.store.labels.length, id).toBeGreaterThan(0);
      expect(r.store, id).toEqual(r.sqlite);
    }
  });

  test('Compare and the split inspector: the same pairing, statistics and aligned turns', async () => {
    test.setTimeout(120_000);
    const compared = await both(
      () => '#/compare',
      async ({ page }) => {
        const cmp = new ComparePage(page);
        await cmp.chooseRuns('a', ['sw-mtrouter']);
        await cmp.chooseRuns('b', ['sw-random', 'sw-gpt-5', 'sw-minimax-m2']);
        await page.getByTestId('compare-counterfactual').selectOption('gpt-5');
        await cmp.compare();
        await expect(cmp.figure('paired-scatter').locator('[data-role="point"]')).toHaveCount(3);
        await expect(cmp.figure('cost-diff').locator('[data-role="bar"]').first()).toBeVisible();
        await expect(cmp.figure('model-cost').locator('[data-role="bar-main"]').first()).toBeVisible();
        return textOf(page, 'compare-result');
      },
    );
    expect(compared.store).toContain('3 paired tasks');
    expect(compared.store).toEqual(compared.sqlite);

    const paired = await both(
      async (name) => {
        const side = name === 'sqlite' ? sqlite : store;
        return `#/pair/${await side.app.episodeId('grow-fruit_27_e1')}/${await side.app.episodeId('grow-fruit_27_e21')}`;
      },
      async ({ page }) => {
        const pair = new PairPage(page);
        await pair.waitReady();
        return {
          header: await textOf(page, 'pair-header'),
          aligned: await pair.grid.getAttribute('data-rows'),
          rows: await textsOf(page, 'pair-row'),
          summary: await textOf(page, 'divergence-summary'),
        };
      },
    );
    expect(paired.store.aligned).toBe('24');
    expect(paired.store.rows.length).toBeGreaterThan(10);
    expect(paired.store).toEqual(paired.sqlite);
  });
});
