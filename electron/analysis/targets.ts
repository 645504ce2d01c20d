/**
 * The `targets` analysis (DESIGN §5, §8): per-turn S̃_t and penalty for one episode, recomputed from the
 * stored severities through shared/formulas.ts so a change of N or of the rules shows at once.
 */
import { aecTargets, severityFromLevel } from '../../shared/formulas.ts';
import type { Db } from '../db/dbHandle.ts';
import { errorsOfEpisode, episodeMeta, turnsOfEpisode } from '../db/turnQueries.ts';
import type { TargetsResult } from '../../shared/analysisResults.ts';
import { storedExpectedSteps } from './storedExpectedSteps.ts';

export function episodeTargets(db: Db, episodeId: number): Omit<TargetsResult, 'episode'> {
  const meta = episodeMeta(db, episodeId);
  if (!meta) throw new Error(`no episode with id ${episodeId}`);
  const turns = turnsOfEpisode(db, episodeId);
  const errors = errorsOfEpisode(db, episodeId);
  // The N the import stored, so these are the targets the import wrote.
  const n = storedExpectedSteps(meta);
  const targets = aecTargets(meta.score_norm, turns.map((t) => severityFromLevel(t.max_severity)), n);
  return {
    turns: turns.map((turn, i) => ({
      t: turn.t,
      s_tilde: targets[i]?.s_tilde ?? null,
      penalty: targets[i]?.penalty ?? 0,
      errors: errors.filter((e) => e.turn_id === turn.id).map((e) => e.type),
    })),
  };
}
