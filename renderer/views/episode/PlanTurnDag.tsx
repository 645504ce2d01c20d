/**
 * The plan a turn made (Uno-style orchestrators): the round of subtasks this turn planned, as the plan-dag
 * analysis draws it, inside the inspector, so reading a plan turn does not mean leaving for the Analyses
 * view. The episode's plan is asked once (the plan-dag analysis with the episode) and kept while the data
 * is unchanged; turns that planned nothing show nothing.
 */
import { useEffect, useMemo, useState } from 'react';
import type { AnalysisResponse, PlanDagEpisodeResult, PlanDagResult, PlanRound } from '../../../shared/analysisResults.ts';
import { isPlanDagEpisode } from '../../../shared/analysisResults.ts';
import type { TurnDetail } from '../../../shared/api.ts';
import { planRoundLayout } from '../../../shared/charts/layouts/planDag.ts';
import { chartTheme } from '../../../shared/charts/theme.ts';
import { api, errorMessage } from '../../api/index.ts';
import { SceneSvg } from '../../charts/SceneSvg.tsx';
import { useElementWidth } from '../../charts/useElementWidth.ts';
import { plural } from '../../format/numbers.ts';
import { useAppStore, useModelColors } from '../../store/index.ts';
import { useEpisode } from './useEpisode.ts';
import './planTurn.css';

type PlanLoad = { status: 'loading' } | { status: 'ready'; plan: PlanDagEpisodeResult } | { status: 'error'; message: string };

/** Plans asked for, by episode and data version: moving between turns of one episode asks once. */
const plans = new Map<string, Promise<PlanDagEpisodeResult>>();

function planOf(episodeId: number, extId: string, run: string, dataVersion: number): Promise<PlanDagEpisodeResult> {
  const key = `${episodeId}:${dataVersion}`;
  let plan = plans.get(key);
  if (!plan) {
    plan = api.runAnalysis({ id: 'plan-dag', runs: [run], episode: extId }).then((r: AnalysisResponse) => {
      const result = r.request.id === 'plan-dag' ? (r.result as PlanDagResult) : null;
      if (result && isPlanDagEpisode(result)) return result;
      throw new Error('the core answered without the episode’s plan');
    });
    plan.catch(() => plans.delete(key));
    if (plans.size > 16) plans.delete(plans.keys().next().value as string);
    plans.set(key, plan);
  }
  return plan;
}

function usePlan(episodeId: number, extId: string | null, run: string | null): PlanLoad {
  const dataVersion = useAppStore((s) => s.dataVersion);
  const [load, setLoad] = useState<PlanLoad>({ status: 'loading' });
  useEffect(() => {
    if (extId === null || run === null) return;
    let live = true;
    setLoad({ status: 'loading' });
    planOf(episodeId, extId, run, dataVersion).then(
      (plan) => live && setLoad({ status: 'ready', plan }),
      (err: unknown) => live && setLoad({ status: 'error', message: errorMessage(err) }),
    );
    return () => {
      live = false;
    };
  }, [episodeId, extId, run, dataVersion]);
  return load;
}

function PlanFigure({ plan, round }: { plan: PlanDagEpisodeResult; round: PlanRound }) {
  const theme = useAppStore((s) => s.theme);
  const modelColor = useModelColors();
  const [ref, width] = useElementWidth<HTMLDivElement>();
  const scene = useMemo(
    () => (width > 0 ? planRoundLayout(round, plan.episode, plan.run, { theme: chartTheme(theme), width, modelColor }) : null),
    [round, plan, width, theme, modelColor],
  );
  return (
    <div className="plan-turn-figure" ref={ref}>
      {scene && <SceneSvg scene={scene} testId="plan-turn-figure" />}
    </div>
  );
}

function TurnPlan({ episodeId, turn }: { episodeId: number; turn: TurnDetail }) {
  const episode = useEpisode(episodeId);
  const detail = episode.status === 'ready' ? episode.detail.episode : null;
  const load = usePlan(episodeId, detail?.ext_id ?? null, detail?.run ?? null);
  if (load.status === 'error') {
    return (
      <p className="faint plan-turn-error" data-testid="plan-turn-error">
        The plan of this episode could not be read: {load.message}
      </p>
    );
  }
  const plan = load.status === 'ready' ? load.plan : null;
  const round = plan?.rounds.find((r) => r.turn === turn.t);
  if (!plan || !round) return null;
  const failed = round.nodes.filter((n) => n.status !== null && !['ok', 'done', 'success', 'completed'].includes(n.status.toLowerCase())).length;
  return (
    <section className="plan-turn" data-testid="plan-turn" data-round={round.round}>
      <h3>
        Plan{' '}
        <span className="faint">
          round {round.round} · {plural(round.nodes.length, 'subtask')}
          {failed > 0 ? ` · ${failed} failed` : ''} · episode behaviour: {plan.mode ?? 'no mode'}
        </span>
      </h3>
      <PlanFigure plan={plan} round={round} />
    </section>
  );
}

/** Shown in the inspector's turn detail; nothing outside the inspector (the pair view has no single episode). */
export function PlanTurnDag({ turn }: { turn: TurnDetail }) {
  const route = useAppStore((s) => s.route);
  if (route.view !== 'episode') return null;
  return <TurnPlan episodeId={route.episodeId} turn={turn} />;
}
