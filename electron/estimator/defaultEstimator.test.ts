// The estimator shipped in models/: its card describes the file beside it, and its choices beat every single
// model and the random router on simulated episodes it never saw (a seed other than the one it was trained on),
// valued under the simulator's planted truth (decisionQuality.ts), and it rates the planted best model highest
// in every tool category. Re-train with `npm run train:default`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { simulateToFile } from '../../fixtures/simulator/index.ts';
import { openDatabase } from '../db/database.ts';
import { importPaths } from '../importers/pipeline.ts';
import { useSuiteTempDir } from '../testing/tmp.ts';
import { buildTrainingSet } from './dataset.ts';
import { decisionQuality } from './decisionQuality.ts';
import { modelCardPath, readModelCard } from './modelCard.ts';
import { sha256 } from './onnxExport.ts';
import { openScorer } from './ortScoring.ts';
import { denseRows, heldOutTurns, readTruth } from './trainPipeline.ts';
import { DEFAULT_ESTIMATOR_PATH } from './whatIf.ts';

const tempDir = useSuiteTempDir();

describe('the default estimator', () => {
  const card = readModelCard(modelCardPath(DEFAULT_ESTIMATOR_PATH));

  it('is the file its card describes, trained with a truth file and early stopping on (the best epoch kept)', () => {
    expect(sha256(readFileSync(DEFAULT_ESTIMATOR_PATH))).toBe(card.onnx_sha256);
    expect(card.decision_quality?.beats_every_single_model_and_random).toBe(true);
    expect(card.decision_quality?.categories_recovered).toBe(card.decision_quality?.best_model_by_category.length);
    expect(card.metrics.val_mae).toBeLessThan(card.metrics.baseline_mae ?? 0);
    // Patience 3 within at most 8 epochs: the run may stop early or reach the limit; either way the best epoch's weights ship.
    expect(card.config.patience).toBe(3);
    expect(card.metrics.best_epoch).toBeLessThanOrEqual(card.metrics.epochs);
    expect(card.metrics.val_mae).toBeCloseTo(card.metrics.history?.[card.metrics.best_epoch - 1]?.valMae ?? NaN, 12);
  });

  it('chooses better than every single model and random on fresh simulated episodes', async () => {
    const dir = tempDir();
    const out = join(dir, 'sw.jsonl');
    const { truthPath } = await simulateToFile({ preset: 'scienceworld', episodes: 900, seed: 4242, out });
    const db = openDatabase(join(dir, 'sw.db'));
    try {
      await importPaths(db, [out]);
      const data = buildTrainingSet(db, {
        models: card.models,
        runs: card.data.runs,
        maxHistoryTokens: card.encoder.max_history_tokens,
        validationFraction: 0,
      });
      const rows = Int32Array.from({ length: data.rows }, (_, i) => i);
      const scorer = await openScorer(DEFAULT_ESTIMATOR_PATH, { ep: 'cpu' });
      let scores: Float32Array;
      try {
        scores = await scorer.score(denseRows(data, rows), data.rows);
      } finally {
        await scorer.close();
      }
      const q = decisionQuality(data.models, scores, heldOutTurns(db, data, rows), readTruth(truthPath));
      expect(q.turns).toBeGreaterThan(3000);
      console.log(`default estimator on ${q.turns} fresh turns: ${q.policies.map((p) => `${p.policy} ${p.value.toFixed(4)}`).join(', ')}; best model recovered in ${q.categories_recovered} of ${q.best_model_by_category.length} categories`);
      const estimator = q.policies[0]!;
      for (const other of q.policies.slice(1)) expect(estimator.value, other.policy).toBeGreaterThan(other.value);
      for (const c of q.best_model_by_category) expect(c.learned, c.category).toBe(c.planted);
      expect(q.best_model_by_category).toHaveLength(6);
    } finally {
      db.close();
    }
  }, 300_000);
});
