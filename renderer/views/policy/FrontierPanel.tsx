/** The score/cost figure of a replay, with the choice of which estimate is plotted, and its SVG download. */
import { useMemo, useRef } from 'react';
import type { ReplayResult } from '../../../shared/apiReplay.ts';
import { policyFrontierLayout } from '../../../shared/charts/layouts/policyFrontier.ts';
import { chartTheme, runColor } from '../../../shared/charts/theme.ts';
import { SceneSvg } from '../../charts/SceneSvg.tsx';
import { useElementWidth } from '../../charts/useElementWidth.ts';
import { useAppStore } from '../../store/index.ts';
import { downloadText, svgDocument } from '../../charts/download.ts';
import { usePolicyLab } from './policyLabStore.ts';
import { estimatorLabel, exportName, frontierPolicies, SCORE_ESTIMATORS } from './policyResults.ts';

const HEIGHT = 340;

export function FrontierPanel({ result }: { result: ReplayResult }) {
  const estimator = usePolicyLab((s) => s.estimator);
  const setEstimator = usePolicyLab((s) => s.setEstimator);
  const theme = useAppStore((s) => s.theme);
  const [ref, width] = useElementWidth<HTMLDivElement>();
  const figure = useRef<HTMLDivElement>(null);
  const scene = useMemo(() => {
    if (width <= 0) return null;
    const policies = frontierPolicies(result, estimator, runColor);
    const ctx = { theme: chartTheme(theme), width, height: HEIGHT, modelColor: () => '' };
    return policyFrontierLayout({ policies, estimator: estimatorLabel(estimator) }, ctx);
  }, [result, estimator, theme, width]);

  const saveSvg = () => {
    const svg = figure.current?.querySelector('svg');
    if (svg) downloadText(exportName('frontier', result.runs).replace(/\.csv$/, '.svg'), svgDocument(svg), 'image/svg+xml');
  };

  return (
    <section className="card policy-frontier" data-testid="policy-frontier">
      <header className="panel-head">
        <h2 className="panel-title">Score against cost</h2>
        <div className="segmented" role="radiogroup" aria-label="Score estimate">
          {SCORE_ESTIMATORS.map((e) => (
            <button
              key={e.id}
              type="button"
              role="radio"
              aria-checked={estimator === e.id}
              className={estimator === e.id ? 'is-on' : undefined}
              title={e.title}
              onClick={() => setEstimator(e.id)}
              data-testid={`estimator-${e.id}`}
            >
              {e.label}
            </button>
          ))}
        </div>
        <span className="toolbar-spacer" />
        <button type="button" className="btn btn-ghost" onClick={saveSvg} disabled={!scene} data-testid="frontier-svg">
          SVG
        </button>
      </header>
      <div className="policy-frontier-body" ref={ref}>
        <div ref={figure}>{scene && <SceneSvg scene={scene} testId="frontier-figure" />}</div>
      </div>
    </section>
  );
}
