/**
 * When a changed analysis request is asked of the core: at once after a pause, else once the changes settle.
 * Ticking seven runs in the selector or dragging a control makes a request per change; the core computes one
 * analysis at a time, so asking each would delay the figure the user ends on behind figures nobody looks at.
 */

/** A change this soon after the previous one waits for a quiet moment this long. */
export const SETTLE_MS = 250;

export class ChangeSettler {
  private lastChange = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly settleMs = SETTLE_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Notes a change and runs `ask` now or after `settleMs` of quiet; the returned function cancels a wait not yet
   * over (the next change cancels it, so only the last of a quick series is asked).
   */
  schedule(ask: () => void): () => void {
    const at = this.now();
    const quick = at - this.lastChange < this.settleMs;
    this.lastChange = at;
    if (!quick) {
      ask();
      return () => {};
    }
    const timer = setTimeout(ask, this.settleMs);
    return () => clearTimeout(timer);
  }

  /** A change answered from memory: it counts for the pace of changes without asking anything. */
  noteChange(): void {
    this.lastChange = this.now();
  }
}
