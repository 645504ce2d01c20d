import { expect, type Locator, type Page } from '@playwright/test';

export class InspectorPage {
  readonly view: Locator;
  readonly title: Locator;
  readonly legend: Locator;
  readonly timelineTurns: Locator;
  readonly timelineErrors: Locator;
  readonly timelineSwitches: Locator;
  readonly detail: Locator;
  readonly turnTitle: Locator;
  readonly action: Locator;
  readonly observation: Locator;
  readonly note: Locator;
  readonly turnItems: Locator;
  readonly header: Locator;
  readonly headerToggle: Locator;
  readonly timeline: Locator;
  readonly timelineToggle: Locator;
  readonly nav: Locator;
  readonly detailScroll: Locator;
  readonly taskText: Locator;
  readonly taskToggle: Locator;
  readonly debugger: Locator;
  readonly debuggerToggle: Locator;
  readonly whatIfToggle: Locator;
  readonly opening: Locator;

  constructor(readonly page: Page) {
    this.view = page.getByTestId('inspector-view');
    this.title = page.getByTestId('episode-title');
    this.legend = page.getByTestId('model-legend');
    this.timelineTurns = page.getByTestId('timeline-turn');
    this.timelineErrors = page.getByTestId('timeline-error');
    this.timelineSwitches = page.getByTestId('timeline-switch');
    // The conversation shows every turn; the current one is the turn the timeline, the list and the keys are on.
    this.detail = page.locator('[data-testid="turn-detail"][data-current="true"]');
    this.turnTitle = this.detail.getByTestId('turn-title');
    this.action = this.detail.getByTestId('turn-action-text');
    this.observation = this.detail.getByTestId('turn-observation-text');
    this.note = page.getByTestId('turn-nav-note');
    this.turnItems = page.getByTestId('turn-item');
    this.header = page.getByTestId('episode-header');
    this.headerToggle = page.getByTestId('header-toggle');
    this.timeline = page.getByTestId('timeline');
    this.timelineToggle = page.getByTestId('timeline-toggle');
    this.nav = page.getByTestId('turn-nav');
    this.detailScroll = page.getByTestId('turn-detail-scroll');
    this.taskText = page.getByTestId('task-text');
    this.taskToggle = page.getByTestId('task-toggle');
    this.debugger = page.getByTestId('step-debugger');
    this.debuggerToggle = page.getByTestId('debugger-toggle');
    this.whatIfToggle = page.getByTestId('whatif-toggle');
    // The system prompt and the task, above the first turn.
    this.opening = page.getByTestId('conversation-opening');
  }

  async waitReady(): Promise<void> {
    await expect(this.view).toHaveAttribute('data-state', 'ready');
  }

  async expectTurn(t: number): Promise<void> {
    await expect(this.detail).toHaveAttribute('data-t', String(t));
    await expect(this.page).toHaveURL(new RegExp(`#/episode/\\d+/turn/${t}(\\?|$)`));
  }

  /** The episode shown, by database id. */
  /** The episode the inspector shows, or null while it has none (between two episodes the attribute is absent). */
  async episodeShown(): Promise<number | null> {
    const value = await this.view.getAttribute('data-episode-id');
    return value === null ? null : Number(value);
  }

  button(name: 'prev-turn' | 'next-turn' | 'prev-error' | 'next-error' | 'next-switch' | 'prev-episode' | 'next-episode'): Locator {
    return this.page.getByTestId(name);
  }

  /** Opens the step debugger beside the conversation (it opens on demand) when it is not open. */
  async openDebugger(): Promise<void> {
    if ((await this.debuggerToggle.getAttribute('aria-pressed')) !== 'true') await this.debuggerToggle.click();
    await expect(this.debugger).toBeVisible();
  }

  /** A text block of the current turn (turn-action, turn-observation, turn-message…), or of `within`, and its parts. */
  block(testId: string, within: Locator = this.detail): { root: Locator; text: Locator; rest: Locator; toggle: Locator; copy: Locator } {
    const root = within.getByTestId(testId).first();
    return {
      root,
      text: root.getByTestId(`${testId}-text`),
      rest: root.getByTestId(`${testId}-rest`),
      toggle: root.getByTestId(`${testId}-toggle`),
      copy: root.getByTestId(`${testId}-copy`),
    };
  }

  /** Reader (rendered text) or JSON (the turn as imported). */
  async showTurnAs(view: 'reader' | 'raw'): Promise<void> {
    await this.page.getByTestId(`turn-view-${view}`).click();
    await expect(this.page.getByTestId(`turn-view-${view}`)).toHaveAttribute('aria-pressed', 'true');
  }
}
