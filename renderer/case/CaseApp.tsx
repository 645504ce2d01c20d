/**
 * A shared case's page: a bar with what the file holds, the app's own inspector for an episode (its conversation,
 * timeline, turn list and keys) or the run's / comparison's summary, and a footer saying what was redacted and cut,
 * by which RouteLens, from which database and when. The route lives in the URL fragment as in the app, so the
 * inspector's links between an episode and its subagents work unchanged.
 */
import { useEffect, useMemo, useState } from 'react';
import type { EpisodeDetail, EpisodeRow } from '../../shared/api.ts';
import type { CaseAbout, CaseData } from '../../shared/caseFile.ts';
import { EmptyState } from '../components/EmptyState.tsx';
import { KnownCost, OutcomeBadge } from '../components/figures.tsx';
import { ModelChip } from '../components/ModelChip.tsx';
import { formatCost, formatCount, plural } from '../format/numbers.ts';
import { formatHash, type Route } from '../routing/route.ts';
import { useAppStore } from '../store/index.ts';
import { COMPARE_FIGURE_IDS } from '../../shared/charts/layouts/compareFigures.ts';
import { CompareFigure } from '../views/compare/CompareFigure.tsx';
import { CompareStats } from '../views/compare/CompareStats.tsx';
import { CostAttribution } from '../views/compare/CostAttribution.tsx';
import { TaskTable } from '../views/compare/TaskTable.tsx';
import { RunsTable } from '../views/runs/RunsTable.tsx';
import { DEFAULT_RUN_SORT, nextSort, type RunSort } from '../views/runs/runsTableModel.ts';
import InspectorView from '../views/episode/InspectorView.tsx';
import '../views/analyses/analyses.css';
import '../views/compare/compare.css';
import '../views/policy/policy.css';
import '../views/runs/runs.css';

const summaryRoute = (data: CaseData): Route => (data.kind === 'compare' ? { view: 'compare' } : { view: 'runs' });

/** Where the page opens: the episode shared, or the summary. */
export function startHash(data: CaseData): string {
  const route: Route = data.start === null ? summaryRoute(data) : { view: 'episode', episodeId: data.start, turn: null };
  return formatHash({ route, runIds: [] });
}

export function CaseApp({ data }: { data: CaseData }) {
  const route = useAppStore((s) => s.route);
  const status = useAppStore((s) => s.status);
  useEffect(() => {
    const { loadSession, syncFromHash } = useAppStore.getState();
    const onHash = () => syncFromHash(window.location.hash);
    onHash();
    void loadSession();
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  useEffect(() => {
    const root = document.getElementById('root');
    if (root) root.dataset.appState = status;
  }, [status]);

  return (
    <div className="case-app" data-testid="case-app" data-case-kind={data.kind}>
      <CaseBar data={data} route={route} />
      <main className="view case-main" data-testid="view">
        {status !== 'ready' ? (
          <div className="view-loading">Reading the case…</div>
        ) : (
          <CaseView data={data} route={route} />
        )}
      </main>
      <CaseFooter about={data.about} />
    </div>
  );
}

function CaseView({ data, route }: { data: CaseData; route: Route }) {
  if (route.view === 'episode') return <InspectorView key={route.episodeId} episodeId={route.episodeId} turn={route.turn} q={route.q} at={route.at} />;
  if (data.kind === 'run' && route.view === 'runs') return <RunSummary data={data} />;
  if (data.compare && route.view === 'compare') {
    const { result, request } = data.compare;
    return (
      <div className="view-pad compare-view case-compare" data-testid="case-compare">
        <div className="view-header">
          <h1>Compare</h1>
          <span className="muted">B − A, paired by task</span>
        </div>
        <div className="compare-result">
          <CompareStats result={result} />
          <CostAttribution result={result} />
          <div className="compare-figures">
            {COMPARE_FIGURE_IDS.map((id) => (
              <CompareFigure key={id} id={id} result={result} request={request} />
            ))}
          </div>
          <TaskTable result={result} />
        </div>
      </div>
    );
  }
  return (
    <div className="view-pad">
      <EmptyState title="Not in this shared case" testId="case-not-here">
        <p>This file holds {data.title} only; open the log in RouteLens for the rest.</p>
        <a className="btn" href={startHash(data)}>
          Back to the case
        </a>
      </EmptyState>
    </div>
  );
}

function CaseBar({ data, route }: { data: CaseData; route: Route }) {
  const navigate = useAppStore((s) => s.navigate);
  const shown = route.view === 'episode' ? route.episodeId : null;
  return (
    <header className="case-bar" data-testid="case-bar">
      <span className="case-brand">RouteLens</span>
      <span className="case-title" title={data.title}>
        {data.title}
      </span>
      <nav className="case-nav" aria-label="In this file">
        {data.start === null && (
          <a className={`btn ${route.view !== 'episode' ? 'is-on' : ''}`} href={formatHash({ route: summaryRoute(data), runIds: [] })} data-testid="case-summary-link">
            Summary
          </a>
        )}
        {data.episodes.length > (data.start === null ? 0 : 1) && (
          <label className="case-episodes">
            <span className="field-label">In this file</span>
            <select
              value={shown ?? ''}
              onChange={(e) => e.target.value && navigate({ view: 'episode', episodeId: Number(e.target.value), turn: null })}
              data-testid="case-episode-select"
            >
              {shown === null && <option value="">Choose…</option>}
              {data.episodes.map((e) => (
                <option key={e.episode.id} value={e.episode.id}>
                  {episodeLabel(e)}
                </option>
              ))}
            </select>
          </label>
        )}
      </nav>
    </header>
  );
}

function episodeLabel(e: EpisodeDetail): string {
  const kind = e.episode.kind ? `${e.episode.kind} ` : '';
  return `${e.episode.parent ? '↳ ' : ''}${kind}${e.episode.ext_id} · ${plural(e.turn_count, 'turn')}`;
}

function RunSummary({ data }: { data: CaseData }) {
  const [sort, setSort] = useState<RunSort>(DEFAULT_RUN_SORT);
  const carried = useMemo(() => new Set(data.episodes.map((e) => e.episode.id)), [data.episodes]);
  return (
    <div className="view-pad runs-view case-run" data-testid="case-run">
      <div className="view-header">
        <h1>Run</h1>
      </div>
      <RunsTable runs={data.runs} sort={sort} onSort={(key) => setSort((s) => nextSort(s, key))} />
      <h2 className="case-section-title">Sessions</h2>
      <p className="muted case-note">
        {data.about.episodes_left_out > 0
          ? `The first ${formatCount(carried.size)} episodes are in this file in full; ${plural(data.about.episodes_left_out, 'other session')} are listed only.`
          : 'Every session is in this file in full.'}
      </p>
      <div className="card table-card">
        <table className="case-rows" data-testid="case-rows">
          <thead>
            <tr>
              <th>Episode</th>
              <th>Task</th>
              <th className="num">Turns</th>
              <th className="num">Cost</th>
              <th className="num">Errors</th>
              <th>Models</th>
              <th>Outcome</th>
            </tr>
          </thead>
          <tbody>{data.rows.map((r) => <RowOf key={r.id} row={r} carried={carried.has(r.id)} />)}</tbody>
        </table>
      </div>
    </div>
  );
}

function RowOf({ row, carried }: { row: EpisodeRow; carried: boolean }) {
  return (
    <tr>
      <td>
        {carried ? (
          <a href={formatHash({ route: { view: 'episode', episodeId: row.id, turn: null }, runIds: [] })}>{row.ext_id}</a>
        ) : (
          <span title="Listed only: not carried in full by this file">{row.ext_id}</span>
        )}
      </td>
      <td>{row.task_category ?? '—'}</td>
      <td className="num">{formatCount(row.n_turns)}</td>
      <td className="num">
        {row.total_cost === null ? <KnownCost known={row.known_cost} unpriced={row.unpriced_turns} short /> : formatCost(row.total_cost)}
      </td>
      <td className="num">{formatCount(row.n_errors)}</td>
      <td>
        <div className="case-models">
          {row.models.map((m) => (
            <ModelChip key={m} name={m} />
          ))}
        </div>
      </td>
      <td>
        <OutcomeBadge success={row.success} score={row.score_norm} />
      </td>
    </tr>
  );
}

function CaseFooter({ about }: { about: CaseAbout }) {
  const exported = `${about.exported_at.slice(0, 16).replace('T', ' ')} UTC`;
  return (
    <footer className="case-footer" data-testid="case-footer">
      <span data-testid="case-redaction">{about.redaction.enabled ? sentence(about.redaction.summary) : 'Not redacted: this file holds the log text as it was'}</span>
      <span data-testid="case-cut">
        {about.cut.texts > 0
          ? `Cut: ${plural(about.cut.texts, 'long text')} kept to their head and tail (${formatCount(about.cut.chars)} characters left out, marked where they were)`
          : 'Nothing cut'}
        {about.episodes_left_out > 0 && `; ${plural(about.episodes_left_out, 'session')} listed only`}
      </span>
      <span>RouteLens {about.version}</span>
      <span title="The database this case was exported from">{about.database}</span>
      <span>exported {exported}</span>
    </footer>
  );
}

const sentence = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);
