/**
 * Analyses (DESIGN §8): the index of every analysis as cards, and one page per analysis. Each page compares
 * the runs selected in the top bar.
 */
import { FIGURES } from '../../../shared/charts/figures.ts';
import { EmptyState } from '../../components/EmptyState.tsx';
import { NoRunsYet } from '../../components/NoRunsYet.tsx';
import { formatHash } from '../../routing/route.ts';
import { useAppStore } from '../../store/index.ts';
import { AnalysisGlyph } from './AnalysisGlyph.tsx';
import { AnalysisPageView } from './AnalysisPageView.tsx';
import { analysisPage, ANALYSIS_PAGES } from './catalog.ts';
import '../../charts/charts.css';
import './analyses.css';

function AnalysisIndex() {
  const navigate = useAppStore((s) => s.navigate);
  const runIds = useAppStore((s) => s.runIds);
  return (
    <div className="view-pad analyses-index" data-testid="analyses-index">
      <div className="view-header">
        <h1>Analyses</h1>
        <span className="muted">Every figure compares the runs selected in the top bar, and exports as SVG, PNG, PDF or CSV.</span>
      </div>
      <ul className="analysis-cards">
        {ANALYSIS_PAGES.map((page) => {
          const route = { view: 'analyses', analysis: page.id } as const;
          return (
            <li key={page.id}>
              <a
                className="card analysis-card"
                href={formatHash({ route, runIds })}
                onClick={(e) => {
                  if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
                  e.preventDefault();
                  navigate(route);
                }}
                data-testid="analysis-card"
                data-analysis={page.id}
              >
                <AnalysisGlyph id={page.id} />
                <span className="analysis-card-text">
                  <span className="analysis-card-name">{page.name}</span>
                  <span className="analysis-card-desc">{FIGURES[page.id]?.description ?? ''}</span>
                  <span className="analysis-card-source faint">{page.source}</span>
                </span>
              </a>
            </li>
          );
        })}
      </ul>
    </div>
  );
}

export default function AnalysesView({ analysis }: { analysis: string | null }) {
  const runs = useAppStore((s) => s.runs);
  if (runs.length === 0) return <NoRunsYet />;
  if (analysis === null) return <AnalysisIndex />;
  const page = analysisPage(analysis);
  if (!page) {
    return (
      <EmptyState title={`No analysis called “${analysis}”`} testId="analysis-unknown">
        <p>Choose one from the list of analyses.</p>
      </EmptyState>
    );
  }
  return <AnalysisPageView key={page.id} page={page} />;
}
