/**
 * "What would this side have cost with every call on model X?" (issue 18 item 5), priced as replay prices a
 * call it gives to another model (replay/replayData.ts, estimator/whatIf.ts): the call's own tokens at X's list
 * price (priceTurn, the importer's pricing), its output scaled by X's learned output-length ratio over the
 * logged model's (replay/outputLength.ts). A call already on X keeps its logged cost. A call with no token
 * counts, or an X without a price, leaves the session's counterfactual unknown.
 */
import type { Db } from '../db/dbHandle.ts';
import { aliasKey, priceTurn, type ModelPrice } from '../db/models.ts';
import { learnOutputRatios } from '../replay/outputLength.ts';
import { CompareError, type CounterfactualCosts, type RunEpisodes } from './compareReads.ts';

export function counterfactualModel(db: Db, name: string): ModelPrice {
  const model = db
    .prepare(`SELECT m.id, m.name, m.price_in_per_m, m.price_out_per_m, m.price_cached_per_m, m.price_cache_write_per_m, m.price_source
      FROM model_aliases a JOIN models m ON m.id = a.model_id WHERE a.alias = ?`)
    .get(aliasKey(name)) as ModelPrice | undefined;
  if (!model) throw new CompareError(`no model named ${JSON.stringify(name)} for the counterfactual cost (see routelens models)`);
  return model;
}

/** One call of a run: its episode's id (in the run's data), its logged model, tokens, and known cost (null: unknown). */
export type CallRow = [episode: number, logged: number | string, tin: number | null, tout: number | null, cached: number | null, written: number | null, known: number | null];

/**
 * Each session's cost with every call on `model` (ModelPrice; `isModel` tells a call already on it), from the run's
 * calls on either store, in as many batches as come: SQLite reads them at once, a ClickHouse store in parts
 * (store/clickhouse/queries/storeCompare.ts). `finish` folds each child episode into its session.
 */
export class SessionCostsOn {
  private readonly cost: Float64Array;
  private readonly called: Uint8Array;
  /** An episode id's index in the run's data. */
  private readonly index = new Map<number, number>();

  constructor(
    private readonly data: RunEpisodes,
    private readonly model: ModelPrice,
    private readonly isModel: (logged: number | string) => boolean,
    private readonly ratioOf: (logged: number | string) => number,
    private readonly target: number,
  ) {
    this.cost = new Float64Array(data.id.length);
    this.called = new Uint8Array(data.id.length);
    data.id.forEach((id, i) => this.index.set(id, i));
  }

  add(calls: Iterable<CallRow>): void {
    const { cost, called, index } = this;
    for (const [episode, logged, tin, tout, cached, written, known] of calls) {
      // A call of an episode the run's data does not hold (on a store, one not visible) is not the run's.
      const e = index.get(episode);
      if (e === undefined) continue;
      called[e] = 1;
      if (this.isModel(logged) && known !== null) {
        cost[e]! += known;
        continue;
      }
      const scale = this.target / this.ratioOf(logged);
      const priced = priceTurn(this.model, { in: tin, out: tout === null ? null : tout * scale, cached, cache_write: written });
      cost[e]! += priced ?? Number.NaN;
    }
  }

  finish(): Float64Array {
    const { cost, called, data } = this;
    for (let i = 0; i < cost.length; i++) {
      // A cost logged without calls (a session total) has no tokens to price on another model.
      if (!called[i] && (data.cost[i] as number) > 0) cost[i] = Number.NaN;
    }
    for (let i = 0; i < cost.length; i++) {
      const r = data.root[i] as number;
      if (r >= 0) cost[r]! += cost[i] as number;
    }
    return cost;
  }
}

/** What the counterfactual assumes, said under its numbers. */
export function counterfactualAssumption(model: string): string {
  return `every call priced at ${model}'s list price: its logged input, cache-read and cache-write tokens as they are, ` +
    `its output tokens × ${model}'s learned output-length ratio ÷ the logged model's; calls already on ${model} keep their logged cost`;
}

export function counterfactualCosts(db: Db, runs: readonly RunEpisodes[], name: string): CounterfactualCosts {
  const model = counterfactualModel(db, name);
  const ratios = learnOutputRatios(db).ratio;
  const target = ratios.get(model.id) ?? 1;
  const turns = db.prepare(`SELECT t.episode_id, t.model_id, t.tokens_in, t.tokens_out, t.tokens_cached, t.tokens_cache_write,
      CASE WHEN t.cost_source = 'none' THEN NULL ELSE t.cost END
    FROM turns t JOIN episodes e ON e.id = t.episode_id WHERE e.run_id = ?`).raw();
  const sessionCost = new Map<number, Float64Array>();
  for (const data of runs) {
    const acc = new SessionCostsOn(data, model, (logged) => logged === model.id, (logged) => ratios.get(logged as number) ?? 1, target);
    acc.add(turns.iterate(data.runId) as Iterable<CallRow>);
    sessionCost.set(data.runId, acc.finish());
  }
  return { model, sessionCost, assumption: counterfactualAssumption(model.name) };
}
