/**
 * "What would this side have cost with every call on model X?" (issue 18 item 5), priced as replay prices a
 * call it gives to another model (replay/replayData.ts, estimator/whatIf.ts): the call's own tokens at X's list
 * price (priceTurn, the importer's pricing), its output scaled by X's learned output-length ratio over the
 * logged model's (replay/outputLength.ts). A call already on X keeps its logged cost. A call with no token
 * counts, or an X without a price, leaves the session's counterfactual unknown.
 */
import type { Db } from '../db/database.ts';
import { aliasKey, priceTurn, type ModelPrice } from '../db/models.ts';
import { learnOutputRatios } from '../replay/outputLength.ts';
import { CompareError, type RunEpisodes } from './compareSides.ts';

export interface CounterfactualCosts {
  model: ModelPrice;
  /** Per run: each session's cost on the model with its children's calls folded in; NaN when unknown. */
  sessionCost: Map<number, Float64Array>;
  assumption: string;
}

export function counterfactualModel(db: Db, name: string): ModelPrice {
  const model = db
    .prepare(`SELECT m.id, m.name, m.price_in_per_m, m.price_out_per_m, m.price_cached_per_m, m.price_cache_write_per_m, m.price_source
      FROM model_aliases a JOIN models m ON m.id = a.model_id WHERE a.alias = ?`)
    .get(aliasKey(name)) as ModelPrice | undefined;
  if (!model) throw new CompareError(`no model named ${JSON.stringify(name)} for the counterfactual cost (see routelens models)`);
  return model;
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
    const index = new Map<number, number>();
    data.id.forEach((id, i) => index.set(id, i));
    const cost = new Float64Array(data.id.length);
    const called = new Uint8Array(data.id.length);
    for (const [episode, logged, tin, tout, cached, written, known] of turns.iterate(data.runId) as Iterable<
      [number, number, number | null, number | null, number | null, number | null, number | null]
    >) {
      const e = index.get(episode) as number;
      called[e] = 1;
      if (logged === model.id && known !== null) {
        cost[e]! += known;
        continue;
      }
      const scale = target / (ratios.get(logged) ?? 1);
      const priced = priceTurn(model, { in: tin, out: tout === null ? null : tout * scale, cached, cache_write: written });
      cost[e]! += priced ?? Number.NaN;
    }
    for (let i = 0; i < cost.length; i++) {
      // A cost logged without calls (a session total) has no tokens to price on another model.
      if (!called[i] && (data.cost[i] as number) > 0) cost[i] = Number.NaN;
    }
    for (let i = 0; i < cost.length; i++) {
      const r = data.root[i] as number;
      if (r >= 0) cost[r]! += cost[i] as number;
    }
    sessionCost.set(data.runId, cost);
  }
  const assumption =
    `every call priced at ${model.name}'s list price: its logged input, cache-read and cache-write tokens as they are, ` +
    `its output tokens × ${model.name}'s learned output-length ratio ÷ the logged model's; calls already on ${model.name} keep their logged cost`;
  return { model, sessionCost, assumption };
}
