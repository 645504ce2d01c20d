/**
 * What an estimator was trained on, in one line, from its own model card (shared/apiEstimator.ts ModelCard): the
 * episodes and turns, the runs, where the data came from (a simulation's preset and seed, or the database) and the
 * training seed. Nothing is assumed: without a card, what it was trained on is unknown.
 */
import type { ModelCard } from '../../../shared/apiEstimator.ts';
import { formatCount, plural } from '../../format/numbers.ts';

export function trainingSummary(card: ModelCard | null): string {
  if (!card) return 'no model card beside it: what it was trained on is unknown';
  const d = card.data;
  const runs = d.runs.length > 0 ? plural(d.runs.length, 'run') : 'every run';
  const from = d.simulated ? `simulated ${d.simulated.preset} (seed ${d.simulated.seed})` : d.database;
  const seed = typeof card.config.seed === 'number' ? `; training seed ${card.config.seed}` : '';
  return `trained on ${formatCount(d.episodes)} episodes (${formatCount(d.train_rows + d.validation_rows)} turns) of ${runs} of ${from}${seed}`;
}
