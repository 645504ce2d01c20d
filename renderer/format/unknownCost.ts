/**
 * Why a cost reads "—": a turn's cost is unknown either because the log gives only the episode's total (SWE-agent,
 * Uno, ATIF, Copilot CLI's per-model session totals: never split across turns) or because the turn has neither a
 * logged cost nor a priced model. Said in the tooltip, so that "—" is never mistaken for $0 or for a bug.
 */
import type { EpisodeDetail, TurnDetail } from '../../shared/api.ts';
import { formatCost } from './numbers.ts';

/** What of an episode says why its turns' costs are unknown (a view that lacks it gets the general reason). */
export type CostEpisode = Partial<Pick<EpisodeDetail['episode'], 'total_cost' | 'unpriced_turns'>>;

/**
 * True when the episode's total is known although its turns' costs are not: the total is then the log's own
 * (the writer counts no unpriced turn for it), not a sum of turns.
 */
export function onlyEpisodeTotal(episode: CostEpisode | null | undefined): boolean {
  return episode?.total_cost != null && episode.unpriced_turns === 0;
}

/** The tooltip of a turn cost shown as "—". */
export function unknownTurnCostTitle(episode: CostEpisode | null | undefined): string {
  return onlyEpisodeTotal(episode)
    ? `Unknown: this log gives only the episode's total, ${formatCost(episode?.total_cost)}`
    : 'Unknown: no cost logged and no price known for this model';
}

/** The tooltip of a running total shown as "—": unknown from the first turn of unknown cost on. */
export function unknownCumulativeTitle(episode: CostEpisode | null | undefined, turns: readonly Pick<TurnDetail, 't' | 'cost'>[] = []): string {
  if (onlyEpisodeTotal(episode)) return unknownTurnCostTitle(episode);
  const first = turns.find((t) => t.cost === null);
  return first
    ? `Unknown: the cost of turn ${first.t} is unknown, so no running total from there on`
    : 'Unknown: a turn up to this one has an unknown cost, so there is no running total';
}
