/** One Compare figure in a card, laid out at the card's width and theme, with its Export menu. */
import { useMemo, useRef, useState } from 'react';
import type { CompareResult } from '../../../shared/apiCompare.ts';
import { modelColorFrom } from '../../../shared/charts/context.ts';
import { COMPARE_FIGURES, type CompareFigureId } from '../../../shared/charts/layouts/compareFigures.ts';
import { chartTheme } from '../../../shared/charts/theme.ts';
import { errorMessage } from '../../api/index.ts';
import { followMarkLink } from '../../charts/markLink.ts';
import { SceneSvg } from '../../charts/SceneSvg.tsx';
import type { MarkLink } from '../../../shared/charts/scene.ts';
import { useElementWidth } from '../../charts/useElementWidth.ts';
import { Popover } from '../../components/Popover.tsx';
import { useAppStore } from '../../store/index.ts';
import { exportFigure, type ExportKind } from './figureExport.ts';

const CHOICES: { kind: ExportKind; label: string; detail: string }[] = [
  { kind: 'svg', label: 'SVG', detail: 'vector, for the web and editing' },
  { kind: 'png2x', label: 'PNG 2×', detail: 'twice the size on screen' },
  { kind: 'pngdpi', label: 'PNG at', detail: 'dpi, for print' },
  { kind: 'pdf', label: 'PDF', detail: 'the figure as a 300 dpi image' },
  { kind: 'csv', label: 'CSV', detail: 'the data behind the figure' },
];
const DPI_CHOICES = [150, 300, 600];

function ExportMenu({ onExport }: { onExport(kind: ExportKind, dpi: number): Promise<void> }) {
  const [dpi, setDpi] = useState(300);
  const [busy, setBusy] = useState<ExportKind | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const run = async (kind: ExportKind, close: () => void) => {
    setBusy(kind);
    setProblem(null);
    try {
      await onExport(kind, dpi);
      close();
    } catch (err) {
      setProblem(errorMessage(err));
    } finally {
      setBusy(null);
    }
  };
  return (
    <Popover testId="export-menu" button={<span>Export</span>} align="end">
      {(close) => (
        <div className="export-menu" role="menu" aria-label="Export this figure">
          {CHOICES.map((c) => (
            <div key={c.kind} className="export-row">
              <button type="button" role="menuitem" className="btn btn-ghost export-choice" disabled={busy !== null} onClick={() => void run(c.kind, close)} data-testid={`export-${c.kind}`}>
                <span className="export-label">{c.label}</span>
                {c.kind !== 'pngdpi' && <span className="faint">{c.detail}</span>}
                {busy === c.kind && <span className="spinner" aria-label="Exporting" />}
              </button>
              {c.kind === 'pngdpi' && (
                <>
                  <select aria-label="PNG resolution (dots per inch)" value={dpi} onChange={(e) => setDpi(Number(e.target.value))}>
                    {DPI_CHOICES.map((d) => (
                      <option key={d} value={d}>
                        {d}
                      </option>
                    ))}
                  </select>
                  <span className="faint">{c.detail}</span>
                </>
              )}
            </div>
          ))}
          {problem && (
            <div className="export-problem" role="alert">
              {problem}
            </div>
          )}
        </div>
      )}
    </Popover>
  );
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

export function CompareFigure({ id, result }: { id: CompareFigureId; result: CompareResult }) {
  const theme = useAppStore((s) => s.theme);
  const models = useAppStore((s) => s.models);
  const [ref, width] = useElementWidth<HTMLDivElement>();
  const holder = useRef<HTMLDivElement>(null);
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
        <ExportMenu onExport={(kind, dpi) => exportFigure(kind, id, result, holder.current?.querySelector('svg') ?? null, dpi)} />
      </header>
      <div className="figure-body" ref={ref}>
        <div ref={holder}>{scene && <SceneSvg scene={scene} testId={`compare-scene-${id}`} onActivate={openLink} />}</div>
      </div>
    </section>
  );
}
