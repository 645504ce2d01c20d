/**
 * Turn i of A beside turn i of B, one row per index in a single scroll container (so the two columns cannot
 * drift apart), virtualised for long sessions. A missing turn is an empty cell; the first divergence is marked.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef } from 'react';
import type { TurnDetail } from '../../../shared/api.ts';
import { ModelChip } from '../../components/ModelChip.tsx';
import { actionSummary } from '../../format/actionSummary.ts';
import { formatCost } from '../../format/numbers.ts';
import { DivergeIcon } from './DivergeIcon.tsx';
import { describeDivergence, type AlignedRow } from './alignTurns.ts';

const ROW_HEIGHT = 32;

type Row = AlignedRow<TurnDetail>;

function Cell({ turn, side }: { turn: TurnDetail | null; side: 'a' | 'b' }) {
  if (turn === null) return <span className="pair-cell is-empty" data-testid={`pair-cell-${side}`} data-empty="true" aria-label="no turn" />;
  const summary = actionSummary(turn);
  return (
    <span className="pair-cell" data-testid={`pair-cell-${side}`}>
      <ModelChip name={turn.model} compact />
      <span className="pair-cell-text" title={summary.full}>
        {summary.text}
        {summary.more > 0 ? ` +${summary.more}` : ''}
      </span>
      <span className="pair-cell-cost num">{formatCost(turn.cost)}</span>
    </span>
  );
}

function Gutter({ row, first }: { row: Row; first: boolean }) {
  if (row.differs.length === 0) return <span className="pair-gutter" />;
  const why = describeDivergence(row);
  if (first) {
    return (
      <span className="pair-gutter" title={`First divergence at turn ${row.index}: ${why}`} data-testid="divergence-marker" data-reasons={row.differs.join(' ')}>
        <span className="pair-diverge-mark" role="img" aria-label={`first divergence: ${why}`}>
          <DivergeIcon />
        </span>
      </span>
    );
  }
  return (
    <span className="pair-gutter" title={why} data-testid="pair-differs">
      <span className="pair-differs-mark" aria-label={why}>
        ≠
      </span>
    </span>
  );
}

export function AlignedTurns({
  rows,
  current,
  first,
  labels,
  onSelect,
}: {
  rows: Row[];
  current: number;
  /** Index of the first divergence, or null. */
  first: number | null;
  labels: { a: string; b: string };
  onSelect(index: number): void;
}) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 8,
  });

  // As in the inspector's turn list: a step scrolls just enough, a jump centres the row.
  const previous = useRef<number | null>(null);
  useEffect(() => {
    const jump = previous.current === null || Math.abs(current - previous.current) > 1;
    previous.current = current;
    virtualizer.scrollToIndex(current, { align: jump ? 'center' : 'auto' });
  }, [current, virtualizer]);

  return (
    <div className="pair-grid" data-testid="pair-grid" data-rows={rows.length}>
      <div className="pair-row pair-grid-head" aria-hidden="true">
        <span className="pair-t">t</span>
        <span className="pair-cell">A · {labels.a}</span>
        <span className="pair-gutter" />
        <span className="pair-cell">B · {labels.b}</span>
      </div>
      <div className="pair-grid-body" ref={scrollRef} role="listbox" aria-label="Turns of A and B, aligned" aria-activedescendant={`pair-row-${current}`}>
        <div className="pair-grid-inner" style={{ height: virtualizer.getTotalSize() }}>
          {virtualizer.getVirtualItems().map((item) => {
            const row = rows[item.index];
            if (!row) return null;
            const classes = ['pair-row'];
            if (item.index === current) classes.push('is-current');
            if (item.index === first) classes.push('is-divergence');
            else if (first !== null && item.index > first) classes.push('is-after');
            return (
              <div
                key={item.key}
                id={`pair-row-${item.index}`}
                role="option"
                aria-selected={item.index === current}
                className={classes.join(' ')}
                style={{ transform: `translateY(${item.start}px)`, height: ROW_HEIGHT }}
                onClick={() => onSelect(item.index)}
                data-testid="pair-row"
                data-t={item.index}
                data-differs={row.differs.join(' ')}
              >
                <span className="pair-t num">{item.index}</span>
                <Cell turn={row.a} side="a" />
                <Gutter row={row} first={item.index === first} />
                <Cell turn={row.b} side="b" />
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}
