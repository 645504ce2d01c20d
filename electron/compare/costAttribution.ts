/**
 * Cost per model inside one side (issue 18 item 4): the calls of the side's sessions (scope `main`) and of
 * their child episodes (`subagent`: subagents and compaction sidechains), tokens split input / output / cache
 * reads / cache writes. A call of unknown cost is counted in `unknown_calls`, never as $0. An episode whose log
 * gives only a total for several models (SWE-agent style) has a known cost but no split by model: its calls are
 * counted, its total is not attributed, and the caller says how much was left so.
 *
 * A side that takes whole runs is summed by SQL over episode_models (a routed run has ~4 rows an episode:
 * reading them all into JS was a fifth of a cold comparison); a side that takes part of a run sums the
 * per-episode rows it keeps (compareSides.ts episodeModelsOf). Both feed the same accumulator below.
 */
import type { ModelCost } from '../../shared/apiCompare.ts';
import type { Db } from '../db/dbHandle.ts';
import type { CompareReads, RunEpisodes, SidePart, WholeRunCost } from './compareReads.ts';

export interface Attribution {
  rows: ModelCost[];
  /** Known cost no model can be given (totals of multi-model episodes), and how many episodes had it. */
  unattributedCost: number;
  unattributedEpisodes: number;
}

type Scope = ModelCost['scope'];
/** calls, tokens in, out, cached, cache writes, known cost, calls of unknown cost. */
type Sums = [number, number, number, number, number, number, number];

/** Rows by (scope, model), and the logged totals beyond the calls' costs. */
class Accumulator {
  readonly rows = new Map<string, ModelCost>();
  unattributedCost = 0;
  unattributedEpisodes = 0;

  constructor(private readonly names: Map<number, string>) {}

  private row(scope: Scope, modelId: number): ModelCost {
    const model = this.names.get(modelId) ?? String(modelId);
    const key = `${scope}\u0000${model}`;
    let row = this.rows.get(key);
    if (!row) {
      row = { model, scope, calls: 0, tokens_in: 0, tokens_out: 0, tokens_cached: 0, tokens_cache_write: 0, cost: 0, unknown_calls: 0 };
      this.rows.set(key, row);
    }
    return row;
  }

  add(scope: Scope, modelId: number, [calls, tin, tout, cached, written, cost, unknown]: Sums): void {
    const row = this.row(scope, modelId);
    row.calls += calls;
    row.tokens_in += tin;
    row.tokens_out += tout;
    row.tokens_cached += cached;
    row.tokens_cache_write += written;
    row.cost += cost;
    row.unknown_calls += unknown;
  }

  /** An episode's logged total beyond its calls' costs: one model made every call, so it is that model's. */
  rest(scope: Scope, models: number, lastModel: number, rest: number): void {
    if (rest <= 1e-12) return;
    if (models === 1) this.row(scope, lastModel).cost += rest;
    else {
      this.unattributedCost += rest;
      this.unattributedEpisodes++;
    }
  }

  result(): Attribution {
    const list = [...this.rows.values()].sort((x, y) =>
      x.scope === y.scope ? y.cost - x.cost || (x.model < y.model ? -1 : 1) : x.scope === 'main' ? -1 : 1,
    );
    return { rows: list, unattributedCost: this.unattributedCost, unattributedEpisodes: this.unattributedEpisodes };
  }
}

/** A whole run's sums, read once per run while the database is unchanged (a warm comparison skips SQL). */
/**
 * A logged total beyond the calls' costs worth attributing: more than the calls' rounding (a ClickHouse store keeps
 * call costs as float32, ~6e-8 relative each).
 */
export function isRest(rest: number, total: number): boolean {
  return rest > 1e-12 + 1e-6 * Math.abs(total);
}

export function wholeRunCostOf(db: Db, data: RunEpisodes): WholeRunCost {
  if (data.wholeRunCost) return data.wholeRunCost;
  // A call without a cost is unknown only when the episode's total is (no logged total covers it).
  const sums = db
    .prepare(`SELECT em.model_id, e.parent_ext_id IS NOT NULL, SUM(em.n_turns), SUM(COALESCE(em.tokens_in, 0)),
        SUM(COALESCE(em.tokens_out, 0)), SUM(COALESCE(em.tokens_cached, 0)), SUM(COALESCE(em.tokens_cache_write, 0)),
        SUM(em.cost), SUM(CASE WHEN e.unpriced_turns > 0 THEN em.unknown_turns ELSE 0 END)
      FROM episode_models em JOIN episodes e ON e.id = em.episode_id WHERE e.run_id = ? GROUP BY 1, 2`)
    .raw()
    .all(data.runId) as WholeRunCost['sums'];
  const rests = db
    // Correlated sums rather than a join grouped by episode: SQLite would sort all the run's rows to group them.
    .prepare(`SELECT child, (SELECT COUNT(*) FROM episode_models em WHERE em.episode_id = x.id),
        (SELECT MAX(em.model_id) FROM episode_models em WHERE em.episode_id = x.id), rest
      FROM (SELECT e.id, e.parent_ext_id IS NOT NULL AS child,
          e.total_cost - (SELECT TOTAL(em.cost) FROM episode_models em WHERE em.episode_id = e.id) AS rest
        FROM episodes e WHERE e.run_id = ? AND e.unpriced_turns = 0) x
      WHERE rest > 1e-12 ORDER BY x.id`)
    .raw()
    .all(data.runId) as WholeRunCost['rests'];
  data.wholeRunCost = { sums, rests };
  return data.wholeRunCost;
}

/** Whole runs, summed in SQL; a child is an episode naming a parent (RunEpisodes.plainChildren holds). */
function addWholeRun(reads: CompareReads, part: SidePart, acc: Accumulator): void {
  const { sums, rests } = reads.wholeRunCost(part.data);
  for (const [model, child, ...s] of sums) acc.add(child ? 'subagent' : 'main', model, s);
  for (const [child, models, model, rest] of rests) acc.rest(child ? 'subagent' : 'main', models, model ?? -1, rest);
}

/** Part of a run (or children SQL cannot tell apart): the kept per-episode rows of the sessions the side takes. */
function addSessions(reads: CompareReads, part: SidePart, acc: Accumulator): void {
  const { data, sessions } = part;
  const em = reads.episodeModelsOf(data);
  const n = data.id.length;
  const inSide = new Uint8Array(n);
  for (const i of sessions) inSide[i] = 1;
  const scopeOf = (e: number): Scope | null => {
    const r = data.root[e] as number;
    if (r < 0) return inSide[e] ? 'main' : null;
    return inSide[r] ? 'subagent' : null;
  };
  const callCost = new Float64Array(n);
  const models = new Int32Array(n);
  const lastModel = new Int32Array(n).fill(-1);
  for (let r = 0; r < em.episode.length; r++) {
    const e = em.episode[r] as number;
    const scope = scopeOf(e);
    if (scope === null) continue;
    const unknown = (data.unpriced[e] as number) > 0 ? (em.unknown[r] as number) : 0;
    acc.add(scope, em.model[r] as number, [
      em.calls[r] as number, em.tokensIn[r] as number, em.tokensOut[r] as number, em.tokensCached[r] as number,
      em.tokensCacheWrite[r] as number, em.cost[r] as number, unknown,
    ]);
    callCost[e]! += em.cost[r] as number;
    models[e]!++;
    lastModel[e] = em.model[r] as number;
  }
  for (let e = 0; e < n; e++) {
    const scope = scopeOf(e);
    if (scope === null || (data.unpriced[e] as number) > 0) continue;
    const rest = (data.cost[e] as number) - (callCost[e] as number);
    if (isRest(rest, data.cost[e] as number)) acc.rest(scope, models[e] as number, lastModel[e] as number, rest);
  }
}

export function attributeCost(reads: CompareReads, parts: SidePart[]): Attribution {
  const acc = new Accumulator(parts[0]?.data.modelNames ?? new Map());
  for (const part of parts) {
    if (part.whole && part.data.plainChildren) addWholeRun(reads, part, acc);
    else addSessions(reads, part, acc);
  }
  return acc.result();
}
