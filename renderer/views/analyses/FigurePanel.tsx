/**
 * One figure of an analysis page: asks for the analysis (useAnalysis), lays it out at the card's width
 * (useFigureScene), draws it (SceneSvg) with click-through, and offers its export. Says what is going on
 * while it computes, when it failed, and what to do when the selected runs have no data for it.
 */
import { useEffect, useState } from 'react';
import { SIDE_BY_SIDE_MAX, type AnalysisRequest } from '../../../shared/analysisResults.ts';
import type { MarkLink } from '../../../shared/charts/scene.ts';
import { api, errorMessage } from '../../api/index.ts';
import { followMarkLink } from '../../charts/markLink.ts';
import { SceneSvg } from '../../charts/SceneSvg.tsx';
import { useElementWidth } from '../../charts/useElementWidth.ts';
import { useFigureScene } from '../../charts/useFigureScene.ts';
import { EmptyState, ErrorNotice } from '../../components/EmptyState.tsx';
import { useAppStore } from '../../store/index.ts';
import { isEmptyResult, type AnalysisPage } from './catalog.ts';
import { coverageNote } from './coverageNote.ts';
import { emptyReason, extrapolationNote } from './emptyReason.ts';
import { analysisSaver, ExportMenu } from './ExportMenu.tsx';
import { RunsDrawn } from './RunsDrawn.tsx';
import { useAnalysis } from './useAnalysis.ts';

function Computing({ since, what }: { since: number; what: string }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(timer);
  }, []);
  const seconds = (now - since) / 1000;
  return (
    <div className="figure-computing" role="status" data-testid="figure-loading">
      <span className="spinner" aria-hidden="true" />
      <span>
        Computing {what}
        {seconds >= 1 ? ` · ${seconds.toFixed(0)} s` : '…'}
      </span>
    </div>
  );
}

export function FigurePanel({
  page,
  request,
  heading,
  noRequest,
  whenEmpty,
  testId = 'figure-panel',
}: {
  page: AnalysisPage;
  request: AnalysisRequest | null;
  /** A heading above the figure when a page shows more than one. */
  heading?: string;
  /** Said in place of the figure while there is no request (e.g. no episode picked yet). */
  noRequest?: string;
  /** What to say when this figure's result is empty, in place of the analysis's usual hint. */
  whenEmpty?: string;
  testId?: string;
}) {
  const analysis = useAnalysis(request);
  const [ref, width] = useElementWidth<HTMLDivElement>();
  const usable = analysis.response && !isEmptyResult(analysis.response) ? analysis.response : null;
  const figure = useFigureScene(usable, width);
  const [linkError, setLinkError] = useState<string | null>(null);
  const runs = useAppStore((s) => s.runs);
  const theme = useAppStore((s) => s.theme);
  const setDrawnRuns = useAppStore((s) => s.setDrawnRuns);
  const chosen = useAppStore((s) => s.drawnRuns);
  // More runs selected than a figure draws: which ones is the user's to choose (the same for every figure). The
  // choice shows at once; the figure follows when its answer comes.
  const selectable = request?.runs ?? runs.map((r) => r.name);
  const picked = chosen.filter((r) => selectable.includes(r));
  const drawn = picked.length > 0 ? picked : usable?.request.draw;
  const choosable = drawn !== undefined && selectable.length > SIDE_BY_SIDE_MAX;

  const onActivate = (link: MarkLink) => {
    setLinkError(null);
    const { navigate, openEpisodesFromFigure } = useAppStore.getState();
    followMarkLink(link, {
      navigate,
      openEpisodesFromFigure,
      runs,
      resolveEpisode: async (ref) => (await api.getEpisode(ref.run ? { ext_id: ref.ext_id, run: ref.run } : { ext_id: ref.ext_id })).episode.id,
    }).catch((err: unknown) => setLinkError(`Could not open that episode: ${errorMessage(err)}`));
  };

  const empty = analysis.response !== null && !analysis.loading && isEmptyResult(analysis.response);
  const coverage = coverageNote(analysis.response);
  const reason = emptyReason(analysis.response);
  const extrapolation = extrapolationNote(analysis.response);
  const state = analysis.error || figure.error ? 'error' : empty ? 'empty' : figure.scene && !analysis.loading && !figure.pending ? 'ready' : 'loading';

  return (
    // The card takes the figure's background, so the figure sits in it as it will on a page (no inner box).
    <section
      className="card figure-card"
      data-testid={testId}
      data-state={state}
      data-analysis={page.id}
      style={figure.scene ? { background: figure.scene.background } : undefined}
    >
      {(heading || (usable && request) || choosable) && (
        <header className="figure-card-header">
          {heading && <h2>{heading}</h2>}
          <div className="toolbar-spacer" />
          {choosable && <RunsDrawn selectable={selectable} drawn={drawn} onChange={setDrawnRuns} />}
          {usable && request && !analysis.loading && <ExportMenu save={analysisSaver(usable.request, figure.scene?.width ?? width, theme)} />}
        </header>
      )}
      <div className="figure-body" ref={ref}>
        {analysis.error && <ErrorNotice title="The analysis failed." message={analysis.error} />}
        {figure.error && <ErrorNotice title="The figure could not be drawn." message={figure.error} />}
        {linkError && <ErrorNotice title="Nothing to open." message={linkError} />}
        {!request && noRequest && <p className="figure-note muted">{noRequest}</p>}
        {empty && reason && !whenEmpty && (
          <EmptyState title={reason.title} testId="figure-empty">
            <p data-testid="figure-empty-reason" data-reason={reason.reason}>
              {reason.text}
            </p>
          </EmptyState>
        )}
        {empty && !(reason && !whenEmpty) && (
          <EmptyState
            title={whenEmpty ? 'Nothing to draw' : 'No data for this analysis in the selected runs'}
            command={whenEmpty ? undefined : page.command}
            testId="figure-empty"
          >
            <p>{whenEmpty ?? page.whenEmpty}</p>
            {!whenEmpty && page.command && <p className="faint">To make some with the simulator:</p>}
          </EmptyState>
        )}
        {!analysis.loading && extrapolation && (
          <p className="figure-note est-extrapolation" role="note" data-testid="extrapolation-flag">
            {extrapolation}
          </p>
        )}
        {!empty && figure.scene && (
          <div className={analysis.stale || figure.pending ? 'figure-scene is-stale' : 'figure-scene'}>
            <SceneSvg scene={figure.scene} onActivate={onActivate} />
          </div>
        )}
        {!analysis.loading && coverage && (
          <p className="figure-note muted" data-testid="figure-coverage">
            {coverage}
          </p>
        )}
        {analysis.loading && <Computing since={analysis.since} what={page.name.toLowerCase()} />}
        {!analysis.loading && !figure.scene && figure.pending && <Computing since={Date.now()} what="the figure" />}
      </div>
    </section>
  );
}
