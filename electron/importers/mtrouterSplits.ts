/**
 * Which of MTRouter's splits a task is in, from the reference's own definition (fixtures/mtrouter-splits.json).
 * Split names are the reference's: `train`, `val`, `test_id` (in-distribution) and `ood_test` (held out);
 * `id` marks an in-distribution task whose finer split cannot be known (shared/splits.ts groups them).
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { PythonRandom } from './pythonRandom.ts';

const Splits = z.object({
  scienceworld: z.object({
    seed: z.number().int().nonnegative(),
    train_ratio: z.number().min(0).max(1),
    val_ratio: z.number().min(0).max(1),
    max_variations: z.number().int().positive(),
    min_variations: z.number().int().nonnegative(),
    train_tasks: z.array(z.string()),
    ood_test_tasks: z.array(z.string()),
    variation_counts: z.record(z.string(), z.number().int().positive()),
  }),
  hle: z.object({ train_categories: z.array(z.string()), ood_test_categories: z.array(z.string()) }),
});
type Splits = z.infer<typeof Splits>;

export type IdSplit = 'train' | 'val' | 'test_id';
export type MtrouterSplit = IdSplit | 'ood_test' | 'id';
export const ID_SPLITS: readonly IdSplit[] = ['train', 'val', 'test_id'];

let definition: Splits | undefined;
function splits(): Splits {
  definition ??= Splits.parse(JSON.parse(readFileSync(new URL('../../fixtures/mtrouter-splits.json', import.meta.url), 'utf8')));
  return definition;
}

let variationSplits: Map<string, Map<number, IdSplit>> | undefined;

/**
 * The reference's variation cut of the in-distribution task types: one generator for all of them, in list
 * order, each type's variations 0…n−1 (n capped) shuffled, then cut by int(n·ratio). Types with fewer than
 * the minimum are skipped, as the reference skips them.
 */
export function scienceWorldVariationSplits(): Map<string, Map<number, IdSplit>> {
  if (variationSplits) return variationSplits;
  const sw = splits().scienceworld;
  const rng = new PythonRandom(sw.seed);
  variationSplits = new Map();
  for (const task of sw.train_tasks) {
    const count = sw.variation_counts[task];
    if (count === undefined) throw new Error(`fixtures/mtrouter-splits.json: no variation count for "${task}"`);
    const n = Math.min(count, sw.max_variations);
    if (n < sw.min_variations) continue;
    const order = Array.from({ length: n }, (_, i) => i);
    rng.shuffle(order);
    const nTrain = Math.floor(n * sw.train_ratio);
    const nVal = Math.floor(n * sw.val_ratio);
    const byVariation = new Map<number, IdSplit>();
    order.forEach((v, i) => byVariation.set(v, i < nTrain ? 'train' : i < nTrain + nVal ? 'val' : 'test_id'));
    variationSplits.set(task, byVariation);
  }
  return variationSplits;
}

/** A ScienceWorld task's split; null for a task type the reference uses in neither split. */
export function scienceWorldSplit(taskName: string, variation: number | null): MtrouterSplit | null {
  const sw = splits().scienceworld;
  if (sw.ood_test_tasks.includes(taskName)) return 'ood_test';
  if (!sw.train_tasks.includes(taskName)) return null;
  // A variation past the cap (or of a skipped type) is in-distribution but in none of the reference's cuts.
  return (variation === null ? undefined : scienceWorldVariationSplits().get(taskName)?.get(variation)) ?? 'id';
}

/**
 * An HLE question's split by its subject category: `ood_test` or `id`. The reference cuts in-distribution
 * questions train / val / test_id by shuffling the whole dataset in its order, which we do not have.
 */
export function hleSplit(category: string | null): 'ood_test' | 'id' | null {
  if (category === null) return null;
  const hle = splits().hle;
  if (hle.ood_test_categories.includes(category)) return 'ood_test';
  if (hle.train_categories.includes(category)) return 'id';
  return null;
}
