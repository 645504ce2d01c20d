/** The policy lab (#/policy) and the inspector's step debugger: locators and the moves a user makes. */
import { expect, type Locator, type Page } from '@playwright/test';

export class PolicyLabPage {
  readonly view: Locator;
  readonly chips: Locator;
  readonly specInput: Locator;
  readonly specAdd: Locator;
  readonly specMessage: Locator;
  readonly replayButton: Locator;
  readonly resultRows: Locator;
  readonly frontier: Locator;
  readonly diff: Locator;
  readonly diffRows: Locator;

  constructor(readonly page: Page) {
    this.view = page.getByTestId('policy-lab');
    this.chips = page.getByTestId('policy-chip');
    this.specInput = page.getByTestId('policy-spec-input');
    this.specAdd = page.getByTestId('policy-spec-add');
    this.specMessage = page.getByTestId('policy-spec-message');
    this.replayButton = page.getByTestId('replay-run');
    this.resultRows = page.getByTestId('policy-row');
    this.frontier = page.getByTestId('frontier-figure');
    this.diff = page.getByTestId('policy-diff');
    this.diffRows = page.getByTestId('diff-row');
  }

  /** Empties the chosen list, then adds these specs (presets by click when there is one, else typed). */
  async choosePolicies(specs: string[]): Promise<void> {
    while ((await this.chips.count()) > 0) await this.chips.first().getByRole('button').click();
    for (const spec of specs) {
      const preset = this.page.locator(`[data-testid="policy-preset"][data-policy="${spec}"]`);
      if (await preset.count()) await preset.click();
      else await this.typeSpec(spec);
    }
    await expect(this.chips).toHaveCount(specs.length);
  }

  async typeSpec(spec: string): Promise<void> {
    await this.specInput.fill(spec);
    await this.specAdd.click();
  }

  async replay(): Promise<void> {
    await this.replayButton.click();
    await expect(this.view).toHaveAttribute('data-state', 'done', { timeout: 20_000 });
  }

  row(policy: string): Locator {
    return this.page.locator(`[data-testid="policy-row"][data-policy="${policy}"]`);
  }

  async compare(a: string, b: string): Promise<void> {
    await this.page.getByTestId('diff-mode-policies').click();
    await this.page.getByTestId('diff-a').selectOption(a);
    await this.page.getByTestId('diff-b').selectOption(b);
    await this.page.getByTestId('diff-run').click();
    await expect(this.page.getByTestId('diff-summary')).toBeVisible({ timeout: 20_000 });
  }
}

export class StepDebuggerPage {
  readonly panel: Locator;
  readonly status: Locator;
  readonly play: Locator;

  constructor(readonly page: Page) {
    this.panel = page.getByTestId('step-debugger');
    this.status = page.getByTestId('debugger-status');
    this.play = page.getByTestId('debugger-play');
  }

  /** Opens the debugger beside the inspector's conversation (it opens on demand) when it is not open. */
  async open(): Promise<void> {
    const toggle = this.page.getByTestId('debugger-toggle');
    if ((await toggle.getAttribute('aria-pressed')) !== 'true') await toggle.click();
    await expect(this.panel).toBeVisible();
  }

  /** Sets exactly these breakpoint kinds (the others off), opening the debugger first. */
  async breakOn(kinds: ('error' | 'switch' | 'regret' | 'disagree')[]): Promise<void> {
    await this.open();
    for (const kind of ['error', 'switch', 'regret', 'disagree'] as const) {
      await this.page.getByTestId(`bp-${kind}`).setChecked(kinds.includes(kind));
    }
  }
}
