/**
 * The switch between reading a turn (its conversation blocks) and the turn's record as imported (JSON).
 *
 * What "as imported" is: RouteLens keeps the canonical form of each turn (shared/canonical.ts) plus what it
 * derived at import (a priced cost, errors found by the rules, targets), not the log's original record. Storing
 * every original record would add about a third to a database (the demo's sources are 9.1 MB beside a 26 MB
 * database) and the formats spread one turn over several records (SWE-agent's history and trajectory, OTel spans),
 * so the view says plainly that this is the record as imported, not as logged.
 */
import { useState } from 'react';
import type { TurnDetail } from '../../../shared/api.ts';
import { TextBlock } from './TextBlock.tsx';

export type TurnView = 'reader' | 'raw';

const VIEW_KEY = 'routelens.turnView';

/** The chosen view, kept across turns and reloads (the panel is rebuilt for each turn). */
export function useTurnView(): [TurnView, (v: TurnView) => void] {
  const [view, setView] = useState<TurnView>(() => (readStored() === 'raw' ? 'raw' : 'reader'));
  return [
    view,
    (v) => {
      setView(v);
      try {
        localStorage.setItem(VIEW_KEY, v);
      } catch {
        // Storage can be full or disabled; the choice then lasts for this turn only.
      }
    },
  ];
}

function readStored(): string | null {
  try {
    return localStorage.getItem(VIEW_KEY);
  } catch {
    return null;
  }
}

export function TurnViewSwitch({ view, onChange }: { view: TurnView; onChange(v: TurnView): void }) {
  return (
    <span className="turn-view-switch" role="group" aria-label="Show the turn as">
      <button type="button" aria-pressed={view === 'reader'} onClick={() => onChange('reader')} data-testid="turn-view-reader">
        Reader
      </button>
      <button
        type="button"
        aria-pressed={view === 'raw'}
        onClick={() => onChange('raw')}
        title="The turn's record as RouteLens imported it, as JSON"
        data-testid="turn-view-raw"
      >
        JSON
      </button>
    </span>
  );
}

// The reader asked for the record: show most of it; only a huge observation inside it is cut.
const RAW_COLLAPSE = { lines: 400, chars: 20_000 };

export function TurnAsImported({ turn, highlight }: { turn: TurnDetail; highlight?: string }) {
  return (
    <section className="turn-raw" data-testid="turn-raw">
      <p className="turn-raw-note" data-testid="turn-raw-note">
        This is turn {turn.t} as imported: RouteLens's own form of the turn, with what it worked out at import (a cost
        priced from tokens, errors its rules found, targets). The log's original record is not kept; open the log file to
        see the turn as logged.
      </p>
      <TextBlock
        title="Turn as imported"
        text={JSON.stringify(turn, null, 2)}
        testId="turn-raw-json"
        format="code"
        language="json"
        highlight={highlight}
        collapseAt={RAW_COLLAPSE}
      />
    </section>
  );
}
