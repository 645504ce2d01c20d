/**
 * The columnar cache (DESIGN §2): the numeric turn and episode columns as typed arrays, loaded once per
 * database and reloaded when an import changed it. Analyses are single passes over these arrays instead of
 * SQL GROUP BYs over hundreds of thousands of rows. Turns are ordered by episode, then t, so an episode's
 * turns are the slice [turnStart[e], turnStart[e + 1]).
 */
import { splitValues } from '../../shared/splits.ts';
import type { Db } from '../db/dbHandle.ts';
import { nameKeyed } from '../../shared/nameKeyed.ts';

export interface ColumnarData {
  /** Episodes, in id order. */
  episodeId: Int32Array;
  episodeRun: Int32Array;
  /** 1 success, 0 failure, -1 unknown. */
  episodeSuccess: Int8Array;
  /** NaN when unknown. */
  episodeScoreNorm: Float32Array;
  /**
   * The episode's cost with its child episodes' costs folded in (a subagent's calls are its parent's spending);
   * NaN when any of those turns has an unknown cost not covered by a logged total (episodes.unpriced_turns).
   */
  episodeCost: Float64Array;
  /**
   * Index of the episode a child episode (subagent, compaction) belongs to — the root of its parent chain — or
   * -1 for a session. Children's turns are real model calls and stay in turn-level analyses; episode-level
   * analyses skip children (their cost is in the root's episodeCost), so each session counts once.
   */
  episodeParent: Int32Array;
  /** Numeric task difficulty; NaN when absent or not a number. */
  episodeDifficulty: Float32Array;
  /** Index into `budgetModes`, -1 when none. */
  episodeBudgetMode: Int8Array;
  /** -1 when none. */
  episodeTrainStep: Int32Array;
  /** -1 when none. */
  episodeMaxTurns: Int32Array;
  /** Index into `splits`, -1 when none. */
  episodeSplit: Int16Array;
  budgetModes: string[];
  splits: string[];
  turnStart: Int32Array; // length episodes + 1
  /** Turns. */
  turnModel: Int32Array; // models.id
  turnCategory: Int32Array; // index into `categories`
  /** NaN when the turn's cost is unknown (cost_source 'none'; turns.cost holds 0 there only because it is NOT NULL). */
  turnCost: Float32Array;
  /** 0 none, 1 low, 2 medium, 3 high. */
  turnSeverity: Int8Array;
  turnSwitched: Uint8Array;
  /** Critique controllers: -1 no verdict, 0 continue, 1 stop. */
  turnVerdict: Int8Array;
  /** -1 unknown, 0 incorrect, 1 correct. */
  turnVerifyCorrect: Int8Array;
  categories: string[];
  models: Map<number, string>;
  runs: Map<number, string>;
}

const caches = new WeakMap<Db, { key: string; stamp: string; data: ColumnarData }>();

/**
 * Changes whenever an import commits (new source, new or replaced turns). It counts the turns, a scan of
 * 25 ms at 420k turns, so it is asked only when `commitStamp` moved.
 */
function dataKey(db: Db): string {
  const row = db.prepare('SELECT (SELECT MAX(id) FROM sources) AS s, (SELECT MAX(id) FROM turns) AS t, (SELECT COUNT(*) FROM turns) AS n').get() as {
    s: number | null;
    t: number | null;
    n: number;
  };
  return `${row.s}:${row.t}:${row.n}`;
}

/**
 * O(1) and moves on every commit that could change the data: `data_version` on commits by other connections
 * (an import job's, or the API's connection seen from the analysis worker's), `total_changes()` on this
 * connection's own writes. It also moves on writes the cache does not read (estimates), so a moved stamp
 * only means "check the data key".
 */
export function commitStamp(db: Db): string {
  return `${db.pragma('data_version', { simple: true }) as number}:${db.prepare('SELECT total_changes()').pluck().get() as number}`;
}

export function columnar(db: Db): ColumnarData {
  const stamp = commitStamp(db);
  const hit = caches.get(db);
  if (hit && hit.stamp === stamp) return hit.data;
  const key = dataKey(db);
  if (hit && hit.key === key) {
    hit.stamp = stamp;
    return hit.data;
  }
  const data = load(db);
  caches.set(db, { key, stamp, data });
  return data;
}

function load(db: Db): ColumnarData {
  const nEpisodes = db.prepare('SELECT COUNT(*) FROM episodes').pluck().get() as number;
  const nTurns = db.prepare('SELECT COUNT(*) FROM turns').pluck().get() as number;
  const data: ColumnarData = {
    episodeId: new Int32Array(nEpisodes),
    episodeRun: new Int32Array(nEpisodes),
    episodeSuccess: new Int8Array(nEpisodes),
    episodeScoreNorm: new Float32Array(nEpisodes),
    episodeCost: new Float64Array(nEpisodes),
    episodeParent: new Int32Array(nEpisodes).fill(-1),
    episodeDifficulty: new Float32Array(nEpisodes),
    episodeBudgetMode: new Int8Array(nEpisodes),
    episodeTrainStep: new Int32Array(nEpisodes),
    episodeMaxTurns: new Int32Array(nEpisodes),
    episodeSplit: new Int16Array(nEpisodes),
    budgetModes: [],
    splits: [],
    turnStart: new Int32Array(nEpisodes + 1),
    turnModel: new Int32Array(nTurns),
    turnCategory: new Int32Array(nTurns),
    turnCost: new Float32Array(nTurns),
    turnSeverity: new Int8Array(nTurns),
    turnSwitched: new Uint8Array(nTurns),
    turnVerdict: new Int8Array(nTurns),
    turnVerifyCorrect: new Int8Array(nTurns),
    categories: [],
    models: new Map(db.prepare('SELECT id, name FROM models').raw().all() as [number, string][]),
    runs: new Map(db.prepare('SELECT id, name FROM runs').raw().all() as [number, string][]),
  };
  const index = new Map<number, number>();
  let e = 0;
  const modeIndex = new Map<string, number>();
  const splitIndex = new Map<string, number>();
  const unpriced = new Int32Array(nEpisodes);
  // Parent ids resolve in SQL through the (run_id, ext_id) key, and only for the few rows that name a parent.
  const parentIds: [number, number][] = [];
  for (const [id, run, success, score, cost, difficulty, mode, step, maxTurns, split, unpricedTurns, parentId] of db
    .prepare(`SELECT id, run_id, success, score_norm, total_cost, difficulty, budget_mode, train_step, max_turns, split, unpriced_turns,
        CASE WHEN parent_ext_id IS NULL THEN NULL ELSE (SELECT p.id FROM episodes p WHERE p.run_id = episodes.run_id AND p.ext_id = episodes.parent_ext_id) END
      FROM episodes ORDER BY id`)
    .raw()
    .iterate() as Iterable<[number, number, number | null, number | null, number, string | null, string | null, number | null, number | null, string | null, number, number | null]>) {
    const d = difficulty === null || difficulty.trim() === '' ? Number.NaN : Number(difficulty);
    data.episodeDifficulty[e] = d;
    let mi = -1;
    if (mode !== null) {
      mi = modeIndex.get(mode) ?? -1;
      if (mi === -1) {
        mi = data.budgetModes.length;
        modeIndex.set(mode, mi);
        data.budgetModes.push(mode);
      }
    }
    data.episodeBudgetMode[e] = mi;
    let si = -1;
    if (split !== null) {
      si = splitIndex.get(split) ?? -1;
      if (si === -1) {
        si = data.splits.length;
        splitIndex.set(split, si);
        data.splits.push(split);
      }
    }
    data.episodeSplit[e] = si;
    data.episodeTrainStep[e] = step ?? -1;
    data.episodeMaxTurns[e] = maxTurns ?? -1;
    data.episodeId[e] = id;
    data.episodeRun[e] = run;
    data.episodeSuccess[e] = success === null ? -1 : success;
    data.episodeScoreNorm[e] = score ?? Number.NaN;
    data.episodeCost[e] = cost;
    unpriced[e] = unpricedTurns;
    if (parentId !== null && parentId !== id) parentIds.push([e, parentId]);
    index.set(id, e);
    e++;
  }
  foldChildren(data, index, parentIds, unpriced);
  const categoryIndex = new Map<string, number>();
  let i = 0;
  let lastEpisode = -1;
  // raw() rows and iterate(): no object per row, which matters at 500k turns. The small columns travel packed in
  // one integer (model id × 256 + severity | switched << 2 | verdict << 3 | verify << 5 | unknown cost << 7):
  // better-sqlite3 pays per column, and 4 columns instead of 8 cut the scan from ~1.0 s to ~0.75 s of CPU at 527k turns.
  const verdicts = [-1, 0, 1];
  for (const [episode, packed, category, cost] of db
    .prepare(`SELECT episode_id,
        model_id * 256 + max_severity + 4 * switched + 8 * (CASE verdict WHEN 'continue' THEN 1 WHEN 'stop' THEN 2 ELSE 0 END)
          + 32 * (COALESCE(verify_correct, -1) + 1) + 128 * (cost_source = 'none'),
        COALESCE(tool, action_type), cost
      FROM turns ORDER BY episode_id, t`)
    .raw()
    .iterate() as Iterable<[number, number, string, number]>) {
    const ep = index.get(episode) as number;
    while (lastEpisode < ep) data.turnStart[++lastEpisode] = i;
    let c = categoryIndex.get(category);
    if (c === undefined) {
      c = data.categories.length;
      categoryIndex.set(category, c);
      data.categories.push(category);
    }
    const flags = packed & 255;
    data.turnModel[i] = Math.floor(packed / 256);
    data.turnCategory[i] = c;
    data.turnCost[i] = flags & 128 ? Number.NaN : cost;
    data.turnSeverity[i] = flags & 3;
    data.turnSwitched[i] = (flags >> 2) & 1;
    data.turnVerdict[i] = verdicts[(flags >> 3) & 3] as number;
    data.turnVerifyCorrect[i] = ((flags >> 5) & 3) - 1;
    i++;
  }
  while (lastEpisode < nEpisodes) data.turnStart[++lastEpisode] = i;
  return data;
}

/**
 * Points each child episode at the root of its parent chain, folds its cost and unknown-cost turns into that
 * root, and gives it the root's split so a split selection keeps a session's subagents with it. A parent not in
 * the database leaves the child standing alone; a cycle (hostile ids) is broken by leaving its members alone.
 */
function foldChildren(data: ColumnarData, index: Map<number, number>, parentIds: [number, number][], unpriced: Int32Array): void {
  const direct = new Map<number, number>();
  for (const [e, parentId] of parentIds) {
    const p = index.get(parentId);
    if (p !== undefined) direct.set(e, p);
  }
  for (const e of direct.keys()) {
    let root = e;
    let steps = 0;
    while (direct.has(root) && steps <= direct.size) {
      root = direct.get(root) as number;
      steps++;
    }
    if (root === e || direct.has(root)) continue;
    data.episodeParent[e] = root;
  }
  const own = Float64Array.from(data.episodeCost);
  for (const e of direct.keys()) {
    const root = data.episodeParent[e] as number;
    if (root < 0) continue;
    data.episodeCost[root] = (data.episodeCost[root] as number) + (own[e] as number);
    unpriced[root] = (unpriced[root] as number) + (unpriced[e] as number);
    data.episodeSplit[e] = data.episodeSplit[root] as number;
  }
  for (let e = 0; e < unpriced.length; e++) if ((unpriced[e] as number) > 0) data.episodeCost[e] = Number.NaN;
}

/**
 * Episode indexes of the selected runs (all runs when none are named), restricted to a split selection
 * (shared/splits.ts) when one is given; unknown run names, and a split no episode is in, are errors.
 */
export function selectEpisodes(data: ColumnarData, runNames?: readonly string[], split?: string): Int32Array {
  let wanted: Set<number> | null = null;
  if (runNames && runNames.length > 0) {
    const byName = new Map([...data.runs].map(([id, name]) => [name, id]));
    wanted = new Set();
    for (const name of runNames) {
      const id = byName.get(name);
      if (id === undefined) throw new RangeError(`no run named "${name}"`);
      wanted.add(id);
    }
  }
  let inSplit: Uint8Array | null = null;
  if (split !== undefined) {
    const values = new Set(splitValues(split));
    inSplit = Uint8Array.from(data.splits, (s) => (values.has(s) ? 1 : 0));
    if (!inSplit.includes(1)) {
      throw new RangeError(`no episode is in split "${split}" (splits here: ${data.splits.join(', ') || 'none'})`);
    }
  }
  const out: number[] = [];
  for (let e = 0; e < data.episodeId.length; e++) {
    if (wanted && !wanted.has(data.episodeRun[e] as number)) continue;
    if (inSplit && inSplit[data.episodeSplit[e] as number] !== 1) continue;
    out.push(e);
  }
  return Int32Array.from(out);
}

/**
 * Dense slots for model ids, so per-turn counting indexes a typed array instead of a Map (a Map lookup per
 * turn is most of an aggregation's time at 500k turns). `ids` is ascending; `slotOf[id]` is -1 for ids
 * that are not models.
 */
export function modelSlots(data: ColumnarData): { slotOf: Int32Array; ids: number[] } {
  const ids = [...data.models.keys()].sort((a, b) => a - b);
  const slotOf = new Int32Array((ids[ids.length - 1] ?? -1) + 1).fill(-1);
  ids.forEach((id, slot) => (slotOf[id] = slot));
  return { slotOf, ids };
}

/** Counts per model slot → `{model name: count / total}` over the models counted at least once, by model id. */
export function sharesOf(data: ColumnarData, ids: readonly number[], counts: Uint32Array, offset: number): { n: number; shares: Record<string, number> } {
  let n = 0;
  for (let s = 0; s < ids.length; s++) n += counts[offset + s] as number;
  const shares = nameKeyed<number>();
  for (let s = 0; s < ids.length; s++) {
    const k = counts[offset + s] as number;
    if (k > 0) shares[data.models.get(ids[s] as number) ?? String(ids[s])] = k / n;
  }
  return { n, shares };
}
