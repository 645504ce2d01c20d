/**
 * Which runs the figures of one selection draw: one list, decided once per request by `runAnalysis` (both
 * stores) and echoed as `request.draw`, so that every figure, its export and the window draw the same runs in
 * the same colours (shared/charts/palette.ts `runColors` over this list). A figure draws at most
 * SIDE_BY_SIDE_MAX runs: the run palette has that many colours, so two drawn runs never share one.
 *
 * Chosen runs (the user's, `request.draw`) are drawn when they are in the selection; otherwise the selected
 * runs with the most sessions with a known outcome (what most figures are about), then the most sessions,
 * then by name. The default depends on the selection only, never on the figure, or a run would be drawn
 * (and coloured) in one figure and not in the next.
 */
import { SIDE_BY_SIDE_MAX } from './analysisResults.ts';

/** A selected run with what the default choice weighs: its sessions, and those with a known outcome. */
export interface RunWeight {
  run: string;
  sessions: number;
  scored: number;
}

/** The runs to draw, by name (the order colours are given in). */
export function pickDrawnRuns(selected: readonly RunWeight[], chosen?: readonly string[]): string[] {
  const names = new Set(selected.map((r) => r.run));
  const wanted = [...new Set(chosen ?? [])].filter((run) => names.has(run)).slice(0, SIDE_BY_SIDE_MAX);
  const drawn =
    wanted.length > 0
      ? wanted
      : [...selected]
          .sort((a, b) => b.scored - a.scored || b.sessions - a.sessions || a.run.localeCompare(b.run))
          .slice(0, SIDE_BY_SIDE_MAX)
          .map((r) => r.run);
  return drawn.sort((a, b) => a.localeCompare(b));
}
