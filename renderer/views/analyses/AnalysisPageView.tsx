/**
 * One analysis: one sentence on what it shows and which paper figure it reproduces, its controls, and its figure(s) for the
 * runs selected in the top bar (every figure compares them side by side). plan-dag shows two: the summary
 * across runs, and one episode's plan rounds as DAGs.
 */
import { useCallback, useMemo } from 'react';
import type { AnalysisId } from '../../../shared/analysisResults.ts';
import type { EpisodeRow } from '../../../shared/api.ts';
import { FIGURES } from '../../../shared/charts/figures.ts';
import { formatHash } from '../../routing/route.ts';
import type { AnalysisParams, EpisodeRef } from '../../store/storeShape.ts';
import { useAppStore } from '../../store/index.ts';
import { BinsControl, ColorControl, CostAxisControl, MinNControl, ReferenceControl, RhoControl, SampleControl } from './AnalysisControls.tsx';
import { buildRequest } from './analysisRequest.ts';
import { isResponseOf, type AnalysisPage } from './catalog.ts';
import { EpisodePicker } from './EpisodePicker.tsx';
import { informativeEpisode } from './informativeEpisode.ts';
import { rhoStatedByRuns } from './loggedRho.ts';
import { FigurePanel } from './FigurePanel.tsx';
import { EstimatorInUse } from '../estimator/EstimatorInUse.tsx';
import { useAnalysis } from './useAnalysis.ts';

const NO_PARAMS: AnalysisParams = {};

/** An Uno episode that planned has a plan turn before its answer; one that answered at once (lazy) has one turn. */
const hasPlanTurns = (row: EpisodeRow) => row.n_turns > 1;

function useParams(id: AnalysisId): [AnalysisParams, (patch: AnalysisParams) => void] {
  const params = useAppStore((s) => s.analysisParams[id]) ?? NO_PARAMS;
  const setAnalysisParams = useAppStore((s) => s.setAnalysisParams);
  const set = useCallback((patch: AnalysisParams) => setAnalysisParams(id, patch), [id, setAnalysisParams]);
  return [params, set];
}

/** The selected runs (empty selection = every run), as names and ids. */
function useScope(): { names: string[]; ids: number[]; all: boolean } {
  const runs = useAppStore((s) => s.runs);
  const runIds = useAppStore((s) => s.runIds);
  return useMemo(() => {
    const chosen = runIds.length === 0 ? [] : runs.filter((r) => runIds.includes(r.id));
    return { names: chosen.map((r) => r.name), ids: chosen.map((r) => r.id), all: chosen.length === 0 };
  }, [runs, runIds]);
}

function PlanDagFigures({ page, scope, params, set }: { page: AnalysisPage; scope: ReturnType<typeof useScope>; params: AnalysisParams; set(p: AnalysisParams): void }) {
  const runs = useAppStore((s) => s.runs);
  const draw = useAppStore((s) => s.drawnRuns);
  const summaryRequest = buildRequest('plan-dag', scope.names, params, { draw });
  const summary = useAnalysis(summaryRequest);
  // Episodes are picked among the runs that have plans (the summary says which).
  const planned = useMemo(() => {
    const r = summary.response;
    if (!r || !isResponseOf(r, 'plan-dag') || 'rounds' in r.result) return null;
    const names = new Set(r.result.runs.filter((run) => run.model_primitive.length > 0).map((run) => run.run));
    return runs.filter((run) => names.has(run.name)).map((run) => run.id);
  }, [summary.response, runs]);
  const onEpisode = useCallback((episode: EpisodeRef) => set({ episode }), [set]);
  const episodeRequest = buildRequest('plan-dag', scope.names, params, { episode: true });
  return (
    <>
      <FigurePanel page={page} request={summaryRequest} heading="Behaviour modes and model × primitive use, per run" testId="figure-panel" />
      {planned && planned.length > 0 && (
        <>
          <div className="analysis-controls">
            <EpisodePicker runIds={planned} value={params.episode} onChange={onEpisode} label="Plan of episode" prefer={hasPlanTurns} />
          </div>
          <FigurePanel
            page={page}
            request={episodeRequest}
            heading={params.episode ? `Plan rounds of ${params.episode.ext_id} (${params.episode.run})` : 'Plan rounds of one episode'}
            noRequest="Pick an episode to see its plan rounds."
            whenEmpty="This episode has no plan rounds (it answered without planning: the lazy mode). Pick another episode."
            testId="figure-panel-episode"
          />
        </>
      )}
    </>
  );
}

export function AnalysisPageView({ page }: { page: AnalysisPage }) {
  const scope = useScope();
  const [params, set] = useParams(page.id);
  const navigate = useAppStore((s) => s.navigate);
  const runIds = useAppStore((s) => s.runIds);
  const allRuns = useAppStore((s) => s.runs);
  const figure = FIGURES[page.id];
  // Calibration and the embedding map read the database's estimator in use; naming it keys the memo, so a pick shows at once.
  const inUseId = useAppStore((s) => s.estimators?.in_use?.id);
  const scopeRuns = scope.all ? allRuns : allRuns.filter((r) => scope.ids.includes(r.id));
  const draw = useAppStore((s) => s.drawnRuns);
  const models = useMemo(() => [...new Set(scopeRuns.flatMap((r) => r.models))].sort((a, b) => a.localeCompare(b)), [scopeRuns]);
  const onEpisode = useCallback((episode: EpisodeRef) => set({ episode }), [set]);
  const request = buildRequest(page.id, scope.names, { ...params, estimator: inUseId }, { draw });
  // The ρ control starts from the targets the runs' logs state: the figure's own answer (asked once, memoised) says them.
  const answer = useAnalysis(page.id === 'usage-ratio' ? request : null).response;
  const loggedRho = useMemo(() => (answer && isResponseOf(answer, 'usage-ratio') ? rhoStatedByRuns(answer.result.runs) : undefined), [answer]);

  const controls = page.controls.filter((c) => !(page.id === 'plan-dag' && c === 'episode'));
  return (
    <div className="view-pad analysis-page" data-testid="analysis-page" data-analysis={page.id}>
      <nav className="breadcrumb faint" aria-label="Breadcrumb">
        <a
          href={formatHash({ route: { view: 'analyses', analysis: null }, runIds })}
          onClick={(e) => {
            e.preventDefault();
            navigate({ view: 'analyses', analysis: null });
          }}
        >
          Analyses
        </a>
        <span aria-hidden="true"> / </span>
      </nav>
      <div className="view-header analysis-header">
        <h1>{page.name}</h1>
        <span className="muted" data-testid="analysis-scope">
          {scope.all ? `all ${allRuns.length} runs` : scope.names.length === 1 ? `run ${scope.names[0]}` : `${scope.names.length} runs compared`}
        </span>
      </div>
      <p className="analysis-lede" data-testid="analysis-summary">
        {page.summary}
      </p>
      {controls.length > 0 && (
        <div className="analysis-controls" data-testid="analysis-controls">
          {controls.includes('minN') && <MinNControl value={params.minN} onChange={(minN) => set({ minN })} />}
          {controls.includes('reference') && <ReferenceControl runs={scopeRuns.map((r) => r.name)} value={params.reference} onChange={(reference) => set({ reference })} />}
          {controls.includes('costAxis') && <CostAxisControl value={params.costAxis} onChange={(costAxis) => set({ costAxis })} />}
          {controls.includes('rho') && <RhoControl models={models} value={params.rho} logged={loggedRho} onChange={(rho) => set({ rho })} />}
          {controls.includes('episode') && <EpisodePicker runIds={scope.ids} value={params.episode} onChange={onEpisode} choose={informativeEpisode} />}
          {controls.includes('estimator') && <EstimatorInUse testId="analysis-estimator" />}
          {controls.includes('bins') && <BinsControl value={params.bins} onChange={(bins) => set({ bins })} />}
          {controls.includes('color') && <ColorControl value={params.color} onChange={(color) => set({ color })} />}
          {controls.includes('sample') && <SampleControl value={params.sample} onChange={(sample) => set({ sample })} />}
        </div>
      )}
      {!figure ? (
        <div className="card figure-card" data-testid="figure-panel" data-state="empty">
          <p className="figure-note muted">This figure is not drawn yet in this build.</p>
        </div>
      ) : page.id === 'plan-dag' ? (
        <PlanDagFigures page={page} scope={scope} params={params} set={set} />
      ) : (
        <FigurePanel page={page} request={request} noRequest="Pick an episode to see its targets." />
      )}
    </div>
  );
}
