/**
 * Hostile log text (DESIGN §12, issue 8 item 5) in a database of its own: a run, a model, episode ids, task
 * text, actions and observations carrying HTML and script (`<img onerror>`, `<script>`, `<svg onload>`,
 * `<iframe srcdoc>`, `javascript:` links, resources on an attacker's host, CSS), ANSI escape sequences, and an
 * observation of one 10 MB line (generated here, not stored in the repository). Every payload, if it ever
 * ran, would set `window.__pwned` or open a dialog; every external resource would be a request to
 * attacker.invalid. The specs prove none of that happens in the Runs, Episodes and inspector views, that the
 * text is visible as literal text, and that an exported SVG figure with these names runs nothing either, even
 * loaded into a page without our CSP. Messages nested or marked past what the markdown parser survives (issue 38
 * item 1: `>` x 3,000 and `- ` x 1,000 overflowed its stack and unmounted the app, `*a` x 49,000 blocked the
 * page for 150 s) show as plain text with the reason said, and the inspector keeps working.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { AppPage } from './pages/AppPage.ts';
import { cli, freePort, startServe, type ServeProcess } from './serveProcess.ts';
import { expect, test } from './fixtures.ts';

const ATTACKER = 'attacker.invalid';
const RUN = 'xss-run "><script>window.__pwned="run"</script>';
const MODEL = `gpt-5<img src=x onerror="window.__pwned='model'">`;
const EXT_ID = `<svg onload="window.__pwned='ext_id'">xss_0`;
const ANSI = '\u001b[31mred\u001b[0m \u001b]8;;http://attacker.invalid/osc\u0007osc link\u001b]8;;\u0007 \u001b[2J\u001b[H';
const PAYLOADS = [
  `<img src=x onerror="window.__pwned='img'">`,
  `<script>window.__pwned='script'</script>`,
  `<a href="javascript:window.__pwned='link'">click me</a>`,
  `<svg onload="window.__pwned='svg'"><circle r="5"/></svg>`,
  `<iframe srcdoc="<script>parent.__pwned='iframe'</script>"></iframe>`,
  `<img src="http://${ATTACKER}/pixel.png">`,
  `<link rel="stylesheet" href="http://${ATTACKER}/x.css">`,
  `<style>@import url(http://${ATTACKER}/y.css); body { display: none }</style>`,
  `"><script>alert('attribute break')</script>`,
  `javascript:alert('bare')`,
  ANSI,
];
/** Markdown the parser used to choke on, with the note the reader sees instead. */
const NESTED = [
  { text: '>'.repeat(3000), said: 'nested too deeply to format' },
  { text: '- '.repeat(1000), said: 'nested too deeply to format' },
  { text: '*a'.repeat(49_000), said: 'too many emphasis marks or brackets to format' },
];
const HUGE_BYTES = 10 * 1024 * 1024;
const HUGE_TAIL = `<img src=x onerror="window.__pwned='tail'">`;

function episode(id: string, turns: { action: string; observation: string; model: string; message?: string }[], task: string): string {
  return JSON.stringify({
    schema: 'routelens/v1',
    run: RUN,
    episode_id: id,
    task: { id, type: 'qa', category: 'security', text: task },
    outcome: { score: 0, score_range: [0, 1], success: false, exit: 'Submitted' },
    turns: turns.map((t, i) => ({
      t: i,
      model: t.model,
      action: { type: 'tool', tool: 'bash', text: t.action },
      observation: t.observation,
      ...(t.message ? { message: t.message } : {}),
      tokens: { in: 100, out: 10 },
      cost_usd: 0.001,
    })),
  });
}

let dir = '';
let server: ServeProcess | null = null;

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  test.setTimeout(120_000);
  dir = mkdtempSync(join(tmpdir(), 'routelens-hostile-'));
  const file = join(dir, 'hostile.jsonl');
  const turns = PAYLOADS.map((p, i) => ({ action: p, observation: PAYLOADS.join('\n'), model: i % 2 ? 'kimi-k2' : MODEL }));
  const huge = `${'A'.repeat(HUGE_BYTES)}${HUGE_TAIL}`;
  writeFileSync(
    file,
    [
      episode(EXT_ID, turns, `Task: ${PAYLOADS.join(' ')}`),
      episode('huge_line', [{ action: 'cat big.log', observation: huge, model: MODEL }], 'One 10 MB line.'),
      episode('nested_markdown', NESTED.map((n) => ({ action: 'echo', observation: 'ok', model: MODEL, message: n.text })), 'Nested markdown.'),
    ].join('\n') + '\n',
  );
  cli(['import', file, '--db', join(dir, 'hostile.db')]);
  server = await startServe(join(dir, 'hostile.db'), await freePort());
});

test.afterAll(async () => {
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Records what would betray a payload: requests off our origin and CSP violations (none should even be tried). */
async function guard(page: Page): Promise<{ external: string[]; app: AppPage; origin: string }> {
  const url = server?.url ?? '';
  const origin = new URL(url).origin;
  const external: string[] = [];
  page.on('request', (r) => {
    if (!r.url().startsWith(origin) && !r.url().startsWith('data:') && !r.url().startsWith('blob:')) external.push(r.url());
  });
  await page.addInitScript(() => {
    const w = window as unknown as { __violations: string[] };
    w.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) => w.__violations.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}:${e.columnNumber} ${e.sample}`));
  });
  return { external, app: new AppPage(page, url), origin };
}

async function expectNothingRan(page: Page, external: string[], origin: string): Promise<void> {
  expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined();
  // zod probes `new Function('')` once to choose its JIT (it falls back when the CSP says no): that refusal, from
  // our own bundle, is the CSP at work, not log text. Anything else (inline script or handler, an image or style
  // from elsewhere) would mean log text reached the DOM as markup.
  const violations = await page.evaluate(() => (window as unknown as { __violations: string[] }).__violations);
  expect(violations.filter((v) => !new RegExp(`^script-src eval ${origin}/assets/[\\w.-]+\\.js:`).test(v))).toEqual([]);
  expect(external).toEqual([]);
  await expect(
    page.locator('#root script, #root iframe, #root img, #root object, #root embed, #root link, #root style, #root [onload], #root [onerror], #root a[href^="javascript"]'),
  ).toHaveCount(0);
  await expect(page.locator('body')).toBeVisible(); // the <style> in the logs did not hide the page
}

test('the Runs and Episodes views show a hostile run name and episode id as text', async ({ page, runs, episodes }) => {
  const { external, app, origin } = await guard(page);
  await app.open('#/runs');
  await runs.waitReady();
  await expect(runs.row(RUN).getByTestId('run-name')).toHaveText(RUN);
  await expect(runs.row(RUN).locator('.chip-name').filter({ hasText: 'onerror' })).toHaveText(MODEL);
  await runs.row(RUN).click();
  await episodes.waitReady();
  const row = episodes.rows.filter({ hasText: 'xss_0' });
  await expect(row).toContainText(EXT_ID);
  await episodes.searchFor('pwned');
  await expect(episodes.rows.filter({ hasText: 'xss_0' })).toHaveCount(1);
  await expectNothingRan(page, external, origin);
});

test('the inspector shows every payload literally, turn by turn, and runs none', async ({ page, inspector }) => {
  const { external, app, origin } = await guard(page);
  await app.open('#/runs');
  const id = await app.episodeId(EXT_ID);
  await app.open(`#/episode/${id}/turn/0`);
  await inspector.waitReady();
  await expect(inspector.title).toHaveText(EXT_ID);
  await expect(page.getByTestId('task-text')).toContainText(PAYLOADS[1] as string);
  await expect(inspector.legend.locator('.chip-name').filter({ hasText: 'onerror' })).toHaveText(MODEL);
  for (const [t, payload] of PAYLOADS.entries()) {
    await inspector.expectTurn(t);
    // ANSI sequences are characters like any other: they colour nothing, clear nothing, link nothing.
    await expect.poll(() => inspector.action.evaluate((el) => el.textContent)).toBe(payload);
    await expect(inspector.observation).toContainText('onerror="window.__pwned=\'img\'"');
    if (t < PAYLOADS.length - 1) await page.keyboard.press('j');
  }
  expect(await inspector.observation.evaluate((el) => el.textContent ?? '')).toContain('\u001b[31mred\u001b[0m');
  await page.screenshot({ path: test.info().outputPath('hostile-inspector.png') });
  await expectNothingRan(page, external, origin);
});

test('a 10 MB line opens collapsed, expands whole, and its markup stays text', async ({ page, inspector }) => {
  test.setTimeout(120_000);
  const { external, app, origin } = await guard(page);
  await app.open('#/runs');
  const id = await app.episodeId('huge_line');
  await app.open(`#/episode/${id}/turn/0`);
  await inspector.waitReady();
  const shown = async (): Promise<number> => inspector.observation.evaluate((el) => (el.textContent ?? '').length);
  // Collapsed: a few lines tall, the rest kept in the page hidden until found (Ctrl+F searches it).
  expect((await inspector.observation.boundingBox())?.height ?? Infinity).toBeLessThan(1000);
  await expect(inspector.detail.getByTestId('turn-observation-rest')).toHaveAttribute('hidden', 'until-found');
  await inspector.detail.getByTestId('turn-observation-toggle').click();
  await expect(inspector.detail.getByTestId('turn-observation-rest')).not.toHaveAttribute('hidden');
  await expect.poll(shown, { timeout: 60_000 }).toBe(HUGE_BYTES + HUGE_TAIL.length);
  expect(await inspector.observation.evaluate((el, tail) => (el.textContent ?? '').endsWith(tail), HUGE_TAIL)).toBe(true);
  // Still responsive: the next key press is handled.
  await page.keyboard.press('k');
  await expectNothingRan(page, external, origin);
});

test('markdown nested past the parser shows as plain text, says why, and the inspector keeps working', async ({ page, inspector }) => {
  const { external, app, origin } = await guard(page);
  await app.open('#/runs');
  const id = await app.episodeId('nested_markdown');
  await app.open(`#/episode/${id}/turn/0`);
  await inspector.waitReady();
  for (const [t, n] of NESTED.entries()) {
    await inspector.expectTurn(t);
    const message = inspector.block('turn-message').root;
    await expect(message.locator('.markdown[data-format="plain"]').first()).toBeVisible({ timeout: 5000 });
    await expect(message.getByTestId('markdown-plain-note').first()).toHaveText(`Shown as plain text: ${n.said}.`);
    await expect(inspector.title).toHaveText('nested_markdown'); // the app is still mounted
    if (t < NESTED.length - 1) await page.keyboard.press('j');
  }
  await expectNothingRan(page, external, origin);
});

test('an SVG figure exported with these names runs nothing, even in a page without our CSP', async ({ page }) => {
  const { external, app, origin } = await guard(page);
  await app.open('#/runs');
  const res = await page.request.post(`${origin}/api/exportFigure`, { data: { request: { id: 'usage-by-turn', runs: [RUN] }, format: 'svg' } });
  expect(res.ok(), await res.text()).toBe(true);
  const svg = Buffer.from(((await res.json()) as { value: { data_base64: string } }).value.data_base64, 'base64').toString('utf8');
  expect(svg).toContain('onerror'); // the model name is in the figure, as text
  expect(svg).not.toMatch(/<script|<foreignObject|\shref=|\son\w+="/i);
  // about:blank carries no CSP: anything active in the SVG would run here. First a positive control: the sentinel
  // does catch markup that runs.
  await page.goto('about:blank');
  await page.setContent(`<img src="data:," onerror="window.__pwned='control'">`);
  await expect.poll(() => page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBe('control');
  await page.goto('about:blank');
  await page.setContent(`<!doctype html><body>${svg.replace(/^<\?xml[^>]*>/, '')}</body>`);
  await expect(page.locator('svg text').filter({ hasText: 'onerror' }).first()).toBeAttached();
  await page.waitForTimeout(200);
  expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined();
  await expect(page.locator('body img, body script, body [onload], body [onerror]')).toHaveCount(0);
  expect(external).toEqual([]);
});
