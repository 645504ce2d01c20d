/**
 * The logs of everyday agents in the inspector (issue 15): a Claude Code session whose subagent and compaction
 * runs are child episodes nested under the turns that launched them, and a Codex rollout whose cost cannot be
 * known (its model is a custom alias no price list has), shown as unknown, never as $0.
 */
import { expect, test } from './fixtures.ts';

const SESSION = '8463c716-a2ea-4c14-9efa-87158ebd9f20';

test('a Claude Code subagent is nested under the turn that launched it, and links back', async ({ app, inspector, page }) => {
  await app.open('#/runs');
  const id = await app.episodeId(SESSION);
  await app.open(`#/episode/${id}/turn/89`);
  await inspector.waitReady();
  await inspector.expectTurn(89);
  // Launched where the turn made its call, in the conversation.
  const launched = inspector.detail.getByTestId('turn-launched');
  await expect(launched.getByTestId('child-episode')).toHaveCount(1);
  await expect(launched).toContainText(`${SESSION}/agent-a7be2f0`);
  await expect(launched).toContainText('subagent');
  await expect(launched).toContainText('13 turns');
  await expect(page.locator('[data-testid="turn-item"][data-t="89"] [data-testid="flag-launched"]')).toHaveText('↳1');
  // The session's main loop is opus; the subagent's haiku turns are its own, not the session's.
  await expect(inspector.legend.getByTestId('model-chip')).toHaveCount(1);
  await expect(inspector.legend).toContainText('claude-opus-4-6');
  // Tokens include cache reads and writes, priced by the price library: a known cost.
  await expect(page.getByTestId('episode-cost')).not.toHaveAttribute('data-unknown', 'true');
  await expect(inspector.detail.getByTestId('tool-call').first()).toBeVisible();

  await launched.getByRole('link', { name: `${SESSION}/agent-a7be2f0` }).click();
  await inspector.waitReady();
  await expect(inspector.title).toHaveText(`${SESSION}/agent-a7be2f0`);
  await expect(page.getByTestId('episode-turns')).toHaveText('13');
  await expect(inspector.legend).toContainText('claude-haiku-4-5');
  const parent = page.getByTestId('episode-parent');
  await expect(parent).toContainText('subagent of');
  await expect(parent).toContainText('turn 89');
  await parent.getByRole('link').click();
  await inspector.waitReady();
  await inspector.expectTurn(89);
});

test('a session whose model has no known price shows its cost as unknown, never $0', async ({ app, inspector, page }) => {
  await app.open('#/runs');
  const id = await app.episodeId('01996135-afde-7911-97f0-d863511eca56');
  await app.open(`#/episode/${id}/turn/0`);
  await inspector.waitReady();
  // Nothing of its cost is known: unknown, with the calls it could not price (never "≥ $0").
  await expect(page.getByTestId('episode-cost')).toHaveText(/^— \(\d+ calls? unpriced\)$/);
  await expect(page.getByTestId('episode-cost')).toHaveAttribute('data-unknown', 'true');
  await expect(inspector.detail.getByTestId('turn-cost')).toContainText('—');
  await expect(page.getByTestId('timeline-cost')).toHaveCount(0);
});
