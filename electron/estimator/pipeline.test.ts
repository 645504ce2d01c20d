// The estimator as a user runs it: train on a simulated database (card, ONNX, estimators row), score every
// turn, and ask what-if, both before scoring (computed now) and after (stored ŝ), which must agree.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { simulateToFile } from '../../fixtures/simulator/index.ts';
import { openDatabase } from '../db/database.ts';
import type { Db } from '../db/dbHandle.ts';
import { importPaths } from '../importers/pipeline.ts';
import { useSuiteTempDir } from '../testing/tmp.ts';
import { ModelCard } from './modelCard.ts';
import { scoreDatabase } from './scoreDatabase.ts';
import { trainToFile, type TrainOutcome } from './trainPipeline.ts';
import { whatIf } from './whatIf.ts';

const tempDir = useSuiteTempDir();

describe('estimator pipeline on simulated ScienceWorld', () => {
  let dir: string;
  let dbPath: string;
  let truthPath: string;
  let trained: TrainOutcome;
  let db: Db;

  beforeAll(async () => {
    dir = tempDir();
    const out = join(dir, 'sw.jsonl');
    ({ truthPath } = await simulateToFile({ preset: 'scienceworld', episodes: 60, seed: 3, out }));
    dbPath = join(dir, 'sw.db');
    db = openDatabase(dbPath);
    await importPaths(db, [out]);
    trained = await trainToFile({ dbPath, out: join(dir, 'est.onnx'), truthPath, maxEpochs: 2, seed: 5 });
  }, 300_000);

  it('writes the ONNX file, a valid model card beside it and an estimators row', () => {
    expect(existsSync(join(dir, 'est.onnx'))).toBe(true);
    expect(trained.cardPath).toBe(join(dir, 'est.card.json'));
    const card = ModelCard.parse(JSON.parse(readFileSync(trained.cardPath, 'utf8')));
    expect(card.models).toEqual(['gpt-5', 'deepseek-v3.2', 'minimax-m2', 'kimi-k2', 'gemini-2.5-flash-lite', 'gpt-oss-120b']);
    expect(card.encoder).toMatchObject({ name: 'hash-1024', history_dim: 1028, max_history_tokens: 8192 });
    expect(card.metrics.epochs).toBe(2);
    expect(card.metrics.history).toHaveLength(2);
    expect(card.data.train_rows + card.data.validation_rows).toBe(db.prepare('SELECT COUNT(*) FROM turns').pluck().get());
    const row = db.prepare('SELECT name, onnx_sha256, metrics_json FROM estimators WHERE id = ?').get(trained.estimatorId) as { name: string; onnx_sha256: string; metrics_json: string };
    expect(row.name).toBe('est');
    expect(row.onnx_sha256).toBe(card.onnx_sha256);
    expect(JSON.parse(row.metrics_json).val_mae).toBe(card.metrics.val_mae);
  });

  it('values every policy under the planted truth, each a probability, with the per-category comparison', () => {
    const q = trained.card.decision_quality;
    expect(q).not.toBeNull();
    const names = q!.policies.map((p) => p.policy);
    expect(names).toEqual(['estimator argmax', 'random', ...trained.card.models.map((m) => `fixed:${m}`)]);
    for (const p of q!.policies) {
      expect(p.value).toBeGreaterThan(0);
      expect(p.value).toBeLessThan(1);
    }
    // random is the mean of the fixed policies: the same turns, each valued at the mean over models
    const fixed = q!.policies.filter((p) => p.policy.startsWith('fixed:')).map((p) => p.value);
    expect(q!.policies[1]!.value).toBeCloseTo(fixed.reduce((a, b) => a + b, 0) / fixed.length, 12);
    expect(q!.best_model_by_category.map((b) => b.category).sort()).toEqual(
      ['device', 'interaction', 'navigation', 'object', 'observation', 'query'].filter((c) => q!.best_model_by_category.some((b) => b.category === c)),
    );
    expect(q!.best_model_by_category.find((b) => b.category === 'query')?.planted).toBe('gpt-oss-120b');
  });

  it('the same seed gives the same model, byte for byte', async () => {
    const again = await trainToFile({ dbPath, out: join(dir, 'again.onnx'), maxEpochs: 2, seed: 5 });
    expect(again.card.onnx_sha256).toBe(trained.card.onnx_sha256);
  }, 300_000);

  it('what-if before scoring computes ŝ now; scoring stores ŝ for every turn × model; what-if then reads the same values', async () => {
    const episode = db.prepare("SELECT id FROM episodes WHERE n_turns >= 6 ORDER BY id LIMIT 1").pluck().get() as number;
    const before = await whatIf(db, episode, 4, { estimatorId: trained.estimatorId ?? undefined });
    expect(before.source).toBe('computed');
    expect(before.provider).toBe('cpu');
    expect(before.candidates).toHaveLength(6);
    expect(before.candidates.find((c) => c.model === before.logged_model)?.delta).toBe(0);

    const progress: number[] = [];
    const scored = await scoreDatabase(dbPath, join(dir, 'est.onnx'), { ep: 'cpu', batchRows: 256, onProgress: (p) => progress.push(p.rows) });
    const turns = db.prepare('SELECT COUNT(*) FROM turns').pluck().get() as number;
    expect(scored).toMatchObject({ estimatorId: trained.estimatorId, provider: 'cpu', rows: turns, cancelled: false });
    expect(progress.at(-1)).toBe(turns);
    expect(db.prepare('SELECT COUNT(*) FROM estimates WHERE estimator_id = ?').pluck().get(trained.estimatorId)).toBe(turns * 6);
    expect(db.prepare('SELECT COUNT(*) FROM history_sketches').pluck().get()).toBe(turns);

    const after = await whatIf(db, episode, 4, { estimatorId: trained.estimatorId ?? undefined, k: 3 });
    expect(after.source).toBe('estimates');
    for (const c of after.candidates) {
      // the incremental encoder of `score` and the direct one of what-if give the same history vector
      expect(c.s_hat).toBeCloseTo(before.candidates.find((b) => b.model === c.model)!.s_hat, 5);
      expect(c.neighbours.length).toBeLessThanOrEqual(3);
      const episodes = c.neighbours.map((n) => n.episode_id);
      expect(new Set(episodes).size).toBe(episodes.length);
      expect(episodes).not.toContain(episode);
      const sims = c.neighbours.map((n) => n.similarity);
      expect([...sims].sort((a, b) => b - a)).toEqual(sims);
      for (const n of c.neighbours) {
        const model = db.prepare('SELECT m.name FROM turns t JOIN models m ON m.id = t.model_id WHERE t.episode_id = ? AND t.t = ?').pluck().get(n.episode_id, n.turn);
        expect(model).toBe(c.model);
      }
    }
    expect(after.candidates.some((c) => c.neighbours.length > 0)).toBe(true);
  }, 300_000);

  it('scoring the same file again replaces its estimates; a cancelled run keeps whole batches', async () => {
    const turns = db.prepare('SELECT COUNT(*) FROM turns').pluck().get() as number;
    const abort = new AbortController();
    const r = await scoreDatabase(dbPath, join(dir, 'est.onnx'), {
      ep: 'cpu',
      batchRows: 64,
      signal: abort.signal,
      onProgress: (p) => {
        if (p.rows >= 128) abort.abort();
      },
    });
    expect(r.cancelled).toBe(true);
    expect(r.rows).toBe(128);
    // est and again are the same bytes (same seed): one estimator, never a duplicate
    expect(db.prepare('SELECT COUNT(*) FROM estimators').pluck().get()).toBe(1);
    expect(db.prepare('SELECT COUNT(*) FROM estimates WHERE estimator_id = ?').pluck().get(trained.estimatorId)).toBe(128 * 6);
    await scoreDatabase(dbPath, join(dir, 'est.onnx'), { ep: 'cpu' });
    expect(db.prepare('SELECT COUNT(*) FROM estimates WHERE estimator_id = ?').pluck().get(trained.estimatorId)).toBe(turns * 6);
  }, 300_000);
});
