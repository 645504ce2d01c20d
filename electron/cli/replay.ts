/**
 * `routelens replay`: replays routing policies over logged runs (DESIGN §7, §9). `--json` prints exactly
 * the API's ReplayResult (shared/apiReplay.ts); without it, a table. `--model FILE.onnx` scores the selected
 * runs with that estimator first (the lead's scoreDatabase), then replays with its estimates.
 */
import { existsSync, readFileSync } from 'node:fs';
import { parsePolicySpec, PolicySpecError, POLICY_KINDS } from '../../shared/policySpec.ts';
import { supportByReason, type OpeEstimate, type ReplayResult } from '../../shared/apiReplay.ts';
import { splitValues } from '../../shared/splits.ts';
import { err, intFlag, money, out, print, requireDb, UsageError, withRuns, type Command } from './common.ts';
import { visibleText as v } from '../../shared/displayText.ts';
import { Progress } from './progress.ts';
import { openDatabase } from '../db/database.ts';
import type { Db } from '../db/dbHandle.ts';
import { ScorerError } from '../estimator/scorerError.ts';
import { NotScoredError, ReplayError } from '../replay/replayData.ts';
import { replayPolicies } from '../replay/replayRun.ts';
import { openCheckedStore, STORE_OPTION } from './storeAccess.ts';
import { storeUrlOf, type ClickHouseStoreUrl } from '../store/storeUrl.ts';
import type { StoreReplayRequest } from '../store/clickhouse/queries/storeReplay.ts';

function runIdsOf(db: Db, names: readonly string[]): number[] {
  const byName = new Map((db.prepare('SELECT id, name FROM runs').all() as { id: number; name: string }[]).map((r) => [r.name, r.id]));
  return names.map((n) => {
    const id = byName.get(n);
    if (id === undefined) throw new UsageError(`no run named "${n}" (runs: ${[...byName.keys()].join(', ') || 'none'})`);
    return id;
  });
}

const num = (x: number | null | undefined, digits = 3): string => (x === null || x === undefined ? 'n/a' : x.toFixed(digits));
/** An unknown cost prints as '—', never as $0. */
const cost = (x: number | null): string => (x === null ? '—' : money(x));
const ci = (x: [number, number] | null | undefined): string => (x ? `[${x[0].toFixed(3)}, ${x[1].toFixed(3)}]` : '');

type Ope = NonNullable<ReplayResult['policies'][number]['ope']>;

/** An estimate the log does not support reads as such, never as a number (its reason is a note below the table). */
function estimate(o: Ope, key: OpeEstimate, withCi: boolean): string {
  if (o.support[key] !== null) return o[key] === null ? 'no support' : 'insufficient';
  return withCi ? `${num(o[key])} ${ci(o.ci[key])}` : num(o[key]);
}

/**
 * Estimates kept for the record though the log supports them too weakly, one line per reason with the values it
 * holds for (a missing estimate's reason is already among the policy's notes).
 */
function supportNotes(o: Ope | null): string[] {
  if (!o) return [];
  return supportByReason(o, (key) => o[key] !== null).map(([why, keys]) => `${keys.map((k) => `${k.toUpperCase()} ${num(o[k])}`).join(', ')}: ${why}`);
}

function printTable(r: ReplayResult): void {
  out(`${r.episodes} episodes, ${r.turns} turns in ${r.runs.map((x) => v(x.name)).join(', ')}; ŝ from ${r.estimator ? `estimator ${r.estimator.id} (${v(r.estimator.name)})` : r.s_hat_source === 'logged_candidates' ? 'the logged candidate scores' : 'nowhere (no DM / DR)'}`);
  out(`logged: score ${num(r.logged.score)}, cost ${cost(r.logged.cost)} per episode`);
  out('');
  out('policy                          agree  est score (DM)          est cost    switches  IPS           WIS                    DR                     ESS');
  for (const p of r.policies) {
    const o = p.ope;
    out(
      [
        v(p.policy).padEnd(30).slice(0, 30),
        `${(p.agreement * 100).toFixed(1)}%`.padStart(6),
        ` ${num(p.est_score)} ${ci(p.est_score_ci)}`.padEnd(24),
        cost(p.est_cost).padStart(9),
        p.switches.toFixed(2).padStart(9),
        `  ${o ? estimate(o, 'ips', false) : 'n/a'}`.padEnd(14),
        `${o ? estimate(o, 'wis', true) : 'n/a'}`.padEnd(22),
        `${o ? estimate(o, 'dr', true) : 'n/a'}`.padEnd(22),
        o ? o.ess.toFixed(1) : 'n/a',
      ].join(' '),
    );
  }
  const notes = [...r.notes, ...r.policies.flatMap((p) => [...p.notes, ...supportNotes(p.ope)].map((n) => `${p.policy}: ${n}`))];
  if (notes.length) {
    out('');
    for (const n of notes) out(`note: ${v(n)}`);
  }
}

/**
 * The replay streamed from a ClickHouse store (electron/store/clickhouse/queries/storeReplay.ts), with progress. With
 * `scoreFirst`, an estimator that has not scored every selected turn scores them and the replay runs again.
 */
async function replayStore(url: ClickHouseStoreUrl, request: Omit<StoreReplayRequest, 'onProgress'>, scoreFirst?: () => Promise<void>): Promise<ReplayResult> {
  const { replayOnStore } = await import('../store/clickhouse/queries/storeReplay.ts');
  const store = await openCheckedStore(url);
  const progress = new Progress();
  const replay = () => replayOnStore(store, { ...request, onProgress: (m) => progress.update(m) });
  try {
    try {
      return await replay();
    } catch (e) {
      if (!(e instanceof NotScoredError) || !scoreFirst) throw e;
      progress.done();
      await scoreFirst();
      return await replay();
    }
  } catch (e) {
    if (e instanceof ReplayError) throw new UsageError(e.message);
    throw e;
  } finally {
    progress.done();
    await store.close();
  }
}

export const command: Command = {
  usage: [
    'routelens replay --db FILE|--store URL --policy SPEC... [--run NAME...] [--split NAME[,NAME]] [--estimator ID] [--model FILE.onnx] [--bootstrap N] [--seed S] [--json]',
    '',
    'Policy specs:',
    ...POLICY_KINDS.map((k) => `  ${k.syntax.padEnd(28)} ${k.summary}`),
    '',
    'ŝ comes from --estimator, else the newest estimator covering every selected turn, else the logged candidate',
    'scores; --model FILE.onnx scores the selected runs with that estimator first. Intervals: 95% episode bootstrap.',
    '--split: only episodes of these splits (train, val, test_id, ood_test, …; the groups id and ood).',
    '--store: replays a ClickHouse store, streaming its sessions in parts; ŝ from --model FILE.onnx (it scores the selected',
    'runs first, as with --db), else the logged candidate scores; no --estimator ID (that is a database\'s) and no usage: policies.',
  ].join('\n'),
  options: {
    db: { type: 'string' },
    ...STORE_OPTION,
    policy: { type: 'string', multiple: true },
    run: { type: 'string', multiple: true },
    split: { type: 'string' },
    estimator: { type: 'string' },
    model: { type: 'string' },
    bootstrap: { type: 'string' },
    seed: { type: 'string' },
    json: { type: 'boolean' },
  },
  async run(values) {
    const store = storeUrlOf(values);
    const specs = (values.policy as string[] | undefined) ?? [];
    if (specs.length === 0) throw new UsageError('at least one --policy SPEC is required (see routelens replay --help)');
    for (const s of specs) {
      try {
        parsePolicySpec(s);
      } catch (e) {
        if (e instanceof PolicySpecError) throw new UsageError(e.message);
        throw e;
      }
    }
    const split = values.split as string | undefined;
    if (split !== undefined) withRuns(() => splitValues(split));
    const bootstrap = intFlag(values, 'bootstrap', 1000, 0, 10_000);
    const seed = intFlag(values, 'seed', 1, 0, 2 ** 31 - 1);
    let estimator = values.estimator === undefined ? undefined : intFlag(values, 'estimator', 0, 0);
    if (estimator !== undefined && values.model !== undefined) throw new UsageError('give --estimator or --model, not both');
    if (store) {
      if (estimator !== undefined) throw new UsageError('a ClickHouse store knows an estimator by its file: give --model FILE.onnx');
      const runs = (values.run as string[] | undefined) ?? [];
      const request: StoreReplayRequest = { runs, split, policies: specs, bootstrap, seed };
      let result: ReplayResult;
      if (typeof values.model === 'string') {
        const model = values.model;
        if (!existsSync(model)) throw new UsageError(`${model}: no such file`);
        // Scoring (ONNX Runtime) is loaded only for a replay that may need it.
        const [{ sha256 }, { scoreOnStore }] = await Promise.all([import('../estimator/onnxExport.ts'), import('./scoreStore.ts')]);
        // A scoring of the store by this file that covers every selected turn is read as it is (scoring 5M turns
        // again takes minutes and adds a copy of every estimate); otherwise, as with --db, the selected runs are
        // scored with it first (a scoring of the store, kept for later replays).
        result = await replayStore(store, { ...request, estimator: { sha256: sha256(readFileSync(model)), path: model } }, async () => {
          const scored = await scoreOnStore(store, model, { runs }, values.json === true);
          if (scored.cancelled) throw new UsageError('scoring cancelled: nothing replayed');
        });
      } else {
        result = await replayStore(store, request);
      }
      if (values.json) return print(result);
      printTable(result);
      return 0;
    }
    const path = requireDb(values);
    const progress = new Progress();
    let db = openDatabase(path, { readonly: true }); // replay reads; only --model scoring writes (its own connection)
    try {
      const runIds = runIdsOf(db, (values.run as string[] | undefined) ?? []);
      if (typeof values.model === 'string') {
        db.close();
        const { scoreDatabase } = await import('../estimator/scoreDatabase.ts');
        const scored = await scoreDatabase(path, values.model, {
          runIds,
          onProgress: (p) => progress.update(`scoring with ${values.model} on ${p.provider}: ${p.rows}/${p.total} turns`),
        });
        progress.done();
        err(`scored ${scored.rows} turns with ${scored.estimator} (estimator ${scored.estimatorId}, ${scored.provider})`);
        estimator = scored.estimatorId;
        db = openDatabase(path, { readonly: true });
      }
      const result = replayPolicies(db, { runIds, split, policies: specs, estimator, bootstrap, seed, onProgress: (m) => progress.update(m) });
      progress.done();
      if (values.json) return print(result);
      printTable(result);
      return 0;
    } catch (e) {
      progress.done();
      if (e instanceof ReplayError || e instanceof ScorerError) throw new UsageError(e.message);
      throw e;
    } finally {
      if (db.open) db.close();
    }
  },
};
