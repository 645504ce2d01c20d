/** Small, reused renderings of figures: costs (marking estimates), outcomes, severities. */
import type { Severity } from '../../shared/canonical.ts';
import { formatCost, formatScore } from '../format/numbers.ts';

/** A cost; priced costs (tokens × pool prices, not logged) are marked as estimates. */
export function Cost({ usd, estimated }: { usd: number | null | undefined; estimated?: boolean }) {
  if (!estimated) return <span className="num">{formatCost(usd)}</span>;
  return (
    <span className="num cost-estimated" title="Estimated: priced from token counts × models/pool.json (the log had no cost)">
      ≈{formatCost(usd)}
    </span>
  );
}

export function OutcomeBadge({ success, score }: { success: boolean | null; score?: number | null }) {
  const kind = success === null ? 'unknown' : success ? 'success' : 'failure';
  const label = success === null ? 'Unknown' : success ? 'Success' : 'Failure';
  return (
    <span className={`badge badge-${kind}`} data-testid="outcome" data-outcome={kind}>
      {label}
      {score != null && <span className="badge-score num">{formatScore(score)}</span>}
    </span>
  );
}

export function SeverityBadge({ severity }: { severity: Severity }) {
  return (
    <span className={`sev sev-${severity}`} data-severity={severity}>
      {severity}
    </span>
  );
}
