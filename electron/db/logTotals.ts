/**
 * Reconciliation of an episode with the totals its log records for itself (`log_totals`: Codex's
 * total_token_usage, Copilot's modelMetrics, OpenHands' metrics…). Each kind the log totals is compared with
 * what RouteLens counts for the episode; a kind the log does not total is not compared. What RouteLens counts:
 * - requests: the episode's turns (one per model response);
 * - tokens of a kind: the turns' sum, or, when no turn logs that kind, the per-model session totals'
 *   (`usage_totals`, as the episode's cost falls back to them); null when neither has it;
 * - cost: the episode's cost as stored (the turns' sum, or the session totals or logged total it falls back to);
 *   null when a call's cost is unknown.
 * A side that is unknown where the log has a figure is a difference: the log knows something the import lost.
 */
import type { CanonicalEpisode } from '../../shared/canonical.ts';

/** Relative difference above which the two figures are said to differ: 0.5% (rounding in logs stays below it). */
export const RECONCILE_TOLERANCE = 0.005;

/** In the order a warning names them: cost first, as the figure users act on. */
export const TOTAL_KINDS = ['cost', 'requests', 'in', 'out', 'cached', 'cache_write', 'cache_write_1h', 'reasoning'] as const;
export type TotalKind = (typeof TOTAL_KINDS)[number];
type TokenKind = Exclude<TotalKind, 'requests' | 'cost'>;
const TOKEN_KINDS: readonly TokenKind[] = ['in', 'out', 'cached', 'cache_write', 'cache_write_1h', 'reasoning'];

/** One compared figure: the log's, RouteLens's (null: unknown), and (counted − logged) / logged when both are known. */
/** What RouteLens's figure is: the turns, the per-model session totals standing in for them, or the episode's logged cost. */
export type CountedBasis = 'turns' | 'usage_totals' | 'episode_cost';

export interface TotalComparison {
  kind: TotalKind;
  logged: number;
  counted: number | null;
  basis: CountedBasis;
  /** Null when counted is unknown or the log's figure is 0 (no ratio to give). */
  rel: number | null;
  differs: boolean;
}

export interface Reconciliation {
  source: string;
  /** The log's figures and RouteLens's, per kind, as stored (null where the log gives none). */
  logged: Record<TotalKind, number | null>;
  counted: Record<TotalKind, number | null>;
  compared: TotalComparison[];
  /** How many compared kinds differ by more than RECONCILE_TOLERANCE. */
  differing: number;
  /** The largest |rel| of the kinds that differ with both sides known; null when none does. */
  worstRel: number | null;
}

const sumOf = (values: (number | null | undefined)[]): number | null =>
  values.reduce<number | null>((a, v) => (v == null ? a : (a ?? 0) + v), null);

/**
 * The episode against its log's totals, or null when the log records none. `cost` is the episode's stored cost
 * (null when unknown) and what it was summed from.
 */
export function reconcile(ep: CanonicalEpisode, cost: { value: number | null; basis: CountedBasis }): Reconciliation | null {
  const totals = ep.log_totals;
  if (!totals) return null;
  const logged = {} as Record<TotalKind, number | null>;
  const counted = {} as Record<TotalKind, number | null>;
  const basis = {} as Record<TotalKind, CountedBasis>;
  logged.requests = totals.requests ?? null;
  counted.requests = ep.turns.length;
  basis.requests = 'turns';
  for (const kind of TOKEN_KINDS) {
    logged[kind] = totals.tokens?.[kind] ?? null;
    const fromTurns = sumOf(ep.turns.map((t) => t.tokens?.[kind]));
    const fromUsage = fromTurns === null ? sumOf((ep.usage_totals ?? []).map((u) => u.tokens?.[kind])) : null;
    counted[kind] = fromTurns ?? fromUsage;
    basis[kind] = fromTurns === null && fromUsage !== null ? 'usage_totals' : 'turns';
  }
  logged.cost = totals.cost_usd ?? null;
  counted.cost = cost.value;
  basis.cost = cost.basis;

  const compared: TotalComparison[] = [];
  for (const kind of TOTAL_KINDS) {
    const log = logged[kind];
    if (log === null) continue;
    const mine = counted[kind];
    const rel = mine === null || log === 0 ? null : (mine - log) / log;
    const differs = mine === null || (log === 0 ? mine !== 0 : Math.abs(mine - log) > RECONCILE_TOLERANCE * Math.abs(log));
    compared.push({ kind, logged: log, counted: mine, basis: basis[kind], rel, differs });
  }
  const off = compared.filter((c) => c.differs);
  const rels = off.map((c) => c.rel).filter((r): r is number => r !== null).map(Math.abs);
  return {
    source: totals.source, logged, counted, compared, differing: off.length, worstRel: rels.length ? Math.max(...rels) : null,
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
  const side = c.basis === 'usage_totals' ? 'per-model totals' : c.basis === 'episode_cost' ? "the episode's logged cost" : 'turns';
  const delta = c.rel === null ? '' : ` (${percent(c.rel)})`;
  if (c.kind === 'cost') return `log total ${usd(c.logged)} vs ${side} ${c.counted === null ? 'unknown (calls without a known cost)' : usd(c.counted)}${delta}`;
  if (c.kind === 'requests') return `log total ${integer.format(c.logged)} requests vs ${integer.format(c.counted ?? 0)} turns${delta}`;
  const name = TOKEN_NAMES[c.kind];
  return `log total ${integer.format(c.logged)} ${name} vs ${side} ${c.counted === null ? 'none logged' : integer.format(c.counted)}${delta}`;
}

/**
 * The import warning for an episode whose log totals and RouteLens's figures differ, or null when they agree:
 * `episode X: log total $1.23 vs turns $1.10 (−10.6%); … (log totals: SOURCE)`. The pipeline prefixes the file.
 */
export function reconciliationWarning(episodeId: string, r: Reconciliation | null): string | null {
  if (!r || r.differing === 0) return null;
  const parts = r.compared.filter((c) => c.differs).map(describe);
  return `episode ${episodeId}: ${parts.join('; ')} (log totals from ${r.source})`;
}
