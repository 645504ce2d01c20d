/** Small, reused renderings of figures: costs (marking estimates), outcomes, severities. */
import type { Severity } from '../../shared/canonical.ts';
import { formatCost, formatCount, formatScore } from '../format/numbers.ts';

/** A cost; priced costs (tokens × pool prices, not logged) are marked as estimates. */
export function Cost({ usd, estimated }: { usd: number | null | undefined; estimated?: boolean }) {
  if (!estimated) return <span className="num">{formatCost(usd)}</span>;
  return (
    <span className="num cost-estimated" title="Estimated: priced from token counts × models/pool.json (the log had no cost)">
      ≈{formatCost(usd)}
    </span>
  );
}

/**
 * A cost some of whose calls are unknown (no logged cost, no price): the known part as a lower bound and how many calls
 * it leaves out, "≥ $25.61 (3 calls unpriced)"; "— (3 calls unpriced)" when nothing of it is known ("≥ $0" would read
 * as a cost of nothing). `short` keeps the count for the tooltip (a narrow column).
 */
export function KnownCost({ known, unpriced, short }: { known: number; unpriced: number; short?: boolean }) {
  const calls = `${formatCount(unpriced)} ${unpriced === 1 ? 'call' : 'calls'} unpriced`;
  return (
    <span
      className="num cost-lower-bound"
      data-unknown="true"
      title={`${known > 0 ? `At least ${formatCost(known)}` : 'Unknown'}: ${calls} (no cost in the log and no price known for the model)${known > 0 ? ', left out of the sum' : ''}`}
    >
      {known > 0 ? `≥ ${formatCost(known)}` : '—'}
      {!short && <span className="faint"> ({calls})</span>}
    </span>
  );
}

/**
 * An episode's outcome in words: "success", "failure", or "no outcome" when the log gives none, then
 * "score 0.68" when the log gives a final score (which may be on any scale, so it is named, never bare).
 */
export function OutcomeBadge({ success, score }: { success: boolean | null; score?: number | null }) {
  const kind = success === null ? 'unknown' : success ? 'success' : 'failure';
  // A score without a verdict is still an outcome: it reads "score 0.68" alone.
  const label = success === null ? (score != null ? null : 'no outcome') : success ? 'success' : 'failure';
  const title =
    success === null
      ? `The log says neither success nor failure${score != null ? `; its final score, as logged, is ${formatScore(score)}` : ': left out of success rates and mean scores'}`
      : `The log marks this episode a ${label ?? ''}${score != null ? `; its final score, as logged, is ${formatScore(score)}` : ''}`;
  return (
    <span className={`badge badge-${kind}`} data-testid="outcome" data-outcome={kind} title={title}>
      {label}
      {/* The space keeps "success score 1" apart when the text is copied (the flex gap is only visual). */}
      {score != null && <span className="badge-score num">{label ? ' ' : ''}score {formatScore(score)}</span>}
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
