// The Runs table's mark for a run against its logs' own totals: reconciled, differs (by how much, in how many
// episodes), or nothing to check; a run whose logs total nothing is never shown as reconciled.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { RunLogTotals, RunSummary } from '../../../shared/api.ts';
import { RunsTable } from './RunsTable.tsx';

const NONE: RunLogTotals = { status: 'no totals in the log', episodes_with_totals: 0, episodes_differing: 0, episodes_not_comparable: 0, worst_rel: null, log_cost: null, counted_cost: null };

function run(id: number, name: string, log_totals: RunLogTotals): RunSummary {
  return {
    id, name, format: 'canonical', source_path: null, imported_at: '2026-01-01', policy_name: null, episodes: 2, turns: 36, models: ['gpt-5'],
    total_cost: 0.09, known_cost: 0.09, success_rate: null, mean_score_norm: null, unknown_outcome: 2, unpriced_turns: 0, unpriced_episodes: 0, child_episodes: 0,
    priced_turns: 0, log_totals,
  };
}

/** The mark of each run's row: its status and tooltip, entities decoded. */
function marks(runs: RunSummary[]): { status: string; text: string; title: string }[] {
  const html = renderToStaticMarkup(<RunsTable runs={runs} sort={{ key: 'imported', dir: 'asc' }} onSort={() => undefined} />);
  const found = [...html.matchAll(/<span class="log-totals[^"]*" title="([^"]*)" data-testid="run-log-totals" data-status="([^"]*)">([^<]*)<\/span>/g)];
  return found.map((m) => ({ title: (m[1] ?? '').replaceAll('&#x27;', "'"), status: m[2] ?? '', text: m[3] ?? '' }));
}

describe('Runs view: log totals', () => {
  it('says reconciled, differs with how much and in how many episodes, and no totals', () => {
    const shown = marks([
      run(1, 'agree', { status: 'reconciled', episodes_with_totals: 3, episodes_differing: 0, episodes_not_comparable: 1, worst_rel: null, log_cost: 0.0893484, counted_cost: 0.0893484 }),
      run(2, 'differ', { status: 'differs', episodes_with_totals: 1, episodes_differing: 1, episodes_not_comparable: 0, worst_rel: 1 / 17, log_cost: 0.0893484, counted_cost: 0.0858016 }),
      run(3, 'unchecked', { status: 'not comparable', episodes_with_totals: 2, episodes_differing: 0, episodes_not_comparable: 2, worst_rel: null, log_cost: null, counted_cost: null }),
      run(4, 'bare', NONE),
    ]);
    expect(shown.map((m) => [m.status, m.text])).toEqual([
      ['reconciled', '✓ log'], ['differs', '≠ log'], ['not comparable', 'log totals unchecked'], ['no totals in the log', 'no log totals'],
    ]);
    expect(shown[0]?.title).toBe(
      "Reconciled: all 2 episodes compared agree with their logs' own totals within 0.5%. 1 more episode totals only what the turns do not carry: not checked. Where both give a cost, the logs total $0.0893 and the turns $0.0893.",
    );
    expect(shown[1]?.title).toBe(
      "Differs: 1 of 1 episodes compared differ from their logs' own totals by up to 5.9% (the import listed each). Where both give a cost, the logs total $0.0893 and the turns $0.0858.",
    );
    expect(shown[2]?.title).toMatch(/^Not comparable: the logs of 2 episodes record totals, but only of what the turns do not carry/);
    expect(shown[3]?.title).toMatch(/^No totals in the log/);
  });

  it('never shows a run without totals, or with nothing compared, as reconciled', () => {
    const unchecked: RunLogTotals = { ...NONE, status: 'not comparable', episodes_with_totals: 1, episodes_not_comparable: 1 };
    for (const mark of marks([run(1, 'bare', NONE), run(2, 'unchecked', unchecked)])) {
      expect(mark.text).not.toContain('✓');
      expect(mark.title).not.toMatch(/reconciled/i);
    }
  });
});
