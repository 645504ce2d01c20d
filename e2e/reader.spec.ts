/**
 * Reading a turn (issue 17 items 1 and 9), in a database of its own written here: a message and reasoning in
 * markdown with fenced code and a table, a shell command, a tool call with JSON input, a system prompt and a
 * task, an observation of 300 numbered lines with a word only in its hidden part, a 1 MB observation, and a
 * message whose HTML must show as text.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { AppPage } from './pages/AppPage.ts';
import { cli, freePort, startServe, type ServeProcess } from './serveProcess.ts';
import { expect, test } from './fixtures.ts';

const SYSTEM_PROMPT = 'You are a careful agent.\n\n## Rules\n\n- Run **one** command per turn.\n- Never guess.';
const TASK = 'Fix the `parse()` bug in *src/a.py* (the okapi case).';
const MESSAGE = 'Here is the plan:\n\n```python\ndef plan():\n    return 42\n```\n\n| step | what |\n|---|---|\n| 1 | look |';
const REASONING = 'I should **look** before editing.';
const COMMAND = 'ls -la src/ && grep -n "def parse" src/a.py';
const NUMBERED = Array.from({ length: 300 }, (_, i) => (i === 250 ? 'line 250: zebrafish-marker' : i === 280 ? 'line 280: okapi-trace' : `line ${i}: output`)).join('\n');
const MEGABYTE = Array.from({ length: 16_384 }, (_, i) => `${String(i).padStart(6, '0')} ${'x'.repeat(56)}`).join('\n');
const THOUGHT_ACTION = 'THOUGHT: read the file.\n\n```bash\ncat src/a.py\n```';
// A Claude Code response: the action is the importer's digest of the calls, the observation their results joined.
const SHELL_INPUT = JSON.stringify({ command: 'npm test -- --grep parse', description: 'Run the parser tests' });
const CALLS_TURN = {
  action: { type: 'tool', tool: 'bash', text: 'bash: npm test -- --grep parse\nRead src/a.py' },
  tool_calls: [
    { id: 'c4', name: 'Bash', input: SHELL_INPUT, result: '2 passing' },
    { id: 'c5', name: 'Read', input: '{"file_path":"src/a.py"}', result: 'def parse(x):\n    return x' },
  ],
  observation: '2 passing\n\ndef parse(x):\n    return x',
};
const HOSTILE_MESSAGE = 'See <img src=x onerror="window.__pwned=1"> and [this](javascript:window.__pwned=2).';

function readerEpisode(): string {
  const turn = (t: number, extra: Record<string, unknown>) => ({
    t,
    model: 'gpt-5',
    tokens: { in: 100, out: 10 },
    cost_usd: 0.001,
    observation: 'ok',
    action: { type: 'tool', tool: 'bash', text: COMMAND },
    ...extra,
  });
  return JSON.stringify({
    schema: 'routelens/v1',
    run: 'reader-run',
    episode_id: 'reader_0',
    system_prompt: SYSTEM_PROMPT,
    task: { id: 'reader_0', type: 'swe', text: TASK },
    outcome: { success: true },
    turns: [
      turn(0, {
        reasoning: REASONING,
        message: MESSAGE,
        observation: NUMBERED,
        tool_calls: [{ id: 'c1', name: 'read_file', input: '{"path":"src/a.py","lines":[1,20]}', result: 'def parse(x):\n    return x' }],
      }),
      turn(1, { observation: MEGABYTE }),
      turn(2, { action: { type: 'tool', tool: 'bash', text: THOUGHT_ACTION }, tool_calls: [{ name: 'bash', input: 'cat src/a.py', result: 'ok' }] }),
      turn(3, { message: HOSTILE_MESSAGE }),
      turn(4, CALLS_TURN),
    ],
  });
}

let dir = '';
let server: ServeProcess | null = null;

test.beforeAll(async () => {
  test.setTimeout(120_000);
  dir = mkdtempSync(join(tmpdir(), 'routelens-reader-'));
  const file = join(dir, 'reader.jsonl');
  writeFileSync(file, `${readerEpisode()}\n`);
  cli(['import', file, '--db', join(dir, 'reader.db')]);
  server = await startServe(join(dir, 'reader.db'), await freePort());
});

test.afterAll(async () => {
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function openTurn(page: Page, t: number, query = ''): Promise<AppPage> {
  const app = new AppPage(page, server?.url ?? '');
  await app.open('#/runs');
  const id = await app.episodeId('reader_0');
  await app.open(`#/episode/${id}/turn/${t}${query}`);
  return app;
}

test('a message and reasoning render as markdown with highlighted code; the command as code; markup stays text', async ({ page, inspector }) => {
  await openTurn(page, 0);
  await inspector.waitReady();
  const message = inspector.block('turn-message');
  await expect(message.text.locator('td')).toHaveText(['1', 'look']);
  await expect(message.text.locator('pre code.language-python .hljs-keyword')).toHaveText(['def', 'return']);
  await expect(message.text).not.toContainText('```');
  // Reasoning is folded to its first line; its markdown is there for the browser's find.
  await expect(inspector.detail.getByTestId('turn-reasoning-fold')).not.toHaveAttribute('open');
  await expect(inspector.block('turn-reasoning').text.locator('strong')).toHaveText('look');
  // A shell command is highlighted code, its text exactly as logged.
  const action = inspector.block('turn-action');
  await expect(action.root).toHaveAttribute('data-format', 'code');
  expect(await action.text.evaluate((el) => el.textContent)).toBe(COMMAND);
  // The tool call's arguments are laid out one a line, name then value; its result is terminal text.
  await expect(inspector.detail.getByTestId('tool-call-input')).toHaveAttribute('data-format', 'arguments');
  await expect(inspector.detail.getByTestId('tool-call-arg').locator('.cv-arg-name')).toHaveText(['path', 'lines']);
  await expect(inspector.detail.getByTestId('tool-call-arg').locator('.cv-arg-value')).toHaveText(['src/a.py', '[1,20]']);
  await expect(inspector.detail.getByTestId('tool-call-result-text')).toHaveText('def parse(x):\n    return x');
  // The observation is what the terminal printed: plain monospace, no markdown.
  await expect(inspector.block('turn-observation').root).toHaveAttribute('data-format', 'terminal');

  // mini-swe-agent's response (THOUGHT, then a fenced command): the thought is the model's words, the command the
  // call it made (logged as a call too: shown once).
  await page.keyboard.press('j');
  await inspector.expectTurn(1);
  await page.keyboard.press('j');
  await inspector.expectTurn(2);
  await expect(inspector.block('turn-message').text).toHaveText('read the file.');
  await expect(inspector.block('turn-action').root).toHaveCount(0);
  await expect(inspector.block('tool-call-input').root).toHaveAttribute('data-format', 'code');
  await expect(inspector.block('tool-call-input').text.locator('code.language-bash')).toHaveText('cat src/a.py');
  await expect(inspector.detail).not.toContainText('```');
  // Its observation is the tool's result (as Claude Code logs it): said once, with the call.
  await expect(inspector.detail.getByTestId('tool-call-result-text')).toHaveText('ok');
  await expect(inspector.block('turn-observation').root).toHaveCount(0);

  await page.keyboard.press('j');
  await inspector.expectTurn(3);
  await expect(inspector.block('turn-message').text).toContainText('<img src=x onerror="window.__pwned=1">');
  await expect(page.locator('#root img, #root a[href^="javascript"]')).toHaveCount(0);
  expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined();
});

test('a response with tool calls shows each call once: a shell call as its command, the digest and joined results not repeated', async ({ page, inspector }) => {
  await openTurn(page, 4);
  await inspector.waitReady();
  // The action is only the digest of the calls the turn list shows: not a block of its own here.
  await expect(inspector.block('turn-action').root).toHaveCount(0);
  const inputs = inspector.detail.getByTestId('tool-call-input');
  await expect(inputs).toHaveCount(2);
  // The shell call reads as the command it ran, highlighted, with its description beside the tool's name.
  await expect(inputs.first()).toHaveAttribute('data-format', 'code');
  await expect(inputs.first().locator('code.language-bash')).toHaveText('npm test -- --grep parse');
  await expect(inputs.first().getByTestId('tool-call-args')).toHaveText('description: Run the parser tests');
  await expect(inputs.nth(1).locator('.cv-arg-name')).toHaveText('file_path');
  await expect(inspector.detail.getByTestId('tool-call-result-text')).toHaveText(['2 passing', 'def parse(x):\n    return x']);
  await expect(inspector.block('turn-observation').root).toHaveCount(0);
});

test('the conversation opens with the system prompt, folded to its first line, and the task, above the first turn', async ({ page, inspector }) => {
  await openTurn(page, 0);
  await inspector.waitReady();
  const fold = inspector.opening.getByTestId('system-prompt-fold');
  await expect(fold).not.toHaveAttribute('open');
  await expect(fold.locator('summary')).toContainText('You are a careful agent.');
  await fold.locator('summary').click();
  await expect(fold).toHaveAttribute('open', '');
  const prompt = inspector.block('system-prompt', inspector.opening);
  await expect(prompt.text.locator('h2')).toHaveText('Rules');
  await expect(prompt.text.locator('li strong')).toHaveText('one');
  await expect(inspector.block('turn-task', inspector.opening).text.locator('code')).toHaveText('parse()');
  // Then turn 0, below them.
  const task = await inspector.opening.boundingBox();
  const turn0 = await inspector.detail.boundingBox();
  expect((turn0?.y ?? 0) + 1).toBeGreaterThanOrEqual((task?.y ?? 0) + (task?.height ?? 0));
});

test('the turn number is the log\'s, said once', async ({ page, inspector }) => {
  await openTurn(page, 2);
  await inspector.waitReady();
  await expect(inspector.turnTitle).toHaveText('Turn 2');
  await expect(page.getByTestId('turn-list').locator('[data-t="2"] .turn-item-t')).toHaveText('2');
});

test('copy buttons copy the block\'s whole text, collapsed part included', async ({ page, inspector, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await openTurn(page, 0);
  await inspector.waitReady();
  const action = inspector.block('turn-action');
  await action.copy.click();
  await expect(action.copy).toHaveAttribute('data-state', 'copied');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(COMMAND);
  const observation = inspector.block('turn-observation');
  await observation.copy.click();
  await expect(observation.copy).toHaveText('Copied');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(NUMBERED);
});

test('a long output opens collapsed with its count; the hidden rest is found by the browser\'s find and opens', async ({ page, inspector }) => {
  await openTurn(page, 0);
  await inspector.waitReady();
  const observation = inspector.block('turn-observation');
  await expect(observation.toggle).toHaveText('Show all 300 lines');
  // The rest is in the page, but hidden until found (what lets Ctrl+F search it).
  await expect(observation.rest).toHaveAttribute('hidden', 'until-found');
  await expect(observation.rest).toBeHidden();
  await expect(page.getByText('zebrafish-marker')).toBeHidden();
  // The browser's find searches it (window.find runs the same search)...
  expect(await page.evaluate(() => (window as unknown as { find(s: string): boolean }).find('zebrafish-marker'))).toBe(true);
  // ...and on a Ctrl+F match Chromium removes `hidden` and fires `beforematch` at the element. Ctrl+F cannot be
  // driven from a test (window.find does not reveal), so the event Chromium sends is sent here.
  await observation.rest.evaluate((el) => el.dispatchEvent(new Event('beforematch')));
  await expect(observation.toggle).toHaveText('Show less');
  await expect(observation.rest).not.toHaveAttribute('hidden');
  await expect(page.getByText('zebrafish-marker')).toBeVisible();
  await observation.toggle.click();
  await expect(observation.rest).toHaveAttribute('hidden', 'until-found');
  await expect(observation.toggle).toHaveText('Show all 300 lines');
});

test('a search term is marked, opens the collapsed block holding it, and is scrolled into view', async ({ page, inspector }) => {
  await openTurn(page, 0, '?q=zebrafish');
  await inspector.waitReady();
  const hit = page.locator('mark.search-hit');
  await expect(hit).toHaveCount(1);
  await expect(hit).toHaveText('zebrafish');
  await expect(inspector.block('turn-observation').toggle).toHaveText('Show less');
  await expect(hit).toBeInViewport();
});

test('a search hit in the turn is scrolled to, not the same word in the task shown above it', async ({ page, inspector }) => {
  await openTurn(page, 0, '?q=okapi');
  await inspector.waitReady();
  const inTask = inspector.block('turn-task', inspector.opening).text.locator('mark.search-hit');
  const inTurn = inspector.block('turn-observation').text.locator('mark.search-hit');
  await expect(inTask).toHaveText('okapi');
  await expect(inTurn).toHaveText('okapi');
  await expect(inTurn).toBeInViewport();
  await expect(inTask).not.toBeInViewport();
});

test('a 1 MB observation opens fast, collapsed, and expands whole', async ({ page, inspector }) => {
  await openTurn(page, 0);
  await inspector.waitReady();
  const started = Date.now();
  await page.keyboard.press('j');
  await inspector.expectTurn(1);
  const observation = inspector.block('turn-observation');
  await expect(observation.toggle).toHaveText('Show all 16,384 lines');
  expect(Date.now() - started).toBeLessThan(2000);
  await observation.toggle.click();
  await expect.poll(() => observation.text.evaluate((el) => el.textContent?.length)).toBe(MEGABYTE.length);
  await expect(page.getByText('016383 xxx', { exact: false })).toBeAttached();
});

test('the JSON view shows the turn as imported, says it is not the log\'s own record, and is remembered', async ({ page, inspector }) => {
  await openTurn(page, 0);
  await inspector.waitReady();
  await inspector.showTurnAs('raw');
  await expect(inspector.detail.getByTestId('turn-raw-note')).toContainText('as imported');
  await expect(inspector.detail.getByTestId('turn-raw-note')).toContainText("The log's original record is not kept");
  const json = inspector.block('turn-raw-json');
  await expect(json.text).toContainText('"t": 0');
  await expect(json.text).toContainText('"reasoning": "I should **look** before editing."');
  await expect(inspector.block('turn-message').root).toHaveCount(0);
  await page.keyboard.press('j');
  await inspector.expectTurn(1);
  await expect(inspector.block('turn-raw-json').text).toContainText('"t": 1');
  await page.reload();
  await inspector.waitReady();
  await expect(page.getByTestId('turn-view-raw')).toHaveAttribute('aria-pressed', 'true');
  await inspector.showTurnAs('reader');
  await expect(inspector.block('turn-observation').root).toBeVisible();
});
