/**
 * The list of turns beside the detail; virtualised, since agents run for thousands of turns. A row's model, cost and
 * flags come from the episode's lines; what the agent did from the turn in full, which a long episode brings a page
 * at a time for the rows in view.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef, type CSSProperties } from 'react';
import { ErrorIcon, SwitchIcon } from '../../components/icons.tsx';
import { ModelDot } from '../../components/ModelChip.tsx';
import { actionSummary } from '../../format/actionSummary.ts';
import { formatCost } from '../../format/numbers.ts';
import { unknownTurnCostTitle, type CostEpisode } from '../../format/unknownCost.ts';
import type { EpisodeTurns, TurnLine } from './useEpisodeTurns.ts';

const ROW_HEIGHT = 34;

export function TurnList({
  turns,
  full,
  current,
  onSelect,
  launched,
  episode,
}: {
  turns: readonly TurnLine[];
  full: Pick<EpisodeTurns, 'at' | 'want'>;
  current: number;
  onSelect(t: number): void;
  /** Child episodes (subagents) launched per turn t. */
  launched?: ReadonlyMap<number, number>;
  /** The episode's total, to say why a turn's cost is unknown when the log gives only that total. */
  episode?: CostEpisode;
}) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: turns.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 8,
  });

  // A step to the next turn scrolls just enough; a jump (next error, a click on the timeline) centres the turn.
  const previous = useRef<number | null>(null);
  useEffect(() => {
    const jump = previous.current === null || Math.abs(current - previous.current) > 1;
    previous.current = current;
    virtualizer.scrollToIndex(current, { align: jump ? 'center' : 'auto' });
  }, [current, virtualizer]);
  const unknownCost = useMemo(() => unknownTurnCostTitle(episode), [episode]);
  const items = virtualizer.getVirtualItems();
  const firstShown = items[0]?.index ?? 0;
  const lastShown = items[items.length - 1]?.index ?? 0;
  const { want } = full;
  useEffect(() => want(firstShown, lastShown), [want, firstShown, lastShown]);

  return (
    <div
      className="turn-list"
      ref={scrollRef}
      data-testid="turn-list"
      role="listbox"
      aria-label="Turns"
      aria-activedescendant={`turn-${current}`}
      style={{ '--turn-digits': String(turns[turns.length - 1]?.t ?? 0).length } as CSSProperties}
    >
      <div className="turn-list-inner" style={{ height: virtualizer.getTotalSize() }}>
        {items.map((item) => {
          const turn = turns[item.index];
          if (!turn) return null;
          const worst = turn.max_severity;
          const whole = full.at(item.index);
          const summary = whole ? actionSummary(whole) : null;
          return (
            <div
              key={item.key}
              id={`turn-${item.index}`}
              role="option"
              aria-selected={item.index === current}
              className={item.index === current ? 'turn-item is-current' : 'turn-item'}
              style={{ transform: `translateY(${item.start}px)`, height: ROW_HEIGHT }}
              onClick={() => onSelect(item.index)}
              data-testid="turn-item"
              data-t={item.index}
            >
              <span className="turn-item-t num">{turn.t}</span>
              <ModelDot name={turn.model} />
              <span className="turn-item-text" title={`${summary?.full ?? ''}\n(${turn.model})`} data-testid="turn-summary">
                {summary ? summary.text : <span className="faint">…</span>}
              </span>
              <span className="turn-item-flags">
                {summary && summary.more > 0 ? (
                  <span title={`${summary.more} more tool call(s) in this response`} data-testid="turn-more-calls">
                    +{summary.more}
                  </span>
                ) : null}
                {launched?.get(turn.t) ? (
                  <span className="flag-launched" title={`Launched ${launched.get(turn.t)} child episode(s): see the turn`} data-testid="flag-launched">
                    ↳{launched.get(turn.t)}
                  </span>
                ) : null}
                {turn.switched && (
                  <span className="flag-switch" title="Model switched at this turn">
                    <SwitchIcon />
                  </span>
                )}
                {worst && (
                  <span className={`flag-error sev-text-${worst}`} title={`Error (${worst})`}>
                    <ErrorIcon />
                  </span>
                )}
              </span>
              <span className="turn-item-cost num" title={turn.cost === null ? unknownCost : undefined} data-testid="turn-item-cost">
                {formatCost(turn.cost)}
              </span>
            </div>
          );
        })}
      </div>
    </div>
  );
}
