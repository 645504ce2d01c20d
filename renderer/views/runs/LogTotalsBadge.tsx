/**
 * Whether a run's imported figures match the totals its logs record for themselves (RunSummary.log_totals), as a
 * compact mark under the run's cost with the figures in its tooltip. A run whose logs total nothing, or only what the
 * turns do not carry, is said to have nothing checked, never shown as reconciled.
 */
import type { RunLogTotals } from '../../../shared/api.ts';
import { formatCost, formatCount } from '../../format/numbers.ts';

function costPart(t: RunLogTotals): string {
  if (t.log_cost === null) return '';
  return ` Where both give a cost, the logs total ${formatCost(t.log_cost)} and the turns ${formatCost(t.counted_cost)}.`;
}

function uncheckedPart(t: RunLogTotals): string {
  const n = t.episodes_not_comparable;
  return n > 0 ? ` ${formatCount(n)} more ${n === 1 ? 'episode totals' : 'episodes total'} only what the turns do not carry: not checked.` : '';
}

export function logTotalsTitle(t: RunLogTotals): string {
  const compared = formatCount(t.episodes_with_totals - t.episodes_not_comparable);
  switch (t.status) {
    case 'no totals in the log':
      return 'No totals in the log: its files record no totals of their own to check the imported turns against';
    case 'not comparable':
      return `Not comparable: the logs of ${formatCount(t.episodes_with_totals)} episodes record totals, but only of what the turns do not carry (such as tokens logged per session only, or a cost that is the log's own total), so nothing could be checked`;
    case 'reconciled':
      return `Reconciled: all ${compared} episodes compared agree with their logs' own totals within 0.5%.${uncheckedPart(t)}${costPart(t)}`;
    case 'differs': {
      const worst = t.worst_rel === null ? '' : ` by up to ${(t.worst_rel * 100).toFixed(1)}%`;
      return `Differs: ${formatCount(t.episodes_differing)} of ${compared} episodes compared differ from their logs' own totals${worst} (the import listed each).${uncheckedPart(t)}${costPart(t)}`;
    }
  }
}

const MARK: Record<RunLogTotals['status'], string> = {
  reconciled: '✓ log', differs: '≠ log', 'not comparable': 'log totals unchecked', 'no totals in the log': 'no log totals',
};

export function LogTotalsBadge({ totals }: { totals: RunLogTotals }) {
  const tone = totals.status === 'reconciled' ? 'ok' : totals.status === 'differs' ? 'differs' : 'none';
  return (
    <span className={`log-totals log-totals-${tone}`} title={logTotalsTitle(totals)} data-testid="run-log-totals" data-status={totals.status}>
      {MARK[totals.status]}
    </span>
  );
}
