/**
 * Data splits as `--split` names them. An episode stores one split name (`episodes.split`, canonical
 * `task.split`); a selection is a comma-separated list of names, each either a stored name or a group.
 *
 * MTRouter (seed 000, App. A) trains on `train`, selects on `val` and reports in-distribution results on
 * `test_id` and held-out results on `ood_test`. The groups put those next to the generic names other logs use
 * (the simulator writes `train` / `test` / `ood`), so `--split id` and `--split ood` give the paper's in-domain
 * vs held-out comparison on any of them. A group also matches episodes stored under its own name.
 */

// A Map, not an object: a split named `constructor` or `__proto__` must not find Object.prototype's members.
export const SPLIT_GROUPS: ReadonlyMap<string, readonly string[]> = new Map([
  ['id', ['id', 'train', 'val', 'test', 'test_id']],
  ['ood', ['ood', 'ood_test']],
]);

const NAME = /^[A-Za-z0-9_.-]{1,100}$/;

/** The stored split names a selection matches, sorted; a RangeError for an empty or malformed selection. */
export function splitValues(selection: string): string[] {
  const names = selection.split(',').map((s) => s.trim());
  const values = new Set<string>();
  for (const name of names) {
    if (!NAME.test(name)) {
      throw new RangeError(`--split takes split names separated by commas (letters, digits, _ . -), got "${selection}"`);
    }
    for (const v of SPLIT_GROUPS.get(name) ?? [name]) values.add(v);
  }
  return [...values].sort();
}
