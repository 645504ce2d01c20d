/**
 * The turn timeline: draws timelineLayout's geometry as SVG; a click on any turn's column selects it. Compact,
 * it keeps the error marks and the model strip and leaves out the cost plot and turn numbers (36 px, not 148).
 */
import { useEffect, useMemo, useRef, useState, type RefObject } from 'react';
import { formatCost } from '../../format/numbers.ts';
import { useModelColors } from '../../store/index.ts';
import type { Density } from './inspectorLayout.ts';
import { TIMELINE_HEIGHT, timelineLayout } from './timelineLayout.ts';
import type { TurnLine } from './useEpisodeTurns.ts';

/** Compact: where the error marks and the strip move to (their centre and top), and the height. */
const COMPACT = { errorY: 7, stripTop: 16, height: 36 };

function useWidth<T extends HTMLElement>(): [RefObject<T | null>, number] {
  const ref = useRef<T>(null);
  const [width, setWidth] = useState(0);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const observer = new ResizeObserver((entries) => {
      const w = entries[0]?.contentRect.width ?? 0;
      setWidth(Math.floor(w));
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  return [ref, width];
}

/** A turn's tooltip; a pixel column's says which turns it holds, the cost where it ends and how many had errors. */
function hitTitle(turns: readonly TurnLine[], t: number, last: number): string {
  const turn = turns[t];
  if (last === t) {
    return (
      `Turn ${t} · ${turn?.model ?? ''} · ${formatCost(turn?.cost)} (total ${formatCost(turn?.cumulative_cost)})` +
      (turn?.switched ? ' · switched model' : '') +
      (turn && turn.errors.length > 0 ? ` · ${turn.errors.map((er) => `${er.type} (${er.severity})`).join(', ')}` : '')
    );
  }
  let errors = 0;
  const models = new Set<string>();
  for (let i = t; i <= last; i++) {
    const each = turns[i];
    if (!each) continue;
    models.add(each.model);
    if (each.errors.length > 0) errors++;
  }
  const shown = [...models].slice(0, 3).join(', ') + (models.size > 3 ? ` and ${models.size - 3} more` : '');
  return `Turns ${t}–${last} · ${shown} · total ${formatCost(turns[last]?.cumulative_cost)} at turn ${last}` + (errors > 0 ? ` · ${errors} with errors` : '') + ' · click opens the first';
}

export function Timeline({
  turns,
  current,
  onSelect,
  density = 'full',
}: {
  turns: readonly TurnLine[];
  current: number;
  onSelect(t: number): void;
  density?: Density;
}) {
  const compact = density === 'compact';
  const [ref, width] = useWidth<HTMLDivElement>();
  const colorOf = useModelColors();
  const layout = useMemo(() => (width > 0 ? timelineLayout(turns, width) : null), [turns, width]);
  // Once per layout, not per step: a pixel column's title reads every turn it holds.
  const titles = useMemo(() => layout?.hits.map((h) => hitTitle(turns, h.t, h.last)) ?? [], [layout, turns]);
  const currentBand = layout && turns.length > 0 ? layout.band(current) : null;
  // Compact moves the lanes up instead of asking the layout for other geometry: marks keep their x and size.
  const errorShift = layout && compact ? COMPACT.errorY - layout.errorY : 0;
  const stripShift = layout && compact ? COMPACT.stripTop - layout.strip.top : 0;
  const height = compact ? COMPACT.height : TIMELINE_HEIGHT;

  return (
    // The box takes the drawing's height (content-box, the border outside it), so folding the plot leaves no empty box.
    <div className={compact ? 'timeline is-compact' : 'timeline'} ref={ref} style={{ height }} data-testid="timeline" data-density={density}>
      {layout && (
        <svg width={layout.width} height={height} role="img" aria-label={`Timeline of ${turns.length} turns`}>
          <text className="timeline-lane-label" x={4} y={layout.errorY + errorShift + 4}>
            errors
          </text>
          <text className="timeline-lane-label" x={4} y={layout.strip.top + stripShift + layout.strip.height / 2 + 4}>
            model
          </text>
          {!compact && layout.costTicks.map((tick) => (
            <g key={tick.value} data-testid="timeline-cost-tick">
              <line className="timeline-grid" x1={layout.plot.left} x2={layout.plot.right} y1={tick.y} y2={tick.y} />
              <text className="timeline-tick" x={layout.plot.left - 6} y={tick.y + 3.5} textAnchor="end">
                {formatCost(tick.value, { trimZeros: true })}
              </text>
            </g>
          ))}
          {currentBand && (
            <rect
              className="timeline-current"
              x={currentBand.x - 1}
              width={Math.max(currentBand.width, 1) + 2}
              y={compact ? 1 : 2}
              height={layout.strip.top + stripShift + layout.strip.height + (compact ? 0 : 2)}
              rx={2}
            />
          )}
          {/* No cost line where the cost is unknown from the first turn: a flat line would read as $0. */}
          {!compact && layout.costLine !== '' && (
            <>
              <path className="timeline-cost-area" d={layout.costArea} />
              <path className="timeline-cost-line" d={layout.costLine} data-testid="timeline-cost" />
            </>
          )}
          {!compact && layout.costGap && (
            <text
              className="timeline-lane-label"
              x={layout.costGap.x + 4}
              y={(layout.plot.top + layout.plot.bottom) / 2 + 4}
              data-testid="timeline-cost-gap"
            >
              {layout.costGap.label}
              <title>A flat line would read as $0: the turns' costs are not in the log (the turn list says why)</title>
            </text>
          )}
          <g transform={stripShift ? `translate(0 ${stripShift})` : undefined}>
          <g data-testid="timeline-marks">
            {layout.marks.map((m) => (
              <rect
                key={m.t}
                className={m.t === current ? 'timeline-mark is-current' : 'timeline-mark'}
                x={m.x}
                y={layout.strip.top}
                width={m.width}
                height={layout.strip.height}
                fill={colorOf(m.model)}
                data-model={m.model}
              />
            ))}
          </g>
          {layout.switches.map((s) => (
            <g key={s.t} className="timeline-switch" data-testid="timeline-switch">
              <line x1={s.x} x2={s.x} y1={layout.strip.top - 5} y2={layout.strip.top + layout.strip.height + 5} />
              <path d={`M${s.x - 3.5},${layout.strip.top - 9}L${s.x + 3.5},${layout.strip.top - 9}L${s.x},${layout.strip.top - 4}Z`} />
            </g>
          ))}
          </g>
          <g transform={errorShift ? `translate(0 ${errorShift})` : undefined}>
          {layout.errors.map((e) => (
            <path key={e.t} className={`timeline-error sev-fill-${e.severity}`} d={e.path} data-testid="timeline-error" data-severity={e.severity} />
          ))}
          </g>
          {!compact && layout.turnTicks.map((tick) => (
            <text key={tick.t} className="timeline-tick" x={tick.x} y={layout.axisY} textAnchor="middle">
              {tick.t}
            </text>
          ))}
          {/* Hit areas last, so a click anywhere in a turn's column selects it (the column's first turn, drawn by pixel). */}
          {layout.hits.map((h, i) => (
            <rect
              key={h.t}
              className="timeline-hit"
              x={h.x}
              y={0}
              width={h.width}
              height={layout.strip.top + stripShift + layout.strip.height + (compact ? 2 : 6)}
              onClick={() => onSelect(h.t)}
              data-testid="timeline-turn"
              data-t={h.t}
            >
              <title>{titles[i]}</title>
            </rect>
          ))}
        </svg>
      )}
    </div>
  );
}
