/**
 * "Runs drawn": which of the selected runs the figures draw, when more are selected than one figure can draw
 * (SIDE_BY_SIDE_MAX). One choice for every figure (the store's `drawnRuns`, sent as the request's `draw`), so a
 * run is drawn, and coloured, alike in each; each drawn run shows the colour it has in them.
 */
import { useId } from 'react';
import { SIDE_BY_SIDE_MAX } from '../../../shared/analysisResults.ts';
import { runColors } from '../../../shared/charts/palette.ts';
import { Popover } from '../../components/Popover.tsx';
import { VisibleName } from '../../components/VisibleName.tsx';

export function RunsDrawn({ selectable, drawn, onChange }: { selectable: readonly string[]; drawn: readonly string[]; onChange(runs: string[]): void }) {
  const id = useId();
  const colorOf = runColors(drawn);
  const full = drawn.length >= SIDE_BY_SIDE_MAX;
  const toggle = (run: string) => onChange(drawn.includes(run) ? drawn.filter((r) => r !== run) : [...drawn, run]);
  return (
    <Popover testId="runs-drawn" button={<span>Runs drawn: {drawn.length} of {selectable.length}</span>} buttonTitle={`Every figure draws at most ${SIDE_BY_SIDE_MAX} runs, the same ones`} align="end">
      {() => (
        <div className="runs-drawn" role="group" aria-label="Runs drawn in every figure">
          <p className="faint runs-drawn-lede">
            Every figure draws at most {SIDE_BY_SIDE_MAX} of the selected runs, the same ones in the same colours; the others are named under its legend.
            {full && ' Untick one to draw another.'}
          </p>
          <ul className="runs-drawn-items">
            {selectable.map((run) => {
              const on = drawn.includes(run);
              const inputId = `${id}-${run}`;
              return (
                <li key={run}>
                  <input
                    type="checkbox"
                    id={inputId}
                    checked={on}
                    // The last drawn run stays: a figure with none would be empty.
                    disabled={on ? drawn.length === 1 : full}
                    onChange={() => toggle(run)}
                    data-testid="runs-drawn-option"
                    data-run={run}
                  />
                  <label htmlFor={inputId} title={run}>
                    <span className="runs-drawn-swatch" style={on ? { background: colorOf(run) } : undefined} data-series={on ? run : undefined} aria-hidden="true" />
                    <span className="cell-ellipsis">
                      <VisibleName name={run} />
                    </span>
                  </label>
                </li>
              );
            })}
          </ul>
          <button type="button" className="btn btn-ghost" onClick={() => onChange([])} data-testid="runs-drawn-default">
            Default: the runs with the most scored episodes
          </button>
        </div>
      )}
    </Popover>
  );
}
