/**
 * Cost per model inside one side (issue 18 item 4): the calls of the side's sessions (scope `main`) and of
 * their child episodes (`subagent`: subagents and compaction sidechains), tokens split input / output / cache
 * reads / cache writes. A call of unknown cost is counted in `unknown_calls`, never as $0. An episode whose log
 * gives only a total for several models (SWE-agent style) has a known cost but no split by model: its calls are
 * counted, its total is not attributed, and the caller says how much was left so.
 */
import type { ModelCost } from '../../shared/apiCompare.ts';
import type { SidePart } from './compareSides.ts';

export interface Attribution {
  rows: ModelCost[];
  /** Known cost no model can be given (totals of multi-model episodes), and how many episodes had it. */
  unattributedCost: number;
  unattributedEpisodes: number;
}

export function attributeCost(parts: SidePart[]): Attribution {
  const rows = new Map<string, ModelCost>();
  let unattributedCost = 0;
  let unattributedEpisodes = 0;
  for (const { data, sessions } of parts) {
    const n = data.id.length;
    const inSide = new Uint8Array(n);
    for (const i of sessions) inSide[i] = 1;
    const scopeOf = (e: number): ModelCost['scope'] | null => {
      const r = data.root[e] as number;
      if (r < 0) return inSide[e] ? 'main' : null;
      return inSide[r] ? 'subagent' : null;
    };
    // Known cost of each episode's calls, to find what its total holds beyond them (a logged episode total).
    const callCost = new Float64Array(n);
    const models = new Int32Array(n);
    const lastModel = new Int32Array(n).fill(-1);
    for (let r = 0; r < data.emEpisode.length; r++) {
      const e = data.emEpisode[r] as number;
      const scope = scopeOf(e);
      if (scope === null) continue;
      const model = data.modelNames.get(data.emModel[r] as number) ?? String(data.emModel[r]);
      const key = `${scope}\u0000${model}`;
      let row = rows.get(key);
      if (!row) {
        row = { model, scope, calls: 0, tokens_in: 0, tokens_out: 0, tokens_cached: 0, tokens_cache_write: 0, cost: 0, unknown_calls: 0 };
        rows.set(key, row);
      }
      row.calls += data.emCalls[r] as number;
      row.tokens_in += data.emTokensIn[r] as number;
      row.tokens_out += data.emTokensOut[r] as number;
      row.tokens_cached += data.emTokensCached[r] as number;
      row.tokens_cache_write += data.emTokensCacheWrite[r] as number;
      row.cost += data.emCost[r] as number;
      // A call without a cost is unknown only when the episode's total is (no logged total covers it).
      if ((data.unpriced[e] as number) > 0) row.unknown_calls += data.emUnknown[r] as number;
      callCost[e]! += data.emCost[r] as number;
      models[e]!++;
      lastModel[e] = r;
    }
    for (let e = 0; e < n; e++) {
      if (scopeOf(e) === null || (data.unpriced[e] as number) > 0) continue;
      const rest = (data.cost[e] as number) - (callCost[e] as number);
      if (rest <= 1e-12) continue;
      // The episode's total beyond its calls' costs: one model made every call, so it is that model's.
      if (models[e] === 1) {
        const r = lastModel[e] as number;
        const model = data.modelNames.get(data.emModel[r] as number) ?? String(data.emModel[r]);
        (rows.get(`${scopeOf(e)}\u0000${model}`) as ModelCost).cost += rest;
      } else {
        unattributedCost += rest;
        unattributedEpisodes++;
      }
    }
  }
  const list = [...rows.values()].sort((x, y) => (x.scope === y.scope ? y.cost - x.cost || (x.model < y.model ? -1 : 1) : x.scope === 'main' ? -1 : 1));
  return { rows: list, unattributedCost, unattributedEpisodes };
}
