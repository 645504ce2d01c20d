/**
 * Scoring a ClickHouse store (a real 2-shard cluster) with an estimator against scoring SQLite with the same files:
 * the same ŝ for every turn × model, so a replay with that estimator answers alike on both stores; an abandoned
 * scoring is never read; an estimator that scored only some runs is refused for the others.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clickhouseSkipReason } from '../../../../test/clickhouseCluster.ts';
import { expectClose } from '../../../../test/expectClose.ts';
import { sameDataOnBothStores, type BothStores } from '../../../../test/sameDataOnBothStores.ts';
import type { ReplayResult } from '../../../../shared/apiReplay.ts';
import { scoreDatabase } from '../../../estimator/scoreDatabase.ts';
import { DEFAULT_ESTIMATOR_PATH } from '../../../estimator/whatIf.ts';
import { replayPolicies } from '../../../replay/replayRun.ts';
import { ReplayError } from '../../../replay/replayData.ts';
import { replayOnStore } from './storeReplay.ts';
import { scoreStore } from './storeScoring.ts';
import { cleanStore } from '../schema/cleanStore.ts';
import { calibrationAnalysis, calibrationFit } from '../../../analysis/calibration.ts';
import { embeddingsAnalysis } from '../../../analysis/embeddings.ts';
import { embeddingsOnStore } from './storeEmbeddings.ts';
import { calibrationOnStore } from './storeCalibration.ts';
import { listEstimatorsOnStore } from './storeEstimators.ts';
import { episodeKey } from '../import/episodeRows.ts';

const skip = clickhouseSkipReason();
if (skip) console.log(skip);

/** ŝ is float32 on both stores; logged costs are float32 on the store. */
const FLOAT32 = 1e-6;

/** What both stores must agree on: all but the runs' ids and the estimator's id (a database row, a store's scoring). */
const comparable = (r: ReplayResult): unknown => ({
  ...r,
  runs: r.runs.map((x) => x.name),
  estimator: r.estimator ? { name: r.estimator.name } : null,
});

describe.skipIf(skip !== null)('scoring a ClickHouse store', () => {
  let both: BothStores;
  const model = DEFAULT_ESTIMATOR_PATH;
  const POLICIES = ['logged', 'argmax', 'cost-aware:5', 'budget:0.05'];

  beforeAll(async () => {
    both = await sameDataOnBothStores([{ preset: 'scienceworld', episodes: 80, seed: 31 }], ['fixtures/samples/mtrouter', 'fixtures/samples/claude-code']);
  }, 240_000);

  afterAll(async () => {
    await both?.close();
  });

  /** Every scored turn's (run, ŝ of its logged model, newest scoring winning, S̃), read plainly. */
  const storePairs = () => both.store.query<{ run: string; h: number; s: number }>(
    `SELECT t.run AS run, e.h AS h, t.s AS s FROM (SELECT episode_key, pos, model, toFloat64(argMax(s_hat, scoring_id)) AS h FROM ${both.store.table('estimates')} GROUP BY episode_key, pos, model)
     AS e ALL INNER JOIN (SELECT episode_key, pos, model, run, assumeNotNull(s_tilde) AS s FROM ${both.store.table('turns')} WHERE s_tilde IS NOT NULL) AS t USING (episode_key, pos, model)`,
  );
  const fitOf = (rows: { h: number; s: number }[]) => calibrationFit(rows.map((r) => r.h), rows.map((r) => r.s));

  it('an abandoned scoring is never read; a scoring of some runs is refused for all of them', async () => {
    const abort = new AbortController();
    abort.abort();
    const abandoned = await scoreStore(both.store, model, { signal: abort.signal, partTurns: 500 });
    expect(abandoned.cancelled).toBe(true);
    expect(await calibrationOnStore(both.store)).toMatchObject({ estimator: null, reason: 'no_estimator' });
    const estimator = { sha256: abandoned.sha256, path: model };
    await expect(replayOnStore(both.store, { policies: ['argmax'], estimator })).rejects.toThrow(ReplayError);
    await expect(replayOnStore(both.store, { policies: ['argmax'], estimator })).rejects.toThrow(/has not scored this store/);

    // store clean deletes what the cancelled scoring sent, once.
    expect((await cleanStore(both.store)).scorings).toEqual([abandoned.scoringId]);
    expect((await cleanStore(both.store)).scorings).toEqual([]);

    const one = (both.db.prepare("SELECT name FROM runs WHERE name LIKE 'sw-%' ORDER BY id").pluck().all() as string[]).slice(0, 1);
    const some = await scoreStore(both.store, model, { runs: one });
    expect(some.rows).toBe(both.db.prepare('SELECT COUNT(*) FROM turns t JOIN episodes e ON e.id = t.episode_id JOIN runs r ON r.id = e.run_id WHERE r.name = ?').pluck().get(one[0]));
    await expect(replayOnStore(both.store, { policies: ['argmax'], estimator })).rejects.toThrow(/has ŝ for \d+ of the \d+ selected turns/);
    const onThatRun = await replayOnStore(both.store, { runs: one, policies: ['argmax'], estimator });
    expect(onThatRun.s_hat_source).toBe('estimator');
    // Calibration reads that scoring for its run and says another run is not scored (an unknown id is refused).
    const other = (both.db.prepare("SELECT name FROM runs WHERE name LIKE 'sw-%' ORDER BY id").pluck().all() as string[])[1] as string;
    expect(await calibrationOnStore(both.store, { runs: [other] })).toMatchObject({ estimator: { id: some.scoringId }, reason: 'not_scored' });
    // One scoring of the estimator (read without the newest-wins grouping) gives the fit of its own pairs.
    const ofOne = await calibrationOnStore(both.store, { runs: one });
    expect(ofOne.overall.n).toBeGreaterThan(0);
    expectClose(ofOne.overall, fitOf(await storePairs()), '$.overall of one scoring', 1e-9);
    await expect(calibrationOnStore(both.store, { estimator: 7 })).rejects.toThrow(/no estimator with id 7/);
  });

  it('gives every turn × model the ŝ SQLite gives it, in many parts: a replay with the estimator answers alike', async () => {
    const lite = await scoreDatabase(join(both.dir, 'same.db'), model, { ep: 'cpu' });
    const onStore = await scoreStore(both.store, model, { ep: 'cpu', partTurns: 700 });
    expect(onStore.rows).toBe(lite.rows);
    expect(onStore.models).toEqual(lite.models);
    const [sums] = await both.store.query<{ n: string; s: number }>(
      `SELECT count() AS n, sum(s_hat) AS s FROM ${both.store.table('estimates')} WHERE scoring_id = ${onStore.scoringId}`,
    );
    const liteSums = both.db.prepare('SELECT COUNT(*) AS n, SUM(s_hat) AS s FROM estimates WHERE estimator_id = ?').get(lite.estimatorId) as { n: number; s: number };
    expect(Number(sums?.n)).toBe(liteSums.n);
    // Turn by turn: a store's turn is (episode key, position), SQLite's its row; float32 apart at most.
    const storeHat = new Map((await both.store.query<{ k: string; pos: number; model: string; s: number }>(
      `SELECT episode_key AS k, pos, model, s_hat AS s FROM ${both.store.table('estimates')} WHERE scoring_id = ${onStore.scoringId}`,
    )).map((r) => [`${r.k}:${r.pos}:${r.model}`, r.s]));
    const liteHat = both.db.prepare(`SELECT r.name AS run, e.ext_id, m.name AS model, s.s_hat,
        (SELECT COUNT(*) FROM turns u WHERE u.episode_id = t.episode_id AND u.t < t.t) AS pos
      FROM estimates s JOIN turns t ON t.id = s.turn_id JOIN episodes e ON e.id = t.episode_id JOIN runs r ON r.id = e.run_id
      JOIN models m ON m.id = s.model_id WHERE s.estimator_id = ?`).all(lite.estimatorId) as { run: string; ext_id: string; model: string; s_hat: number; pos: number }[];
    let worst = 0;
    for (const r of liteHat) {
      const s = storeHat.get(`${episodeKey(r.run, r.ext_id)}:${r.pos}:${r.model}`);
      expect(s, `${r.run} ${r.ext_id} ${r.pos} ${r.model}`).toBeDefined();
      worst = Math.max(worst, Math.abs((s as number) - r.s_hat));
    }
    expect(worst).toBeLessThan(1e-6);

    // Calibration: the cluster's sums and ranks give what calibrationFit gives on the store's own pairs (1e-9), and
    // what SQLite gives on its ŝ (float32 apart), for all runs, each run, one run and a split.
    const pairs = await storePairs();
    const calibrated = await calibrationOnStore(both.store);
    expect(calibrated.estimator).toEqual({ id: onStore.scoringId, name: 'default-estimator' });
    // The window's estimator list names the same one, in use, known as the shipped default by its hash.
    const listed = await listEstimatorsOnStore(both.store);
    expect(listed.in_use).toEqual({ id: onStore.scoringId, chosen: false });
    expect(listed.estimators).toMatchObject([{ id: onStore.scoringId, name: 'default-estimator', is_default: true, scored_turns: onStore.rows, onnx_path: null }]);
    expectClose(calibrated.overall, fitOf(pairs), '$.overall', 1e-9);
    for (const r of calibrated.runs) expectClose(r, { run: r.run, ...fitOf(pairs.filter((p) => p.run === r.run)), in_training: null }, `$.${r.run}`, 1e-9);
    const comparableFit = (c: { estimator: unknown; outside_training?: unknown; runs: { in_training: unknown }[] }) =>
      ({ ...c, estimator: null, outside_training: undefined, runs: c.runs.map((r) => ({ ...r, in_training: null })) });
    const aRun = calibrated.runs[0]?.run as string;
    for (const sel of [{}, { runs: [aRun] }, { split: 'train' }, { runs: [aRun], split: 'test', bins: 7 }]) {
      expectClose(comparableFit(await calibrationOnStore(both.store, sel)), comparableFit(calibrationAnalysis(both.db, { ...sel, estimator: lite.estimatorId })), JSON.stringify(sel), FLOAT32);
    }

    // Embeddings: the model map is SQLite's (the same file's z_a, the same seed); the store draws its own sample of
    // turns and sketches each as SQLite's scoring did (equal vectors, linked to the turn they sketch).
    const seen: Float32Array[] = [];
    const keep = async (x: Float32Array, n: number, d: number, seed: number) => {
      seen.push(x.slice());
      return (await import('../../../analysis/tsne.ts')).tsne(x, n, d, { seed });
    };
    const mapped = await embeddingsOnStore(both.store, { sample: 150, seed: 5, project: keep });
    const liteMap = await embeddingsAnalysis(both.db, { sample: 150, seed: 5, estimator: lite.estimatorId });
    expect(mapped.estimator).toEqual({ id: onStore.scoringId, name: 'default-estimator', source: 'database' });
    expectClose(mapped.models, liteMap.models, '$.models', 1e-9);
    expect(mapped.histories.sketched).toBe(liteMap.histories.sketched);
    expect(mapped.histories.points).toHaveLength(150);
    const sketches = seen[1] as Float32Array;
    const sketchOf = both.db.prepare(`SELECT s.vec FROM history_sketches s JOIN turns t ON t.id = s.turn_id JOIN episodes e ON e.id = t.episode_id
      JOIN runs r ON r.id = e.run_id JOIN models m ON m.id = t.model_id WHERE r.name = ? AND e.ext_id = ? AND t.t = ? AND m.name = ?`);
    mapped.histories.points.forEach((p, i) => {
      const row = sketchOf.get(p.run, p.episode, p.turn, p.model) as { vec: Buffer } | undefined;
      expect(row, `${p.run} ${p.episode} ${p.turn}`).toBeDefined();
      expect(p.episode_id).toBe(episodeKey(p.run, p.episode));
      expect(Array.from(sketches.subarray(i * 64, (i + 1) * 64))).toEqual(Array.from(new Float32Array(new Uint8Array(row!.vec).buffer)));
    });
    const again = await embeddingsOnStore(both.store, { sample: 150, seed: 6 });
    expect(again.histories.points.map((p) => `${p.episode_id}:${p.turn}`)).not.toEqual(mapped.histories.points.map((p) => `${p.episode_id}:${p.turn}`));

    const fromLite = replayPolicies(both.db, { policies: POLICIES, estimator: lite.estimatorId, bootstrap: 200, seed: 3 });
    const fromStore = await replayOnStore(both.store, { policies: POLICIES, bootstrap: 200, seed: 3, partTurns: 900, estimator: { sha256: onStore.sha256, path: model } });
    expect(fromStore.s_hat_source).toBe('estimator');
    expect(fromStore.estimator?.id).toBe(onStore.scoringId);
    expectClose(comparable(fromStore), comparable(fromLite), '$', FLOAT32);
  });
});
