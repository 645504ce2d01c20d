/** Training MSE and validation MAE per epoch (shared/charts/layouts/lossCurves.ts), at the card's width. */
import { useMemo } from 'react';
import { lossCurvesScene, type EpochPoint } from '../../../shared/charts/layouts/lossCurves.ts';
import { chartTheme } from '../../../shared/charts/theme.ts';
import { SceneDrawing } from '../../charts/SceneSvg.tsx';
import { useElementWidth } from '../../charts/useElementWidth.ts';
import { useAppStore } from '../../store/index.ts';

export function LossCurves({ epochs, maxEpochs, baselineMae, testId }: { epochs: readonly EpochPoint[]; maxEpochs?: number; baselineMae?: number | null; testId: string }) {
  const theme = useAppStore((s) => s.theme);
  const [ref, width] = useElementWidth<HTMLDivElement>();
  const scene = useMemo(
    () => (width > 0 ? lossCurvesScene(epochs, chartTheme(theme), Math.max(360, width), { maxEpochs, baselineMae }) : null),
    [epochs, theme, width, maxEpochs, baselineMae],
  );
  return (
    <div ref={ref} className="est-loss" data-testid={testId} data-epochs={epochs.length}>
      {scene && <SceneDrawing scene={scene} testId={`${testId}-figure`} />}
    </div>
  );
}
