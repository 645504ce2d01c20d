/** One Compare figure in a card, laid out at the card's width and theme, with its Export menu. */
import { useMemo } from 'react';
import type { CompareInput, CompareResult } from '../../../shared/apiCompare.ts';
import { modelColorFrom } from '../../../shared/charts/context.ts';
import { COMPARE_FIGURES, type CompareFigureId } from '../../../shared/charts/layouts/compareFigures.ts';
import { chartTheme, type ThemeName } from '../../../shared/charts/theme.ts';
import { api } from '../../api/index.ts';
import { followMarkLink } from '../../charts/markLink.ts';
import { SceneSvg } from '../../charts/SceneSvg.tsx';
import type { MarkLink } from '../../../shared/charts/scene.ts';
import { useElementWidth } from '../../charts/useElementWidth.ts';
import { useAppStore } from '../../store/index.ts';
import { coreSaver, ExportMenu, type ExportChoice, type SaveOutcome } from '../analyses/ExportMenu.tsx';

/** A Compare figure's files, drawn by the core from the same comparison at the width shown (vector PDF). */
function compareSaver(request: CompareInput, figure: CompareFigureId, width: number, theme: ThemeName): (choice: ExportChoice) => Promise<SaveOutcome> {
  return coreSaver((options) => api.exportCompareFigure({ request, figure, ...options }), width, theme);
}

/** A per-task point opens its two episodes in the split inspector (the only link Compare's figures carry). */
function openLink(link: MarkLink): void {
  const { navigate, openEpisodesFromFigure, runs } = useAppStore.getState();
  void followMarkLink(link, {
    navigate,
    openEpisodesFromFigure,
    runs,
    resolveEpisode: () => Promise.reject(new Error('Compare figures link episodes by database id')),
  });
}

export function CompareFigure({ id, result, request }: { id: CompareFigureId; result: CompareResult; request: CompareInput }) {
  const theme = useAppStore((s) => s.theme);
  const models = useAppStore((s) => s.models);
  const [ref, width] = useElementWidth<HTMLDivElement>();
  const spec = COMPARE_FIGURES[id];
  const scene = useMemo(
    () => (width > 0 ? spec.layout(result, { theme: chartTheme(theme), width: Math.max(320, width), modelColor: modelColorFrom(models) }) : null),
    [spec, result, theme, width, models],
  );
  return (
    <section className="card figure-card" data-testid={`compare-figure-${id}`} data-state={scene ? 'ready' : 'loading'} style={scene ? { background: scene.background } : undefined}>
      <header className="figure-card-header">
        <h2>{spec.title}</h2>
        <div className="toolbar-spacer" />
        <ExportMenu save={compareSaver(request, id, width, theme)} />
      </header>
      <div className="figure-body" ref={ref}>
        {scene && <SceneSvg scene={scene} testId={`compare-scene-${id}`} onActivate={openLink} />}
      </div>
    </section>
  );
}
