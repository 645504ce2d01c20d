/**
 * An estimator's training domain (shared/estimatorDomain.ts) read from its card. Cards record the task types
 * they were trained on since issue 17; for an older card the task types of its runs are looked up in this
 * database by run name (the shipped default's `sw-*` runs are the simulated ScienceWorld runs imported beside
 * it), and said to be inferred. Only episodes with an outcome count: training skips the others.
 */
import type { Db } from '../db/dbHandle.ts';
import { splitCondition } from '../db/splitFilter.ts';
import type { EstimatorDomain, TrainingTaskType } from '../../shared/estimatorDomain.ts';
import type { ModelCard } from '../../shared/apiEstimator.ts';

/** Episodes per named task type over `runs` (by name; empty = every run) and the split selection, most first. */
export function trainingTaskTypes(db: Db, runs: readonly string[], split?: string | null): TrainingTaskType[] {
  const inSplit = splitCondition('e.split', split ?? undefined);
  const where = [
    'e.score_norm IS NOT NULL',
    'e.task_type IS NOT NULL',
    ...(runs.length ? [`e.run_id IN (SELECT id FROM runs WHERE name IN (${runs.map(() => '?').join(', ')}))`] : []),
    ...(inSplit ? [inSplit] : []),
  ].join(' AND ');
  return db
    .prepare(`SELECT e.task_type, COUNT(*) AS episodes FROM episodes e WHERE ${where} GROUP BY e.task_type ORDER BY episodes DESC, e.task_type`)
    .all(...runs) as TrainingTaskType[];
}

export function domainOf(db: Db, card: ModelCard | null): EstimatorDomain | null {
  const own = domainOfCard(card);
  if (!card || !own || own.task_types_from === 'card') return own;
  const present = card.data.runs.filter((name) => db.prepare('SELECT 1 FROM runs WHERE name = ?').get(name) !== undefined);
  if (present.length === 0) return own;
  return { ...own, task_types: trainingTaskTypes(db, present, card.data.split), task_types_from: 'runs_here' };
}

/** The domain a card tells by itself (its task types unknown when it predates recording them): for a store, whose runs are not looked up. */
export function domainOfCard(card: ModelCard | null): EstimatorDomain | null {
  if (!card) return null;
  const base = { runs: card.data.runs, models: card.models };
  return card.data.task_types ? { ...base, task_types: card.data.task_types, task_types_from: 'card' } : { ...base, task_types: null, task_types_from: 'unknown' };
}
