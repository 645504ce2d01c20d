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
import {
  budgetModesCsv,
  calibrationCsv,
  confusionCsv,
  embeddingsCsv,
  errorRecoveryCsv,
  liftCsv,
  paretoCsv,
  planDagCsv,
  switchCostCsv,
  targetsCsv,
  usageByTurnCsv,
  usageRatioCsv,
} from './figureCsv.ts';
import { budgetModesLayout } from './layouts/budgetModes.ts';
import { calibrationLayout } from './layouts/calibration.ts';
import { embeddingsLayout } from './layouts/embeddings.ts';
import { confusionLayout } from './layouts/confusion.ts';
import { errorRecoveryLayout } from './layouts/errorRecovery.ts';
import { liftLayout } from './layouts/lift.ts';
import { paretoLayout } from './layouts/pareto.ts';
import { planDagLayout } from './layouts/planDag.ts';
import { switchCostLayout } from './layouts/switchCost.ts';
import { targetsLayout } from './layouts/targets.ts';
import { usageByTurnLayout } from './layouts/usageByTurn.ts';
import { usageRatioLayout } from './layouts/usageRatio.ts';
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

/** Every analysis id has a figure (a type error otherwise). */
export type FigureRegistry = { [A in AnalysisId]: FigureSpec<A> };

export const FIGURES: FigureRegistry = {
  pareto: {
    title: 'Score vs cost (Pareto)',
    description: 'Mean normalised score against mean cost per episode for each run; the frontier joins the runs no other run beats on both.',
    layout: paretoLayout,
    csv: paretoCsv,
  },
  'switch-cost': {
    title: 'Switches vs cost',
    description: 'Successful episodes: model switches per episode against the episode cost, and the mean cumulative cost by turn (MTRouter Fig. 3).',
    layout: switchCostLayout,
    csv: switchCostCsv,
  },
  'error-recovery': {
    title: 'Error recovery',
    description: 'After a turn with an error: how often the next turn switches model, and how often it is error-free after staying or switching, with Wilson 95% intervals (MTRouter Fig. 4).',
    layout: errorRecoveryLayout,
    csv: errorRecoveryCsv,
  },
  'usage-by-turn': {
    title: 'Model usage by turn',
    description: "Each model's share of the turns at each turn index, per run (MTRouter Fig. 5).",
    layout: usageByTurnLayout,
    csv: usageByTurnCsv,
  },
  lift: {
    title: 'Model × tool lift',
    description: 'lift(model, tool) = P(model | tool) / P(model) over turns, with episode-bootstrap 95% intervals; cells with too few turns are hidden (MTRouter Fig. 6).',
    layout: liftLayout,
    csv: liftCsv,
  },
  'plan-dag': {
    title: 'Plan DAGs and behaviour modes',
    description: 'With an episode: its per-round subtask DAGs (model, primitive, status). Without: behaviour-mode shares per run and model × primitive usage (Uno-Orchestra).',
    layout: planDagLayout,
    csv: planDagCsv,
  },
  'budget-modes': {
    title: 'Budget modes',
    description: 'Mean score, mean cost and expert-call ratio per budget mode, and the expert-call ratio over training steps (CoRL).',
    layout: budgetModesLayout,
    csv: budgetModesCsv,
  },
  'usage-ratio': {
    title: 'Usage ratio vs targets',
    description: "Each model's share of calls against its target ρ, accuracy by turn limit, and the share of episodes that used their whole turn budget (critique-and-route controller).",
    layout: usageRatioLayout,
    csv: usageRatioCsv,
  },
  confusion: {
    title: 'Routing and verification confusion',
    description: 'Task difficulty × routed model (row shares), and verdict × whether the draft was correct (critique-and-route controller).',
    layout: confusionLayout,
    csv: confusionCsv,
  },
  targets: {
    title: 'AEC targets',
    description: 'Per-turn target (the final score less the penalties of the errors from that turn on) and error penalty for one episode (MTRouter §3.3).',
    layout: targetsLayout,
    csv: targetsCsv,
  },
  calibration: {
    title: 'Estimator calibration',
    description: 'Mean realised target against the estimator’s ŝ of the logged model, per ŝ bin with 95% intervals, and the MAE and Spearman ρ of ŝ against the target.',
    layout: calibrationLayout,
    csv: calibrationCsv,
  },
  embeddings: {
    title: 'Model and history embeddings',
    description: 't-SNE maps of the estimator’s model embeddings z_a coloured by price tier (MTRouter Fig. 7), and of sampled turn histories coloured by the chosen model or the outcome; a point opens its turn.',
    layout: embeddingsLayout,
    csv: embeddingsCsv,
  },
};

/** The figure of an analysis response (request.id picks the layout), without casts at the call site. */
export function figureScene(response: AnalysisResponse, ctx: FigureContext): Scene {
  const spec = FIGURES[response.request.id] as FigureSpec<AnalysisId>;
  const costAxis = response.request.costAxis ?? ctx.costAxis;
  const drawnRuns = response.request.draw ?? ctx.drawnRuns;
  return spec.layout(response.result as AnalysisResultOf<AnalysisId>, { ...ctx, ...(costAxis ? { costAxis } : {}), ...(drawnRuns ? { drawnRuns } : {}) });
}

/** The CSV of an analysis response. */
export function figureCsv(response: AnalysisResponse): string {
  const spec = FIGURES[response.request.id] as FigureSpec<AnalysisId>;
  return spec.csv(response.result as AnalysisResultOf<AnalysisId>);
}
