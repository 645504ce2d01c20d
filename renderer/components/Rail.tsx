/** The left rail: one entry per view. Links are real fragment links, so they open in place and show in the status bar. */
import type { MouseEvent, ReactNode } from 'react';
import { formatHash, type Route, type ViewName } from '../routing/route.ts';
import { useAppStore } from '../store/index.ts';
import { AnalysesIcon, CompareIcon, EpisodesIcon, EstimatorIcon, InspectorIcon, PolicyIcon, RunsIcon } from './icons.tsx';

function RailLink({ route, view, label, icon, disabled, also = [] }: { route: Route | null; view: ViewName; label: string; icon: ReactNode; disabled?: boolean; also?: ViewName[] }) {
  const shown = useAppStore((s) => s.route.view);
  // A view reached from another (the split inspector from Compare) keeps its parent's entry lit.
  const current = also.includes(shown) ? view : shown;
  const runIds = useAppStore((s) => s.runIds);
  const navigate = useAppStore((s) => s.navigate);
  if (!route || disabled) {
    return (
      <span className="rail-link is-disabled" title={`${label}: open an episode first`} data-testid={`rail-${view}`} aria-disabled="true">
        {icon}
        <span>{label}</span>
      </span>
    );
  }
  const onClick = (e: MouseEvent) => {
    if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
    e.preventDefault();
    navigate(route);
  };
  return (
    <a
      className={current === view ? 'rail-link is-current' : 'rail-link'}
      href={formatHash({ route, runIds })}
      onClick={onClick}
      aria-current={current === view ? 'page' : undefined}
      data-testid={`rail-${view}`}
    >
      {icon}
      <span>{label}</span>
    </a>
  );
}

export function Rail() {
  const lastEpisode = useAppStore((s) => s.lastEpisode);
  return (
    <nav className="rail" aria-label="Views">
      <div className="rail-logo" aria-hidden="true">
        <svg width="26" height="26" viewBox="0 0 26 26">
          <circle cx="5" cy="20" r="3" fill="#0072B2" />
          <circle cx="13" cy="6" r="3" fill="#E69F00" />
          <circle cx="21" cy="16" r="3" fill="#009E73" />
          <path d="M5 20L13 6l8 10" fill="none" stroke="currentColor" strokeWidth="1.6" opacity="0.55" />
        </svg>
      </div>
      <RailLink route={{ view: 'runs' }} view="runs" label="Runs" icon={<RunsIcon />} />
      <RailLink route={{ view: 'episodes' }} view="episodes" label="Episodes" icon={<EpisodesIcon />} />
      <RailLink
        route={lastEpisode ? { view: 'episode', episodeId: lastEpisode.episodeId, turn: lastEpisode.turn } : null}
        view="episode"
        label="Inspector"
        icon={<InspectorIcon />}
      />
      <RailLink route={{ view: 'analyses', analysis: null }} view="analyses" label="Analyses" icon={<AnalysesIcon />} />
      <RailLink route={{ view: 'estimator' }} view="estimator" label="Estimator" icon={<EstimatorIcon />} />
      <RailLink route={{ view: 'policy' }} view="policy" label="Policy lab" icon={<PolicyIcon />} />
      <RailLink route={{ view: 'compare' }} view="compare" label="Compare" icon={<CompareIcon />} also={['pair']} />
    </nav>
  );
}
