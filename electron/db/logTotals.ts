/**
 * Reconciliation of an episode with the totals its log records for itself (`log_totals`: Codex's
 * total_token_usage, Copilot's modelMetrics, OpenHands' metrics…), like with like: each kind the log totals is
 * compared with the sum of the episode's turns, and only where the turns carry that kind themselves.
 * - requests: the episode's turns (one per model response);
 * - tokens of a kind: the turns' sum, when at least one turn logs that kind;
 * - cost: the turns' cost as stored, when the episode's cost is theirs (null when a call's cost is unknown, which
 *   is a difference: the log knows a cost the import could not give).
 * A kind the turns do not carry (Copilot's tokens, logged only per session; an episode whose cost is the log's own
 * total or its per-model totals) is not compared: checking the log against itself proves nothing. An episode with
 * totals but no kind left to compare is "not comparable", never "reconciled".
 */
import type { CanonicalEpisode } from '../../shared/canonical.ts';

/** Relative difference above which the two figures are said to differ: 0.5% (rounding in logs stays below it). */
export const RECONCILE_TOLERANCE = 0.005;

/** In the order a warning names them: cost first, as the figure users act on. */
export const TOTAL_KINDS = ['cost', 'requests', 'in', 'out', 'cached', 'cache_write', 'cache_write_1h', 'reasoning'] as const;
export type TotalKind = (typeof TOTAL_KINDS)[number];
type TokenKind = Exclude<TotalKind, 'requests' | 'cost'>;
const TOKEN_KINDS: readonly TokenKind[] = ['in', 'out', 'cached', 'cache_write', 'cache_write_1h', 'reasoning'];

/** What the episode's stored cost was summed from: its turns, its per-model session totals, or the log's own total. */
export type CostBasis = 'turns' | 'usage_totals' | 'episode_cost';

/** One compared figure: the log's, the turns' (null: unknown), and (turns − log) / log when both are known. */
export interface TotalComparison {
  kind: TotalKind;
  logged: number;
  counted: number | null;
  /** Null when counted is unknown or the log's figure is 0 (no ratio to give). */
  rel: number | null;
  differs: boolean;
}

export interface Reconciliation {
  source: string;
  /** The log's figures and the turns', per kind, as stored (null where the log, or the turns, give none). */
  logged: Record<TotalKind, number | null>;
  counted: Record<TotalKind, number | null>;
  compared: TotalComparison[];
  /** Kinds the log totals that the turns do not carry: not compared. */
  notComparable: TotalKind[];
  /** How many compared kinds differ by more than RECONCILE_TOLERANCE. */
  differing: number;
  /** The largest |rel| of the kinds that differ with both sides known; null when none does. */
  worstRel: number | null;
}

/**
 * How far a cost the log gives in whole cents may be from the exact value: half a cent. Logs that print a running
 * total round it so (Aider's `$0.03 session`), and 13 of the 88 Aider sessions of the team's sample flagged at 0.5%
 * were within it. A figure with finer digits is exact, so nothing is allowed beyond the relative tolerance.
 */
export function centsRounding(usd: number): number {
  return usd > 0 && Math.abs(usd * 100 - Math.round(usd * 100)) < 1e-9 ? 0.005 : 0;
}

const sumOf = (values: (number | null | undefined)[]): number | null =>
  values.reduce<number | null>((a, v) => (v == null ? a : (a ?? 0) + v), null);

/**
 * The episode against its log's totals, or null when the log records none. `cost` is the episode's stored cost
 * (null when unknown) and what it was summed from.
 */
export function reconcile(ep: CanonicalEpisode, cost: { value: number | null; basis: CostBasis }): Reconciliation | null {
  const totals = ep.log_totals;
  if (!totals) return null;
  const logged = {} as Record<TotalKind, number | null>;
  const counted = {} as Record<TotalKind, number | null>;
  const carried = new Set<TotalKind>(['requests']);
  logged.requests = totals.requests ?? null;
  counted.requests = ep.turns.length;
  for (const kind of TOKEN_KINDS) {
    logged[kind] = totals.tokens?.[kind] ?? null;
    counted[kind] = sumOf(ep.turns.map((t) => t.tokens?.[kind]));
    if (counted[kind] !== null) carried.add(kind);
  }
  logged.cost = totals.cost_usd ?? null;
  // Turns carry a cost when one logs a cost or tokens to price; without, there is no sum of theirs to compare.
  const turnsCost = cost.basis === 'turns' && ep.turns.some((t) => t.cost_usd != null || t.tokens?.in != null || t.tokens?.out != null);
  counted.cost = turnsCost ? cost.value : null;
  if (turnsCost) carried.add('cost');

  // Rounding the log itself did: half a cent on a total given in cents, and half a cent on each turn's cost given in
  // cents (Aider prints every message's cost and the session's to the cent, so a sum of 20 messages may be 10 cents off).
  const costRounding = logged.cost === null ? 0 : centsRounding(logged.cost) + ep.turns.reduce((a, t) => a + (t.cost_usd == null ? 0 : centsRounding(t.cost_usd)), 0);
  const compared: TotalComparison[] = [];
  const notComparable: TotalKind[] = [];
  for (const kind of TOTAL_KINDS) {
    const log = logged[kind];
    if (log === null) continue;
    if (!carried.has(kind)) {
      notComparable.push(kind);
      continue;
    }
    const mine = counted[kind];
    const rel = mine === null || log === 0 ? null : (mine - log) / log;
    const differs = mine === null || Math.abs(mine - log) > Math.max(RECONCILE_TOLERANCE * Math.abs(log), kind === 'cost' ? costRounding : 0);
    compared.push({ kind, logged: log, counted: mine, rel, differs });
  }
  const off = compared.filter((c) => c.differs);
  const rels = off.map((c) => c.rel).filter((r): r is number => r !== null).map(Math.abs);
  return {
    source: totals.source, logged, counted, compared, notComparable, differing: off.length,
    worstRel: rels.length ? Math.max(...rels) : null,
  };
}

const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** Dollars to the cent from $1, four significant digits below (a turn's cost is often a fraction of a cent). */
export function usd(x: number): string {
  return Math.abs(x) >= 1 ? `$${x.toFixed(2)}` : `$${Number(x.toPrecision(4))}`;
}

const TOKEN_NAMES: Record<TokenKind, string> = {
  in: 'input tokens', out: 'output tokens', cached: 'cache-read tokens', cache_write: 'cache-write tokens',
  cache_write_1h: 'one-hour cache-write tokens', reasoning: 'reasoning tokens',
};

/** A signed percentage with a true minus sign: `−10.6%`, `+2.0%`. */
function percent(rel: number): string {
  const pct = (rel * 100).toFixed(1);
  return rel < 0 ? `−${pct.slice(1)}%` : `+${pct}%`;
}

function describe(c: TotalComparison): string {
  const delta = c.rel === null ? '' : ` (${percent(c.rel)})`;
  if (c.kind === 'cost') return `log total ${usd(c.logged)} vs turns ${c.counted === null ? 'unknown (calls without a known cost)' : usd(c.counted)}${delta}`;
  if (c.kind === 'requests') return `log total ${integer.format(c.logged)} requests vs ${integer.format(c.counted ?? 0)} turns${delta}`;
  return `log total ${integer.format(c.logged)} ${TOKEN_NAMES[c.kind]} vs turns ${integer.format(c.counted ?? 0)}${delta}`;
}

/**
 * The import warning for an episode whose log totals and turns differ, or null when they agree (or cannot be compared):
 * `episode X: log total $1.23 vs turns $1.10 (−10.6%); … (log totals: SOURCE)`. The pipeline prefixes the file.
 */
export function reconciliationWarning(episodeId: string, r: Reconciliation | null): string | null {
  if (!r || r.differing === 0) return null;
  const parts = r.compared.filter((c) => c.differs).map(describe);
  return `episode ${episodeId}: ${parts.join('; ')} (log totals from ${r.source})`;
}
