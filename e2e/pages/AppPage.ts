/** The window shell: opening a deep link through the token URL, the rail, the top bar, the theme. */
import { expect, type Locator, type Page } from '@playwright/test';

export class AppPage {
  readonly root: Locator;
  readonly runSelector: Locator;
  readonly themeToggle: Locator;
  readonly dbName: Locator;

  constructor(
    readonly page: Page,
    private readonly serveUrl: string,
  ) {
    this.root = page.locator('#root');
    this.runSelector = page.getByTestId('run-selector');
    this.themeToggle = page.getByTestId('theme-toggle');
    this.dbName = page.getByTestId('db-name');
  }

  /** Opens `hash` (e.g. '#/episodes') through the printed URL, which trades the token for a cookie. */
  async open(hash = '#/runs'): Promise<void> {
    await this.page.goto(`${this.serveUrl}${hash}`);
    await this.waitReady();
  }

  /**
   * Goes to `hash` inside the page already open, as a link in the window does: no reload, so the page keeps what it
   * has loaded (a walk over many episodes or figures costs a navigation each, not a start of the app each).
   */
  async go(hash: string): Promise<void> {
    await this.page.evaluate((h) => {
      window.location.hash = h;
    }, hash);
    await this.waitReady();
  }

  /** An episode's database id, asked of the API (shares the browser context's cookie; call after open()). */
  async episodeId(extId: string): Promise<number> {
    const origin = new URL(this.serveUrl).origin;
    const res = await this.page.request.post(`${origin}/api/getEpisode`, { data: { ext_id: extId } });
    expect(res.ok(), await res.text()).toBe(true);
    const body = (await res.json()) as { value: { episode: { id: number } } };
    return body.value.episode.id;
  }

  /**
   * The `#/…?runs=` query choosing these runs (names) on this server, as a shared link holds it: a page opened with
   * it computes its figures once, for those runs, instead of for every run and then once per tick in the selector.
   * Call after open() (the API shares the context's cookie).
   */
  async runsQuery(names: string[]): Promise<string> {
    const origin = new URL(this.serveUrl).origin;
    const res = await this.page.request.post(`${origin}/api/listRuns`, { data: {} });
    expect(res.ok(), await res.text()).toBe(true);
    const runs = ((await res.json()) as { value: { id: number; name: string }[] }).value;
    const ids = names.map((name) => {
      const run = runs.find((r) => r.name === name);
      if (!run) throw new Error(`no run named ${name} on ${origin}`);
      return run.id;
    });
    return ids.length > 0 ? `?runs=${ids.join(',')}` : '';
  }

  async waitReady(): Promise<void> {
    // Longer than an assertion's wait: on the store project both workers' pages share one server, whose reads to
    // ClickHouse go one at a time, so a page's first load can queue behind the other worker's lift bootstrap.
    await expect(this.root).toHaveAttribute('data-app-state', 'ready', { timeout: 20_000 });
  }

  rail(view: 'runs' | 'episodes' | 'episode'): Locator {
    return this.page.getByTestId(`rail-${view}`);
  }

  hash(): Promise<string> {
    return this.page.evaluate(() => window.location.hash);
  }

  async theme(): Promise<string | null> {
    return this.page.locator('html').getAttribute('data-theme');
  }

  async setTheme(theme: 'light' | 'dark'): Promise<void> {
    if ((await this.theme()) !== theme) await this.themeToggle.click();
    await expect(this.page.locator('html')).toHaveAttribute('data-theme', theme);
  }

  /** Selects exactly these runs in the top bar's run selector. */
  async selectRuns(names: string[]): Promise<void> {
    await this.runSelector.click();
    const panel = this.page.getByTestId('run-selector-panel');
    const all = panel.getByRole('button', { name: 'All runs' });
    if (await all.isEnabled()) await all.click();
    for (const name of names) await panel.getByLabel(name, { exact: true }).check();
    await this.page.keyboard.press('Escape');
  }

  /** The colour of a model's dot wherever it appears first inside `scope`. */
  async modelColor(scope: Locator, model: string): Promise<string> {
    const dot = scope.locator(`[data-model="${model}"]`).first();
    const el = (await dot.getAttribute('class'))?.includes('chip-dot') ? dot : dot.locator('.chip-dot').first();
    return el.evaluate((node) => getComputedStyle(node).backgroundColor);
  }
}
