/**
 * The figure registry: for every analysis id, its title, a one-line description, the layout that turns its
 * result into a Scene, and its data as CSV. The window (renderer, React draws the Scene), the API's
 * `exportFigure` and `routelens export` all go through here, so the window and the exported file are the
 * same figure.
 *
 * Contract (stable; other modules draw against it): `layout(result, ctx)` is pure and synchronous (runs in a
 * worker or the CLI), returns a Scene exactly `ctx.width` wide and `ctx.height` high when given (else the
 * height its content needs); every data mark carries `datum.lines` (exact values with units and n) and,
 * where it leads somewhere, `datum.link`.
 */
import type { AnalysisId, AnalysisResponse, AnalysisResultOf } from '../analysisResults.ts';
import type { FigureContext } from './context.ts';
import { liftCsv, paretoCsv } from './figureCsv.ts';
import { liftLayout } from './layouts/lift.ts';
import { paretoLayout } from './layouts/pareto.ts';
import type { Scene } from './scene.ts';

export type { FigureContext } from './context.ts';
export { modelColorFrom } from './context.ts';
export { chartTheme, DARK_THEME, LIGHT_THEME, type ChartTheme, type ThemeName } from './theme.ts';

export interface FigureSpec<A extends AnalysisId> {
  title: string;
  description: string;
  layout(result: AnalysisResultOf<A>, ctx: FigureContext): Scene;
  csv(result: AnalysisResultOf<A>): string;
}

export type FigureRegistry = { [A in AnalysisId]?: FigureSpec<A> };

export const FIGURES: FigureRegistry = {
  pareto: {
    title: 'Score vs cost (Pareto)',
    description: 'Mean normalised score against mean cost per episode for each run; the frontier joins the runs no other run beats on both.',
    layout: paretoLayout,
    csv: paretoCsv,
  },
  lift: {
    title: 'Model × tool lift',
    description: 'lift(model, tool) = P(model | tool) / P(model) over turns, with episode-bootstrap 95% intervals; cells with too few turns are hidden.',
    layout: liftLayout,
    csv: liftCsv,
  },
};

/** The figure of an analysis response (request.id picks the layout), without casts at the call site. */
export function figureScene(response: AnalysisResponse, ctx: FigureContext): Scene {
  const spec = FIGURES[response.request.id] as FigureSpec<AnalysisId> | undefined;
  if (!spec) throw new Error(`no figure for analysis "${response.request.id}" yet`);
  return spec.layout(response.result as AnalysisResultOf<AnalysisId>, ctx);
}

/** The CSV of an analysis response. */
export function figureCsv(response: AnalysisResponse): string {
  const spec = FIGURES[response.request.id] as FigureSpec<AnalysisId> | undefined;
  if (!spec) throw new Error(`no figure for analysis "${response.request.id}" yet`);
  return spec.csv(response.result as AnalysisResultOf<AnalysisId>);
}
