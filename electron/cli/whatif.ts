/** `routelens whatif`: what if another model had taken this turn: ŝ, Δŝ, cost and the nearest logged evidence per candidate. */
import { extrapolationText } from '../../shared/estimatorDomain.ts';
import { visibleText as v } from '../../shared/displayText.ts';
import { describeWait, openDatabase, waitForWriteTurn } from '../db/database.ts';
import { registerEstimator } from '../estimator/scoreDatabase.ts';
import { whatIf, WhatIfError } from '../estimator/whatIf.ts';
import { resolveEpisodeId } from '../services/episodeRef.ts';
import { err, intFlag, out, print, requireDb, UsageError, type Command } from './common.ts';

export const command: Command = {
  usage: 'routelens whatif --db FILE --episode ID --turn T [--run NAME] [--estimator ID] [--k N] [--json]',
  options: {
    db: { type: 'string' }, episode: { type: 'string' }, turn: { type: 'string' }, run: { type: 'string' },
    estimator: { type: 'string' }, k: { type: 'string' }, json: { type: 'boolean' },
  },
  async run(values) {
    const db = openDatabase(requireDb(values), { readonly: true }); // what-if computes ŝ, it stores nothing
    try {
      if (typeof values.episode !== 'string') throw new UsageError('--episode ID is required');
      if (values.turn === undefined) throw new UsageError('--turn T is required');
      const t = intFlag(values, 'turn', 0);
      const id = resolveEpisodeId(db, { ext_id: values.episode, run: values.run as string | undefined });
      const estimatorId = values.estimator === undefined ? undefined : intFlag(values, 'estimator', 0, 1);
      let r;
      try {
        // The first what-if on a database registers the shipped default estimator: that one write goes through
        // a writer connection of its own, in turn, so the read-only connection stays read-only.
        const register = async (modelPath: string, bytes: Uint8Array): Promise<number> => {
          await waitForWriteTurn(requireDb(values), { onWait: (w) => err(describeWait(w)) });
          const writer = openDatabase(requireDb(values));
          try {
            return registerEstimator(writer, modelPath, bytes);
          } finally {
            writer.close();
          }
        };
        r = await whatIf(db, id, t, { estimatorId, k: intFlag(values, 'k', 5, 1, 100), register });
      } catch (e) {
        if (e instanceof WhatIfError) throw new UsageError(e.message);
        throw e;
      }
      if (values.json) {
        return print({
          episode: r.episode,
          turn: r.turn,
          logged_model: r.logged_model,
          task_type: r.task_type,
          provider: r.provider,
          estimator: r.estimator,
          domain: r.domain,
          extrapolation: r.extrapolation,
          source: r.source,
          candidates: r.candidates.map((c) => ({
            model: c.model, s_hat: c.s_hat, delta: c.delta, cost_usd: c.cost_usd,
            neighbours: c.neighbours.map((n) => ({ episode: n.episode, turn: n.turn, outcome: n.outcome, similarity: n.similarity, same_task_type: n.same_task_type })),
          })),
        });
      }
      out(`${v(r.episode)} turn ${r.turn}: logged ${v(r.logged_model)} ($${r.logged_cost_usd.toFixed(5)}); estimator ${v(r.estimator.name)} (${r.source === 'estimates' ? 'stored ŝ' : `computed on ${r.provider}`})`);
      for (const reason of r.extrapolation) out(`extrapolation: ${extrapolationText(reason, { task_type: r.task_type, model: r.logged_model })}`);
      out('model                          ŝ        Δŝ      cost      nearest logged outcomes');
      for (const c of r.candidates) {
        const ns = c.neighbours.map((n) => (n.outcome === null ? '?' : n.outcome.toFixed(2))).join(' ');
        const delta = c.delta === null ? '     n/a' : `${c.delta >= 0 ? '+' : ''}${c.delta.toFixed(4)}`;
        const cost = c.cost_usd === null ? '     n/a' : `$${c.cost_usd.toFixed(5)}`;
        out(`${(v(c.model) + (c.model === r.logged_model ? ' *' : '')).padEnd(28)} ${c.s_hat.toFixed(4)}  ${delta.padStart(8)}  ${cost}  ${ns || (r.sketched_turns ? '' : '(run `routelens score` for neighbours)')}`);
      }
      out('(ŝ is the estimated normalised final score minus future error penalties, S̃; * = the logged model)');
      return 0;
    } finally {
      db.close();
    }
  },
};
