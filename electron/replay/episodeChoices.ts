/**
 * The step debugger's view of one episode (issue 7 item 4): per turn, what each policy would choose along
 * the logged history, the logged model and its propensity, ŝ and estimated cost of every candidate, and the
 * regret max_a ŝ − ŝ(logged). Only the episode is loaded, unless a `usage:` policy needs its runs to fit ξ.
 */
import type { EpisodePolicyChoices, EpisodePolicyChoicesInput } from '../../shared/apiReplay.ts';
import { parsePolicySpec } from '../../shared/policySpec.ts';
import type { Db } from '../db/dbHandle.ts';
import { advance, compilePolicy, modelsNamed, type EpisodeState } from './policies.ts';
import { candidatesOf, loadReplayData, ReplayError } from './replayData.ts';
import { nameKeyed } from '../../shared/nameKeyed.ts';

export function episodePolicyChoices(db: Db, input: EpisodePolicyChoicesInput): EpisodePolicyChoices {
  const row = db.prepare('SELECT run_id FROM episodes WHERE id = ?').get(input.episode) as { run_id: number } | undefined;
  if (!row) throw new ReplayError(`no episode with id ${input.episode}`);
  const specs = input.policies.map((s) => parsePolicySpec(s));
  const runIds = input.runIds && input.runIds.length > 0 ? input.runIds : [row.run_id];
  if (!runIds.includes(row.run_id)) throw new ReplayError(`episode ${input.episode} is not in the runs given`);
  const needsRuns = specs.some((s) => s.kind === 'usage');
  const data = loadReplayData(db, {
    runIds,
    estimator: input.estimator,
    models: specs.flatMap(modelsNamed),
    episodeId: needsRuns ? undefined : input.episode,
  });
  const e = Array.prototype.indexOf.call(data.episodeId, input.episode) as number;
  const policies = specs.map((s) => compilePolicy(data, s));
  const start = data.turnStart[e] as number;
  const end = data.turnStart[e + 1] as number;
  const states: EpisodeState[] = policies.map(() => ({ e, t: 0, spent: 0, prev: -1 }));
  const { K, sHat } = data;
  const turns: EpisodePolicyChoices['turns'] = [];
  // Every turn is chosen along the history (a policy's spend and last model carry over); only the window is answered.
  const first = input.from ?? 0;
  const last = input.count === undefined ? Number.POSITIVE_INFINITY : first + input.count;
  for (let j = start; j < end; j++) {
    const t = data.t[j] as number;
    const lg = data.logged[j] as number;
    const s = nameKeyed<number>();
    const cost = nameKeyed<number>();
    let top = -Infinity;
    for (const k of candidatesOf(data, j)) {
      const name = data.models[k] as string;
      const sk = sHat ? (sHat[j * K + k] as number) : Number.NaN;
      if (!Number.isNaN(sk)) {
        s[name] = sk;
        top = Math.max(top, sk);
      }
      const ck = data.cost[j * K + k] as number;
      if (!Number.isNaN(ck)) cost[name] = ck;
    }
    const sLogged = sHat ? (sHat[j * K + lg] as number) : Number.NaN;
    const choices = policies.map((p, n) => {
      const st = states[n] as EpisodeState;
      st.t = t;
      const a = p.choose(j, st);
      advance(data, st, j, a);
      return data.models[a] as string;
    });
    if (j - start < first || j - start >= last) continue;
    const mu = data.propensity[j] as number;
    turns.push({
      t,
      turn_id: data.turnId[j] as number,
      logged: data.models[lg] as string,
      propensity: Number.isNaN(mu) ? null : mu,
      s_hat: s,
      cost,
      regret: Number.isNaN(sLogged) || !Number.isFinite(top) ? null : top - sLogged,
      choices,
    });
  }
  return {
    episode: input.episode,
    estimator: data.estimator,
    s_hat_source: data.sHatSource,
    policies: policies.map((p) => ({ policy: p.canonical, label: p.label })),
    turns,
  };
}
