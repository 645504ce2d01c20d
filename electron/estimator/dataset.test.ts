import { describe, expect, it } from 'vitest';
import { useSuiteTempDir } from '../testing/tmp.ts';
import { buildTrainingSet, encodeEpisodeHistories, splitRows } from './dataset.ts';
import { HASH_DIM, countsToFeatures, encodeHashText } from './hashEncoder.ts';
import { serialiseHistory, type HistoryTurn } from './historyText.ts';
import { simulatedDb } from './simulatedDb.testSupport.ts';
import { SeededRandom } from './seededRandom.ts';
import { MODEL_FEATURES } from './weights.ts';

const tempDir = useSuiteTempDir();

describe('encodeEpisodeHistories', () => {
  it('gives the same features as hashing each serialised history, across dropped and partial turns', () => {
    const rng = new SeededRandom(7);
    const words = ['open', 'door', 'kitchen', 'thermometer', 'No known action', 'boil', 'water', '42', 'Ünïcode'];
    const text = (n: number): string => Array.from({ length: n }, () => words[rng.int(words.length)]).join(' ');
    const turns: HistoryTurn[] = Array.from({ length: 40 }, (_, k) => ({
      action: k === 7 ? null : text(5 + rng.int(30)),
      observation: text(k === 20 ? 800 : 3 + rng.int(60)), // turn 20 is longer than the whole budget
      model: k % 7 === 3 ? null : ['gpt-5', 'kimi-k2', 'gpt-oss-120b'][k % 3],
    }));
    const task = text(40);
    for (const budget of [300, 1000, 8192]) {
      const seen: number[] = [];
      encodeEpisodeHistories(task, turns, budget, (t, counts) => {
        seen.push(t);
        const incremental = new Float32Array(HASH_DIM);
        countsToFeatures(counts, incremental, 0);
        const direct = new Float32Array(HASH_DIM);
        const h = serialiseHistory(task, turns.slice(0, t), budget);
        encodeHashText(h.segments, direct, 0, h.recent, h.previousModel);
        expect(Array.from(incremental)).toEqual(Array.from(direct));
      });
      expect(seen).toEqual(turns.map((_, t) => t));
    }
  });
});

describe('buildTrainingSet', () => {
  it('makes one row per turn with stored targets, a seeded episode-level split and standardised model features', async () => {
    const { db } = await simulatedDb(tempDir(), 'scienceworld', 60);
    const data = buildTrainingSet(db, { seed: 3 });
    const nTurns = db.prepare('SELECT COUNT(*) FROM turns').pluck().get() as number;
    expect(data.rows).toBe(nTurns);
    expect(data.models).toEqual(['gpt-5', 'deepseek-v3.2', 'minimax-m2', 'kimi-k2', 'gemini-2.5-flash-lite', 'gpt-oss-120b']);
    expect(data.modelFeatures).toHaveLength(6 * MODEL_FEATURES.length);
    for (let j = 0; j < MODEL_FEATURES.length; j++) {
      const col = data.models.map((_, i) => data.modelFeatures[i * MODEL_FEATURES.length + j] as number);
      expect(Math.abs(col.reduce((a, b) => a + b, 0))).toBeLessThan(1e-5); // z-scored over the pool
    }
    // Targets are the stored ones, and recomputing gives the same numbers.
    const stored = db.prepare('SELECT turn_id, s_tilde FROM targets').all() as { turn_id: number; s_tilde: number }[];
    const byTurn = new Map(stored.map((r) => [r.turn_id, r.s_tilde]));
    for (let r = 0; r < data.rows; r++) expect(data.target[r]).toBe(Math.fround(byTurn.get(data.turnId[r] as number) as number));
    const again = buildTrainingSet(db, { seed: 3, targets: 'recompute' });
    expect(again.summary.recomputedTargets).toBe(data.rows);
    for (let r = 0; r < data.rows; r++) expect(again.target[r]).toBeCloseTo(data.target[r] as number, 6);
    // The model index is the logged model's.
    const modelOf = db.prepare('SELECT m.name FROM turns t JOIN models m ON m.id = t.model_id WHERE t.id = ?').pluck();
    for (const r of [0, 17, data.rows - 1]) expect(data.models[data.model[r] as number]).toBe(modelOf.get(data.turnId[r]));
    // Split: 10% of episodes, all turns of an episode on one side, the same for the same seed.
    expect(data.summary.validationEpisodes).toBe(6);
    const side = new Map<number, number>();
    for (let r = 0; r < data.rows; r++) {
      const e = data.episodeId[r] as number;
      expect(side.get(e) ?? data.validation[r]).toBe(data.validation[r]);
      side.set(e, data.validation[r] as number);
    }
    expect(Array.from(again.validation)).toEqual(Array.from(data.validation));
    expect(Array.from(buildTrainingSet(db, { seed: 4 }).validation)).not.toEqual(Array.from(data.validation));
    const { train, validation } = splitRows(data);
    expect(train.length + validation.length).toBe(data.rows);
    expect(validation.length).toBe(data.summary.validationRows);
    // A narrower pool: turns of other models stay in histories but are no rows.
    const two = buildTrainingSet(db, { models: ['gpt-5', 'kimi-k2'] });
    expect(two.rows + two.summary.skippedTurnsOutsidePool).toBe(nTurns);
    expect(new Set(two.model)).toEqual(new Set([0, 1]));
    db.close();
  });

  it('skips episodes whose outcome is unknown', async () => {
    const { db } = await simulatedDb(tempDir(), 'scienceworld', 20);
    const first = db.prepare('SELECT id, n_turns FROM episodes ORDER BY id LIMIT 1').get() as { id: number; n_turns: number };
    db.prepare('UPDATE episodes SET score_norm = NULL WHERE id = ?').run(first.id);
    const data = buildTrainingSet(db);
    expect(data.summary.skippedEpisodesNoOutcome).toBe(1);
    expect(data.rows).toBe((db.prepare('SELECT COUNT(*) FROM turns').pluck().get() as number) - first.n_turns);
    expect(Array.from(data.episodeId)).not.toContain(first.id);
    db.close();
  });
});
