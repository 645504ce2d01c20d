/**
 * The policy lab and the step debugger on the e2e database. `sw-router-demo` (fixtures/canonical/example.jsonl)
 * logs propensities and router scores, so replay has OPE numbers and ŝ from the log; `long_0`
 * (e2e/fixtures/hostile.jsonl) has errors at turns 7, 15, 22, 31 and 38.
 */
import { readFileSync } from 'node:fs';
import { expect, test } from './fixtures.ts';
import { PolicyLabPage, StepDebuggerPage } from './pages/PolicyLabPage.ts';

test('replays three policies: the table lists each, the figure draws them, the CSV has them', async ({ app, page }) => {
  const lab = new PolicyLabPage(page);
  await app.open('#/policy');
  await app.selectRuns(['sw-router-demo']);
  await lab.choosePolicies(['logged', 'cheapest']);

  // A free spec is checked as it is typed.
  await lab.specInput.fill('fixed:gpt-6');
  await expect(lab.specMessage).toContainText('No model “gpt-6” in this database');
  await expect(lab.specAdd).toBeDisabled();
  await lab.specInput.fill('cost-aware:-1');
  await expect(lab.specMessage).toContainText('LAMBDA must be a number ≥ 0');
  await lab.typeSpec('fixed:gpt-5');
  await lab.typeSpec('random:3');
  await expect(lab.chips).toHaveCount(4);

  await lab.replay();
  await expect(lab.resultRows).toHaveCount(4);
  await expect(page.getByTestId('replay-scope')).toContainText('6 episodes');
  // The logged policy agrees with the log everywhere; the others do not.
  await expect(lab.row('logged').locator('[data-col="agreement"]')).toContainText('100%');
  await expect(lab.row('cheapest').locator('[data-col="agreement"]')).not.toContainText('100%');
  // This run logs propensities: IPS has a value with a CI for the logged policy.
  await expect(lab.row('logged').locator('[data-col="ips"]')).toContainText('–');
  // A policy that departs from the logged choices in every episode has no support in the log: no IPS, said so
  // (it read "0.000 [0, 0]", a policy that always fails).
  await expect(lab.row('cheapest').locator('[data-col="ips"]')).toHaveText('no support');
  await expect(lab.row('cheapest').locator('[data-col="dr"] [data-support="none"]')).toHaveAttribute('title', /departs from the logged choices in all 6 episodes/);
  // No estimator scored it: the view says how to get one.
  await expect(page.getByTestId('no-estimator')).toContainText('routelens score --db');
  await expect(lab.frontier.locator('[data-role="point"]').first()).toBeVisible();
  // Random reweights 6 episodes to an effective 2.9: its IPS is kept for the record but read as insufficient
  // support, and the figure under IPS leaves it out, saying why, instead of plotting it as the policy's score.
  await expect(lab.row('random:3').locator('[data-col="ips"]')).toHaveText('insufficient support');
  await page.getByTestId('estimator-ips').click();
  await expect(lab.frontier.locator('[data-role="note"]', { hasText: 'Not drawn: random:3 (insufficient support' })).toHaveCount(1);
  await expect(lab.frontier.locator('[data-role="note"]', { hasText: 'Not drawn: cheapest (no support' })).toHaveCount(1);
  await page.getByTestId('estimator-best').click();

  const download = page.waitForEvent('download');
  await page.getByTestId('replay-csv').click();
  const file = await (await download).path();
  const csv = readFileSync(file, 'utf8').trim().split('\r\n');
  expect(csv[0]).toMatch(/^policy,label,episodes/);
  expect(csv.slice(1).map((l) => l.split(',')[0])).toEqual(['logged', 'cheapest', 'fixed:gpt-5', 'random:3']);
});

test('the paired diff lists where two policies disagree, and a click opens that turn', async ({ app, inspector, page }) => {
  const lab = new PolicyLabPage(page);
  await app.open('#/policy');
  await app.selectRuns(['sw-router-demo']);
  await lab.choosePolicies(['logged', 'cheapest']);
  await lab.compare('logged', 'cheapest');
  await expect(page.getByTestId('diff-disagreements')).toContainText('of 56 turns');
  const first = lab.diffRows.first();
  await expect(first).toBeVisible();
  const episodeId = await first.getAttribute('data-episode-id');
  const t = Number(await first.getAttribute('data-t'));
  await first.click();
  await inspector.waitReady();
  await inspector.expectTurn(t);
  await expect(page).toHaveURL(new RegExp(`#/episode/${episodeId}/turn/${t}`));

  // Back in the lab, the diff is still there.
  await page.goBack();
  await expect(lab.diffRows.first()).toBeVisible();
});

test('two runs of the same tasks are diffed turn by turn, and either side’s episode opens', async ({ app, inspector, page }) => {
  await app.open('#/policy');
  await page.getByTestId('diff-mode-runs').click();
  await page.getByTestId('diff-run-a').selectOption({ label: 'sw-mtrouter' });
  await page.getByTestId('diff-run-b').selectOption({ label: 'sw-random' });
  await page.getByTestId('diff-run').click();
  await expect(page.getByTestId('diff-summary')).toContainText('Task pairs');
  await expect(page.getByTestId('diff-caption')).toContainText('A = sw-mtrouter, B = sw-random');
  const row = new PolicyLabPage(page).diffRows.first();
  const t = Number(await row.getAttribute('data-t'));
  const bLink = row.getByRole('link', { name: 'B', exact: true });
  const bHref = await bLink.getAttribute('href');
  await bLink.click();
  await inspector.waitReady();
  await inspector.expectTurn(t);
  expect(await app.hash()).toBe(bHref);
});

test.describe('the step debugger', () => {
  test('stops at the next error, plays on to the one after, and steps by hand', async ({ app, inspector, page }) => {
    const dbg = new StepDebuggerPage(page);
    await app.open('#/runs');
    const id = await app.episodeId('long_0');
    await app.open(`#/episode/${id}/turn/0`);
    await inspector.waitReady();
    await dbg.breakOn(['error']);
    await page.keyboard.press('c');
    await inspector.expectTurn(7);
    await expect(dbg.status).toHaveText('Stopped at turn 7: error.');

    await page.getByLabel('Play speed').selectOption('8');
    await dbg.play.click();
    await inspector.expectTurn(15);
    await expect(dbg.status).toHaveText('Stopped at turn 15: error.');
    await expect(dbg.panel).toHaveAttribute('data-stop', 'breakpoint');

    await page.getByTestId('debugger-step').click();
    await inspector.expectTurn(16);
    await page.getByTestId('debugger-prev-break').click();
    await inspector.expectTurn(15);
  });

  test('breaks where the regret of the logged choice is above the threshold, and where a policy disagrees', async ({ app, inspector, page, state }) => {
    const dbg = new StepDebuggerPage(page);
    await app.open('#/runs');
    const id = await app.episodeId('boil_0_run1');
    // What the core says of this episode, to compare the debugger with.
    const res = await page.request.post(`${new URL(state.url).origin}/api/episodePolicyChoices`, { data: { episode: id, policies: ['cheapest'] } });
    const body = (await res.json()) as { value: { turns: { t: number; logged: string; regret: number | null; choices: string[] }[] } };
    const turns = body.value.turns;
    const firstRegret = turns.find((r) => r.t > 0 && r.regret !== null && r.regret > 0.1)?.t;
    const firstDisagree = turns.find((r) => r.t > 0 && r.choices[0] !== r.logged)?.t;
    expect(firstRegret).toBeDefined();
    expect(firstDisagree).toBeDefined();

    await app.open(`#/episode/${id}/turn/0`);
    await inspector.waitReady();
    await dbg.open();
    await expect(page.getByTestId('debugger-candidate')).not.toHaveCount(0);
    await dbg.breakOn(['regret']);
    await page.getByTestId('bp-regret-threshold').fill('0.1');
    await page.getByTestId('debugger-next-break').click();
    await inspector.expectTurn(firstRegret as number);
    await expect(dbg.status).toContainText('regret above threshold');

    await app.open(`#/episode/${id}/turn/0`);
    await inspector.waitReady();
    await dbg.breakOn(['disagree']);
    await page.getByTestId('bp-policy').fill('cheapest');
    await expect(page.getByTestId('debugger-hits')).toBeVisible();
    await page.getByTestId('debugger-next-break').click();
    await inspector.expectTurn(firstDisagree as number);
    await expect(dbg.status).toContainText('policy disagrees');
    await expect(page.locator('.tag-policy')).toHaveText('cheapest');
  });
});

test.describe('runs without any ŝ', () => {
  // The refused replay is an input error: Chromium logs the 400 of that call.
  test.use({ allowedConsoleErrors: [/status of 400 .*\/api\/replay\)$/] });

  test('the lab says how to score them and replays what it can', async ({ app, page }) => {
    const lab = new PolicyLabPage(page);
    await app.open('#/policy');
    await app.selectRuns(['mini-swe-agent']);
    await lab.choosePolicies(['logged', 'argmax', 'cheapest']);
    await lab.replayButton.click();
    const notice = page.getByTestId('needs-scores');
    await expect(notice).toContainText('argmax chooses by ŝ');
    await expect(notice.locator('pre')).toHaveText(/^routelens score --db \S+e2e\.db --model models\/default-estimator\.onnx$/);
    await page.getByTestId('drop-score-policies').click();
    await expect(lab.view).toHaveAttribute('data-state', 'done', { timeout: 20_000 });
    await expect(lab.resultRows).toHaveCount(2);
    await expect(page.getByTestId('no-estimator')).toContainText('No estimator has scored these runs.');
    // No propensities in these logs: the OPE columns are empty and the note says why.
    await expect(lab.row('cheapest').locator('[data-col="ips"]')).toHaveText('—');
    await expect(page.getByTestId('ope-note')).toContainText('none of the 4 replayed episodes has a logged propensity');
  });
});
