/**
 * What the window needs to know about each analysis beyond its figure (title and description come from
 * shared/charts/figures.ts): the paper figure it reproduces, its controls, when a result has nothing to draw,
 * and what to do then.
 */
import type { AnalysisId, AnalysisResponse } from '../../../shared/analysisResults.ts';

export type Control = 'minN' | 'reference' | 'costAxis' | 'rho' | 'episode' | 'estimator' | 'bins' | 'color' | 'sample';

export interface AnalysisPage {
  id: AnalysisId;
  /** Short name for the index card and the page heading. */
  name: string;
  /** The paper figure or table it reproduces, short (the index card). Checked against the papers, not guessed. */
  source: string;
  /** One sentence, on the page: what the figure shows and which paper figure it reproduces. */
  summary: string;
  controls: Control[];
  /** targets: nothing to show until an episode is picked. */
  needsEpisode?: boolean;
  /** What makes data for it, when the selected runs have none. */
  whenEmpty: string;
  /** A command that makes such data (simulated runs of the right kind). */
  command?: string;
}

const simulate = (preset: string) =>
  `routelens simulate --preset ${preset} --episodes 300 --seed 1 --out ${preset}.jsonl\nroutelens import ${preset}.jsonl --db <file>`;

export const ANALYSIS_PAGES: readonly AnalysisPage[] = [
  {
    id: 'pareto',
    name: 'Pareto: score vs cost',
    source: 'MTRouter Fig. 1 (bottom)',
    summary: 'Each run’s mean score against its mean cost per episode, with the frontier of runs that no other run beats on both, as in the cost–performance plot of MTRouter Fig. 1 (bottom).',
    controls: ['reference', 'costAxis'],
    whenEmpty: 'Pareto needs runs whose episodes have a score. Select runs with outcomes, or import some.',
    command: simulate('scienceworld'),
  },
  {
    id: 'switch-cost',
    name: 'Switch cost',
    source: 'MTRouter Fig. 3',
    summary: 'How often successful episodes switch model against what they cost, and the mean cumulative cost by turn, as in MTRouter Fig. 3.',
    controls: [],
    whenEmpty: 'Switch cost is measured over successful episodes; the selected runs have none.',
    command: simulate('scienceworld'),
  },
  {
    id: 'error-recovery',
    name: 'Error recovery',
    source: 'MTRouter Fig. 4',
    summary: 'After a turn with an error, how often the next turn switches model and how often it is then free of errors, as in MTRouter Fig. 4.',
    controls: [],
    whenEmpty: 'Error recovery looks at the turn after an error; the selected runs have no turn with an error that is followed by another turn.',
    command: simulate('scienceworld'),
  },
  {
    id: 'usage-by-turn',
    name: 'Model usage by turn',
    source: 'MTRouter Fig. 5',
    summary: 'Each model’s share of the turns at each turn number, per run, as in MTRouter Fig. 5.',
    controls: [],
    whenEmpty: 'The selected runs have no turns.',
  },
  {
    id: 'lift',
    name: 'Model × tool lift',
    source: 'MTRouter Fig. 6',
    summary: 'Which model is chosen for which tool, as lift = P(model | tool) / P(model), as in MTRouter Fig. 6.',
    controls: ['minN'],
    whenEmpty: 'No model and tool pair has enough turns. Lower the minimum n, select more runs, or import runs with tool calls.',
    command: simulate('scienceworld'),
  },
  {
    id: 'plan-dag',
    name: 'Plan DAGs and behaviour modes',
    source: 'Uno-Orchestra Tab. 14 and App. A.7',
    summary: 'How often each behaviour mode occurs and each round’s subtasks as a graph (model, primitive, status), as in Uno-Orchestra Tab. 14 (modes sketched in Fig. 6) and its subtask DAGs (App. A.7).',
    controls: ['episode'],
    whenEmpty: 'Plan DAGs come from Uno-style runs (plan rounds of subtasks routed to a model and a primitive); the selected runs have none.',
    command: simulate('uno'),
  },
  {
    id: 'budget-modes',
    name: 'Budget modes',
    source: 'CoRL Fig. 2 and Fig. 3',
    summary: 'Score, cost and share of expert calls per budget mode, and that share over training, as in CoRL Fig. 2 and Fig. 3.',
    controls: [],
    whenEmpty: 'Budget modes need CoRL-style runs, whose episodes name a budget mode (low, medium, high).',
    command: simulate('corl'),
  },
  {
    id: 'usage-ratio',
    name: 'Usage ratio vs ρ',
    source: 'critique-and-route Table 3, Fig. 4, Fig. 5',
    summary: 'Each model’s share of calls against its target share ρ, accuracy by turn limit, and the share of episodes that used their whole turn budget, as in the critique-and-route controller’s Table 3, Fig. 4 and Fig. 5.',
    controls: ['rho'],
    whenEmpty: 'Usage ratios need runs of a routing controller; the selected runs have no model calls.',
    command: simulate('critique'),
  },
  {
    id: 'confusion',
    name: 'Routing and verification confusion',
    source: 'critique-and-route Tables 4–7',
    summary: 'Task difficulty against the model routed to, and the controller’s verdict against whether the draft was right, as in the critique-and-route controller’s Tables 4–7.',
    controls: [],
    whenEmpty: 'Confusion needs episodes with a difficulty level or turns with a verification verdict (critique-controller runs).',
    command: simulate('critique'),
  },
  {
    id: 'targets',
    name: 'AEC targets of an episode',
    source: 'MTRouter §3.3, Eq. 5',
    summary: 'For one episode, each turn’s target (its final score less the penalties of the errors from that turn on) and each error’s penalty, the training target of MTRouter §3.3 (Eq. 5); the paper draws no figure of it.',
    controls: ['episode'],
    needsEpisode: true,
    whenEmpty: 'This episode has no turns.',
  },
  {
    id: 'calibration',
    name: 'Estimator calibration',
    source: 'no paper figure: checks MTRouter’s estimator (§3.3)',
    summary: 'How close the estimator’s ŝ comes to the target each turn went on to reach, per ŝ bin with its MAE and rank correlation; no paper draws this, it checks the estimator MTRouter trains (§3.3).',
    controls: ['estimator', 'bins'],
    whenEmpty: 'Calibration compares an estimator’s ŝ with the target each turn went on to reach, and no estimator has scored the selected runs. Score them in the Estimator view, or run `routelens score --db FILE --run NAME`.',
  },
  {
    id: 'embeddings',
    name: 'Model and history embeddings',
    source: 'MTRouter Fig. 7',
    summary: 't-SNE maps of the estimator’s model embeddings coloured by price tier and of turn histories coloured by the chosen model or the outcome, as in MTRouter Fig. 7.',
    controls: ['estimator', 'color', 'sample'],
    whenEmpty: 'There is no estimator to read model embeddings from and no scored turn to map. Train or score one in the Estimator view, or run `routelens score --db FILE`.',
  },
];

export function analysisPage(id: string | null): AnalysisPage | undefined {
  return ANALYSIS_PAGES.find((p) => p.id === id);
}

type ResponseOf<A extends AnalysisId> = Extract<AnalysisResponse, { request: { id: A } }>;

/** Narrows a response by its analysis id (TypeScript does not narrow on the nested `request.id`). */
export function isResponseOf<A extends AnalysisId>(response: AnalysisResponse, id: A): response is ResponseOf<A> {
  return response.request.id === id;
}

/** True when a result has nothing to draw (the page then says what would make data for it). */
export function isEmptyResult(r: AnalysisResponse): boolean {
  if (isResponseOf(r, 'pareto')) return r.result.points.length === 0;
  if (isResponseOf(r, 'switch-cost')) return r.result.runs.every((run) => run.episodes.length === 0);
  if (isResponseOf(r, 'error-recovery')) return r.result.groups.every((g) => g.n === 0);
  if (isResponseOf(r, 'usage-by-turn')) return r.result.runs.every((run) => run.turns.length === 0);
  // An empty lift table after a too-high min n is drawn by the figure itself (it says to lower it).
  if (isResponseOf(r, 'lift')) return false;
  if (isResponseOf(r, 'plan-dag')) {
    const result = r.result;
    return 'rounds' in result ? result.rounds.length === 0 : result.runs.every((run) => run.model_primitive.length === 0);
  }
  if (isResponseOf(r, 'budget-modes')) return r.result.modes.length === 0;
  if (isResponseOf(r, 'usage-ratio')) return r.result.runs.every((run) => run.calls === 0);
  if (isResponseOf(r, 'confusion')) {
    const v = r.result.verification;
    return r.result.routing.length === 0 && v.stop_correct + v.stop_incorrect + v.continue_correct + v.continue_incorrect === 0;
  }
  if (isResponseOf(r, 'targets')) return r.result.turns.length === 0;
  if (isResponseOf(r, 'calibration')) return r.result.overall.n === 0;
  if (isResponseOf(r, 'embeddings')) return r.result.models.points.length === 0 && r.result.histories.points.length === 0;
  return false;
}
