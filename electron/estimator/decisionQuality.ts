/**
 * Does the estimator choose well? (issue 5, "proof it learns"). On simulated data the planted parameters are
 * known (the simulator's `.truth.json`), so every decision on a held-out turn can be valued exactly:
 *
 *   q(m | c, e) = P(turn on m makes progress) = (e ? recover[m] : 1 − err[m][c]) · skill[m][c]
 *
 * for a turn of tool category c whose previous turn erred (e) or not (fixtures/simulator/toolLoop.ts draws a
 * turn's error, then its success, exactly so). A policy's value is the mean q of its choices over the held-out
 * turns: the estimator's argmax ŝ(h_t, ·), every fixed model, and the uniform random router (the mean of q
 * over models). It is a one-step value — the turn's expected progress under the planted truth — because
 * changing one turn's model changes nothing else the simulator draws for that turn.
 * It also reports, per category, the model the estimator rates highest on average (mean ŝ over the held-out
 * turns of that category) beside the planted best model.
 */
import { z } from 'zod';
import type { DecisionQuality } from '../../shared/apiEstimator.ts';

export type { DecisionQuality };

/** The fields of a turn-routed preset's truth file this module reads. */
export const PlantedTruth = z.object({
  preset: z.string(),
  models: z.array(z.string()),
  categories: z.array(z.string()),
  skill: z.record(z.string(), z.record(z.string(), z.number())),
  error_rate: z.record(z.string(), z.record(z.string(), z.number())),
  recover: z.record(z.string(), z.number()),
  best_model: z.record(z.string(), z.string()),
});
export type PlantedTruth = z.infer<typeof PlantedTruth>;

export interface HeldOutTurn {
  /** The turn's tool category (`action.tool`); turns of categories the truth does not know are skipped. */
  category: string | null;
  previousErred: boolean;
}

/**
 * `scores` is [turns.length × K] of ŝ for the estimator's models (`models`, in that order); turns whose model
 * set or category the truth lacks are left out.
 */
export function decisionQuality(models: readonly string[], scores: Float32Array, turns: readonly HeldOutTurn[], truth: PlantedTruth): DecisionQuality {
  const K = models.length;
  const known = models.map((m) => truth.skill[m] !== undefined && truth.recover[m] !== undefined);
  if (!known.some(Boolean)) throw new RangeError(`none of the estimator's models (${models.join(', ')}) is in the truth file`);
  const q = (m: number, c: string, erred: boolean): number => {
    const name = models[m] as string;
    const skill = truth.skill[name]?.[c] ?? 0;
    const ok = erred ? (truth.recover[name] ?? 0) : 1 - (truth.error_rate[name]?.[c] ?? 1);
    return ok * skill;
  };
  const fixedSum = new Float64Array(K);
  let estimatorSum = 0;
  let randomSum = 0;
  let n = 0;
  const sHatSum = new Map<string, Float64Array>();
  const perCategory = new Map<string, number>();
  const inPool = models.map((_, m) => m).filter((m) => known[m]);
  turns.forEach((turn, i) => {
    const c = turn.category;
    if (c === null || !truth.categories.includes(c)) return;
    let best = -1;
    let bestScore = -Infinity;
    for (const m of inPool) {
      const s = scores[i * K + m] as number;
      if (s > bestScore) {
        bestScore = s;
        best = m;
      }
    }
    estimatorSum += q(best, c, turn.previousErred);
    let mean = 0;
    for (const m of inPool) {
      const v = q(m, c, turn.previousErred);
      fixedSum[m] = (fixedSum[m] as number) + v;
      mean += v;
    }
    randomSum += mean / inPool.length;
    const acc = sHatSum.get(c) ?? new Float64Array(K);
    for (const m of inPool) acc[m] = (acc[m] as number) + (scores[i * K + m] as number);
    sHatSum.set(c, acc);
    perCategory.set(c, (perCategory.get(c) ?? 0) + 1);
    n++;
  });
  if (n === 0) throw new RangeError('no held-out turn has a tool category the truth file knows');
  const policies = [
    { policy: 'estimator argmax', value: estimatorSum / n },
    { policy: 'random', value: randomSum / n },
    ...inPool.map((m) => ({ policy: `fixed:${models[m]}`, value: (fixedSum[m] as number) / n })),
  ];
  const others = policies.slice(1);
  const bestOther = others.reduce((a, b) => (b.value > a.value ? b : a));
  const byCategory = truth.categories
    .filter((c) => perCategory.has(c))
    .map((c) => {
      const acc = sHatSum.get(c) as Float64Array;
      const learned = inPool.reduce((a, b) => ((acc[b] as number) > (acc[a] as number) ? b : a));
      return { category: c, planted: truth.best_model[c] ?? '', learned: models[learned] as string, turns: perCategory.get(c) as number };
    });
  const estimatorValue = estimatorSum / n;
  return {
    truth_preset: truth.preset,
    turns: n,
    policies,
    estimator_value: estimatorValue,
    best_other: { ...bestOther, margin: estimatorValue - bestOther.value },
    beats_every_single_model_and_random: estimatorValue > bestOther.value,
    best_model_by_category: byCategory,
    categories_recovered: byCategory.filter((b) => b.planted === b.learned).length,
  };
}
