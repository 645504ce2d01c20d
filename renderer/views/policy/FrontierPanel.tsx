/** The score/cost figure of a replay, with the choice of which estimate is plotted, and its export (PNG, PDF, SVG, CSV). */
import { useMemo } from 'react';
import type { ReplayResult } from '../../../shared/apiReplay.ts';
import { policyFrontierLayout } from '../../../shared/charts/layouts/policyFrontier.ts';
import { chartTheme } from '../../../shared/charts/theme.ts';
import { SceneSvg } from '../../charts/SceneSvg.tsx';
import { useElementWidth } from '../../charts/useElementWidth.ts';
import { useAppStore } from '../../store/index.ts';
import { api } from '../../api/index.ts';
import { coreSaver, ExportMenu } from '../analyses/ExportMenu.tsx';
import { usePolicyLab } from './policyLabStore.ts';
import { policyColors } from './policyColors.ts';
import { estimatorLabel, frontierPolicies, SCORE_ESTIMATORS } from './policyResults.ts';

const HEIGHT = 340;

export function FrontierPanel({ result }: { result: ReplayResult }) {
  const estimator = usePolicyLab((s) => s.estimator);
  const setEstimator = usePolicyLab((s) => s.setEstimator);
  const theme = useAppStore((s) => s.theme);
  const [ref, width] = useElementWidth<HTMLDivElement>();
  const figure = useMemo(() => ({ policies: frontierPolicies(result, estimator, policyColors(result)), estimator: estimatorLabel(estimator) }), [result, estimator]);
  const scene = useMemo(() => {
    if (width <= 0) return null;
    return policyFrontierLayout(figure, { theme: chartTheme(theme), width, height: HEIGHT, modelColor: () => '' });
  }, [figure, theme, width]);
  // Drawn to a file by the core from the points drawn here, as analysis figures are (a vector PDF).
  const runs = result.runs.map((r) => r.name);
  const save = coreSaver((options) => api.exportFrontierFigure({ figure, runs, ...options }), width, theme);

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
        {scene && <ExportMenu save={save} testId="frontier-export" />}
      </header>
      <div className="policy-frontier-body" ref={ref}>
        {scene && <SceneSvg scene={scene} testId="frontier-figure" />}
      </div>
    </section>
  );
}
