/** The Episodes view: server-side sort, filters, full-text search, and the way into the inspector. */
import { EPISODE_SORT_COLUMNS, type EpisodeSortColumn } from '../shared/api.ts';
import { expect, test } from './fixtures.ts';

/** Cell text → number for the numeric columns ("$0.0117", "≈$1.27", "1,234"; "—" and a lower bound "≥ $0.12" = null). */
function parseFigure(text: string): number | null {
  const clean = text.replace(/[$≈,\s]/g, '');
  return clean.startsWith('—') || clean.startsWith('≥') || clean === '' ? null : Number(clean);
}

function isOrdered(values: (number | null)[], direction: 'ascending' | 'descending'): boolean {
  const known = values.filter((v): v is number => v !== null);
  const firstNull = values.indexOf(null);
  if (firstNull !== -1 && values.slice(firstNull).some((v) => v !== null)) return false; // NULLS LAST
  return known.every((v, i) => i === 0 || (direction === 'ascending' ? (known[i - 1] as number) <= v : (known[i - 1] as number) >= v));
}

const NUMERIC: Partial<Record<EpisodeSortColumn, true>> = {
  id: true,
  n_turns: true,
  total_cost: true,
  final_score: true,
  n_errors: true,
  n_switches: true,
};

test('shows every episode with a count', async ({ app, episodes, state }) => {
  await app.open('#/episodes');
  await episodes.waitReady();
  const total = state.info.runs.reduce((a, r) => a + r.episodes, 0);
  expect(await episodes.matchCount()).toBe(total);
  await expect(episodes.count).toHaveText(`${total} episodes`);
});

test('every sortable column sorts on the server, both ways', async ({ app, episodes }, testInfo) => {
  test.setTimeout(90_000); // 20 server round trips; slow when the suite runs on four workers
  await app.open('#/episodes');
  await episodes.waitReady();
  // A store's episodes show no number (their ids are hashed keys): its list has no # column.
  const onStore = testInfo.project.name === 'store';
  if (onStore) await expect(episodes.header('id')).toHaveCount(0);
  for (const column of EPISODE_SORT_COLUMNS.filter((c) => !(onStore && c === 'id'))) {
    for (const direction of ['descending', 'ascending'] as const) {
      await episodes.sortBy(column, direction);
      const texts = await episodes.columnTexts(column);
      expect(texts.length, `${column} ${direction}`).toBeGreaterThan(0);
      if (NUMERIC[column]) expect(isOrdered(texts.map(parseFigure), direction), `${column} ${direction}: ${texts.join(' ')}`).toBe(true);
      if (column === 'run' || column === 'ext_id') {
        const sorted = [...texts].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        expect(texts).toEqual(direction === 'ascending' ? sorted : sorted.reverse());
      }
    }
  }
});

test('the most expensive episode comes first when sorted by cost', async ({ app, episodes }) => {
  await app.open('#/episodes');
  await episodes.sortBy('total_cost', 'descending');
  const costs = (await episodes.columnTexts('total_cost')).map(parseFigure);
  expect(costs[0]).toBe(Math.max(...costs.filter((c): c is number => c !== null)));
});

test('filters by outcome, model and run, and clears them', async ({ app, episodes, state }) => {
  await app.open('#/episodes');
  await episodes.waitReady();
  const all = await episodes.matchCount();

  await episodes.setOutcome('Success');
  const successes = await episodes.matchCount();
  expect(successes).toBeGreaterThan(0);
  expect(successes).toBeLessThan(all);
  await expect(episodes.count).toContainText(`of ${all} episodes match`);
  for (const badge of await episodes.rows.getByTestId('outcome').all()) await expect(badge).toHaveAttribute('data-outcome', 'success');

  await episodes.setOutcome('Failure');
  const failures = await episodes.matchCount();
  for (const badge of await episodes.rows.getByTestId('outcome').all()) await expect(badge).toHaveAttribute('data-outcome', 'failure');
  await episodes.setOutcome('Any');
  expect(await episodes.matchCount()).toBe(all);
  expect(successes + failures).toBeLessThanOrEqual(all);

  await episodes.filterModels(['minimax-m2']);
  const withMinimax = await episodes.matchCount();
  expect(withMinimax).toBeGreaterThan(0);
  expect(withMinimax).toBeLessThan(all);
  for (const row of await episodes.rows.all()) await expect(row.locator('[data-model="minimax-m2"]')).toHaveCount(1);

  await app.selectRuns(['hle-router-demo']);
  await episodes.waitReady();
  const hle = state.info.runs.find((r) => r.name === 'hle-router-demo');
  expect(await episodes.matchCount()).toBeLessThanOrEqual(hle?.episodes ?? 0);
  expect(new Set(await episodes.columnTexts('run'))).toEqual(new Set(['hle-router-demo']));

  await episodes.page.getByTestId('clear-filters').click();
  await episodes.waitReady();
  expect(await episodes.matchCount()).toBe(hle?.episodes);
});

test('full-text search finds episodes by what their turns said', async ({ app, episodes }) => {
  await app.open('#/episodes');
  await episodes.waitReady();
  // "use thermometer on water" is an action in boil_0_run1 (fixtures/canonical/example.jsonl).
  await episodes.searchFor('thermometer');
  const hits = await episodes.matchCount();
  expect(hits).toBeGreaterThan(0);
  await expect(episodes.row('boil_0_run1')).toBeVisible();
  await expect(episodes.count).toContainText('match');

  // Markup in an observation is just words to the search (e2e/fixtures/hostile.jsonl).
  await episodes.searchFor('onerror');
  await expect(episodes.row('hostile_0')).toBeVisible();

  await episodes.searchFor('zzqxjv nothing matches this');
  await expect(episodes.page.getByTestId('episodes-empty')).toBeVisible();
  await episodes.page.getByTestId('episodes-empty').getByRole('button', { name: 'Clear filters' }).click();
  await episodes.waitReady();
  await expect(episodes.search).toHaveValue('');
});

test('a row opens the inspector, and Back returns with the filters kept', async ({ app, episodes, inspector, page }) => {
  await app.open('#/episodes');
  await episodes.setOutcome('Success');
  const row = episodes.rows.first();
  const extId = await row.getAttribute('data-ext-id');
  const id = await row.getAttribute('data-episode-id');
  await row.click();
  await inspector.waitReady();
  await expect(page).toHaveURL(new RegExp(`#/episode/${id}/turn/0$`));
  await expect(inspector.title).toHaveText(extId ?? '');
  await page.goBack();
  await episodes.waitReady();
  await expect(page.getByTestId('outcome-filter').getByRole('radio', { name: 'Success' })).toHaveAttribute('aria-checked', 'true');
  await expect(app.rail('episode')).toHaveAttribute('href', new RegExp(`#/episode/${id}`));
});
