/**
 * The Scene of an analysis response at a width, in the app's theme and model colours: laid out on the main
 * thread when small, in the worker when large (figureLayout.ts). While a worker layout is under way the
 * previous scene stays up (a resize does not blank the figure).
 */
import { useEffect, useMemo, useState } from 'react';
import type { AnalysisResponse } from '../../shared/analysisResults.ts';
import type { Scene } from '../../shared/charts/scene.ts';
import { errorMessage } from '../api/index.ts';
import { useAppStore } from '../store/index.ts';
import { layoutFigure, layoutOffThread, type LayoutJob } from './figureLayout.ts';
import { layoutInWorker } from './layoutInWorker.ts';

export interface FigureScene {
  scene: Scene | null;
  error: string | null;
  /** A worker layout for the current response or width is still running. */
  pending: boolean;
}

export function useFigureScene(response: AnalysisResponse | null, width: number): FigureScene {
  const theme = useAppStore((s) => s.theme);
  const allModels = useAppStore((s) => s.models);
  const models = useMemo(() => allModels.map((m) => ({ name: m.name, color_index: m.color_index })), [allModels]);
  const offThread = useMemo(() => (response ? layoutOffThread(response) : false), [response]);

  const onThread = useMemo((): { scene: Scene | null; error: string | null } | null => {
    if (!response || width <= 0 || offThread) return null;
    try {
      return { scene: layoutFigure({ response, width, theme, models }), error: null };
    } catch (err) {
      return { scene: null, error: errorMessage(err) };
    }
  }, [response, width, theme, models, offThread]);

  const [fromWorker, setFromWorker] = useState<{ job: LayoutJob; scene: Scene | null; error: string | null } | null>(null);
  const job = useMemo((): LayoutJob | null => (response && width > 0 && offThread ? { response, width, theme, models } : null), [response, width, theme, models, offThread]);
  useEffect(() => {
    if (!job) return;
    let live = true;
    layoutInWorker(job).then(
      (scene) => live && setFromWorker({ job, scene, error: null }),
      (err: unknown) => live && setFromWorker({ job, scene: null, error: errorMessage(err) }),
    );
    return () => {
      live = false;
    };
  }, [job]);

  if (onThread) return { ...onThread, pending: false };
  if (!job) return { scene: null, error: null, pending: false };
  // A scene of another response is not shown for this one; one of the same response at another width is (a resize).
  const usable = fromWorker?.job.response === response ? fromWorker : null;
  return { scene: usable?.scene ?? null, error: usable?.error ?? null, pending: fromWorker?.job !== job };
}
