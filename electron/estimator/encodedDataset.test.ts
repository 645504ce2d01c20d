import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useSuiteTempDir } from '../testing/tmp.ts';
import { buildTrainingSet } from './dataset.ts';
import { buildEncodedTrainingSet } from './encodedDataset.ts';
import { createForward } from './forward.ts';
import { openHistoryEncoder } from './historyEncoder.ts';
import { STRUCTURED_DIM, serialiseHistory, type HistoryTurn } from './historyText.ts';
import { writeOnnx } from './onnxExport.ts';
import { openScorer } from './ortScoring.ts';
import { simulatedDb } from './simulatedDb.testSupport.ts';
import { TINY_HIDDEN, writeTinyModel } from './tinyTextModel.testSupport.ts';
import { trainEstimator } from './train.ts';

const tempDir = useSuiteTempDir();

describe('training rows with a history encoder', () => {
  it('hash-1024 gives exactly buildTrainingSet', async () => {
    const { db } = await simulatedDb(tempDir(), 'scienceworld', 12);
    const enc = await openHistoryEncoder('hash-1024');
    const a = buildTrainingSet(db, { seed: 2 });
    const b = await buildEncodedTrainingSet(db, enc, { seed: 2 });
    expect({ ...b, summary: { ...b.summary, seconds: 0 } }).toEqual({ ...a, summary: { ...a.summary, seconds: 0 } });
    db.close();
  });

  it('onnx-text: same rows and split, embeddings of each serialised h_t; trains, exports and scores end to end', async () => {
    const { db } = await simulatedDb(tempDir(), 'scienceworld', 30);
    const model = writeTinyModel(join(tempDir(), 'encoder'), { tokenTypeIds: true, maxLength: 128 });
    const enc = await openHistoryEncoder(`onnx-text:${model.dir}`, { ep: 'cpu' });
    expect(enc.historyTokens).toBe(126);
    const progress: number[] = [];
    const data = await buildEncodedTrainingSet(db, enc, { seed: 1, encodeBatch: 50, onEncodeProgress: (p) => progress.push(p.rows) });
    const hashed = buildTrainingSet(db, { seed: 1, maxHistoryTokens: 126 });
    expect(data.encoder).toBe('onnx-text');
    expect(data.textDim).toBe(TINY_HIDDEN);
    expect(data.historyDim).toBe(TINY_HIDDEN + STRUCTURED_DIM);
    expect(data.summary.maxHistoryTokens).toBe(126);
    for (const k of ['rows', 'models', 'model', 'target', 'turnId', 'episodeId', 'validation', 'structured', 'modelFeatures'] as const) {
      expect(data[k]).toEqual(hashed[k]);
    }
    expect(progress.at(-1)).toBe(data.rows);
    expect(data.textIndptr.at(-1)).toBe(data.rows * TINY_HIDDEN);

    // Row r's features are the encoder's embedding of serialiseHistory(task, earlier turns, budget).
    const turnsOf = db.prepare('SELECT x.action, x.observation FROM turns t LEFT JOIN turn_text x ON x.turn_id = t.id WHERE t.episode_id = ? ORDER BY t.t');
    const taskOf = db.prepare('SELECT task_text FROM episode_text WHERE episode_id = ?').pluck();
    const tOf = db.prepare('SELECT t FROM turns WHERE id = ?').pluck();
    for (const r of [0, 1, 57, data.rows - 1]) {
      const e = data.episodeId[r] as number;
      const h = serialiseHistory(taskOf.get(e) as string, (turnsOf.all(e) as HistoryTurn[]).slice(0, tOf.get(data.turnId[r]) as number), 126);
      const want = await enc.encodeText([h]);
      const got = data.textValues.subarray(r * TINY_HIDDEN, (r + 1) * TINY_HIDDEN);
      for (let j = 0; j < TINY_HIDDEN; j++) expect(got[j]).toBeCloseTo(want[j] as number, 6);
    }
    // Every row went through the model once (plus the 4 checks above); how many the tokenizer had to cut:
    expect(enc.stats.texts).toBe(data.rows + 4);
    console.log(`onnx-text rows: ${data.rows}, mean tokens ${(enc.stats.tokens / enc.stats.texts).toFixed(1)}, truncated ${enc.stats.truncated}`);

    // Train a small estimator on these rows, export it, and score encoder rows with ONNX Runtime.
    const { weights, metrics } = trainEstimator(data, { maxEpochs: 3 });
    expect(Number.isFinite(metrics.valMae)).toBe(true);
    expect(weights.historyDim).toBe(TINY_HIDDEN + STRUCTURED_DIM);
    const path = join(tempDir(), 'estimator.onnx');
    writeOnnx(weights, path);
    const scorer = await openScorer(path, { ep: 'cpu' });
    const e = data.episodeId[0] as number;
    const turns = turnsOf.all(e) as HistoryTurn[];
    const rows = await enc.encode(
      [0, 1, 2].map((t) => ({
        history: serialiseHistory(taskOf.get(e) as string, turns.slice(0, t), enc.historyTokens),
        structured: { t, expectedSteps: 20, previousSeverity: 0, previousSwitched: false },
      })),
    );
    const viaOrt = await scorer.score(rows, 3);
    const viaTs = createForward(weights).score(rows, 3);
    for (let i = 0; i < viaTs.length; i++) expect(viaOrt[i]).toBeCloseTo(viaTs[i] as number, 5);
    await scorer.close();
    await enc.close();
    db.close();
  });
});
