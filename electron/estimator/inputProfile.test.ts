// `train --profile mtrouter` as a user runs it: the card records the profile, and scoring and what-if rebuild
// exactly the inputs the estimator was trained on (the ŝ of a turn equals the exported graph's ŝ on the
// training row of that turn).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../db/dbHandle.ts';
import { useSuiteTempDir } from '../testing/tmp.ts';
import { buildEncodedTrainingSet } from './encodedDataset.ts';
import { openHistoryEncoder } from './historyEncoder.ts';
import { APPROX_TOKEN_COUNTER } from './historyText.ts';
import { inputProfile, ProfileError } from './inputProfile.ts';
import { readModelCard } from './modelCard.ts';
import { MTROUTER_MODEL_FEATURES } from './modelFeatures.ts';
import { mtrouterHistory } from './mtrouterHistory.ts';
import { MTROUTER_TRAIN_CONFIG } from './mtrouterTraining.ts';
import { tokenCounter } from './onnxTextEncoder.ts';
import { openScorer } from './ortScoring.ts';
import { scoreDatabase } from './scoreDatabase.ts';
import { simulatedDb } from './simulatedDb.testSupport.ts';
import { writeTinyModel } from './tinyTextModel.testSupport.ts';
import { loadTokenizer } from './tokenizer.ts';
import { denseRows, trainToFile, type TrainOutcome } from './trainPipeline.ts';
import { whatIf } from './whatIf.ts';

const tempDir = useSuiteTempDir();

describe('an estimator trained with --profile mtrouter', () => {
  let db: Db;
  let dbPath: string;
  let trained: TrainOutcome;

  beforeAll(async () => {
    ({ db, path: dbPath } = await simulatedDb(tempDir(), 'hle', 30, 7));
    trained = await trainToFile({ dbPath, out: join(tempDir(), 'ref.onnx'), profile: 'mtrouter', maxEpochs: 1, seed: 3 });
  }, 300_000);
  afterAll(() => db.close());

  it('says so in its card: profile, encoder without structured features, the reference model attributes and network', () => {
    const card = readModelCard(trained.cardPath);
    expect(card.profile).toBe('mtrouter');
    expect(card.encoder).toEqual({ name: 'hash-1024', history_dim: 1024, max_history_tokens: 8192 });
    expect(card.config.encoder).toMatchObject({ name: 'hash-1024', profile: 'mtrouter', structured: [], dim: 1024, tokenCount: 'chars/4' });
    expect((card.config.model_features as { features: string[] }).features).toEqual(MTROUTER_MODEL_FEATURES);
    // …and the reference's network: two-layer attribute MLP, residuals from zero, its residual L2.
    expect(card.config).toMatchObject({ attributeLayers: 2, residualInit: 'zero', residualL2: MTROUTER_TRAIN_CONFIG.residualL2, maxEpochs: 1, seed: 3 });
    // A card from before profiles existed reads as routelens.
    const old = JSON.parse(readFileSync(trained.cardPath, 'utf8')) as Record<string, unknown>;
    delete old.profile;
    const oldPath = join(tempDir(), 'old.card.json');
    writeFileSync(oldPath, JSON.stringify(old));
    expect(readModelCard(oldPath).profile).toBe('routelens');
  });

  it('is scored, and asked what-if, on the inputs it was trained on', async () => {
    const encoder = await openHistoryEncoder('hash-1024', { profile: 'mtrouter' });
    const data = await buildEncodedTrainingSet(db, encoder, { seed: 3 });
    await encoder.close();
    const rows = Int32Array.from({ length: data.rows }, (_, i) => i);
    const scorer = await openScorer(trained.onnxPath, { ep: 'cpu' });
    const atTraining = await scorer.score(denseRows(data, rows), data.rows);
    await scorer.close();
    const K = data.models.length;

    // what-if before any scoring: the turn's history laid out again from the card's profile.
    const turn = db.prepare('SELECT id, episode_id, t FROM turns WHERE t = 3 ORDER BY id LIMIT 1').get() as { id: number; episode_id: number; t: number };
    const r = data.turnId.indexOf(turn.id);
    const w = await whatIf(db, turn.episode_id, turn.t, { estimatorId: trained.estimatorId ?? undefined });
    expect(w.source).toBe('computed');
    for (const c of w.candidates) expect(Math.abs(c.s_hat - (atTraining[r * K + data.models.indexOf(c.model)] as number))).toBeLessThan(1e-6);

    const scored = await scoreDatabase(dbPath, trained.onnxPath, { ep: 'cpu' });
    expect(scored.rows).toBe(data.rows);
    const stored = db.prepare('SELECT e.turn_id, m.name AS model, e.s_hat FROM estimates e JOIN models m ON m.id = e.model_id WHERE e.estimator_id = ?')
      .all(trained.estimatorId) as { turn_id: number; model: string; s_hat: number }[];
    expect(stored).toHaveLength(data.rows * K);
    const rowOf = new Map(Array.from(data.turnId, (id, i) => [id, i]));
    let worst = 0;
    for (const s of stored) {
      const at = (rowOf.get(s.turn_id) as number) * K + data.models.indexOf(s.model);
      worst = Math.max(worst, Math.abs(s.s_hat - (atTraining[at] as number)));
    }
    expect(worst).toBeLessThan(1e-6);
  }, 120_000);
});

describe('input profiles', () => {
  it('mtrouter with onnx-text counts history tokens with the model tokenizer and adds no structured features', async () => {
    const model = writeTinyModel(tempDir());
    const enc = await openHistoryEncoder(`onnx-text:${model.dir}`, { ep: 'cpu', profile: 'mtrouter' });
    try {
      expect(enc.dim).toBe(enc.textDim);
      expect(enc.tokens.kind).toBe('tokenizer.json (WordPiece)');
      const task = '<task_description>Boil water.</task_description><initial_observation>You see a door.</initial_observation>';
      // 'thermometer' is one token of the tiny vocabulary but 11 characters: the tokenizer fits all three
      // messages in 64 − 20 − 3 = 41 tokens (13 + 13 + 15), chars/4 only two (19 + 14, then 14 more).
      const earlier = [{ action: 'open the door', observation: 'thermometer thermometer thermometer' }];
      const expected = mtrouterHistory(task, earlier, 64, tokenCounter(loadTokenizer(model.dir)));
      expect(enc.history(task, earlier, 64)).toEqual(expected);
      expect(expected.text).toBe(
        '[Task]\nBoil water.\n\n[Context]\n[Turn 1 - user]\nYou see a door.\n\n[Turn 1 - assistant]\nopen the door\n\n[Turn 2 - user]\nthermometer thermometer thermometer',
      );
      expect(mtrouterHistory(task, earlier, 64, APPROX_TOKEN_COUNTER).keptMessages).toBe(2);
      const rows = await enc.encode([{ history: expected, structured: { t: 1, expectedSteps: 8, previousSeverity: 0, previousSwitched: false } }]);
      expect(Array.from(rows)).toEqual(Array.from(await enc.encodeText([expected])));
      expect((await enc.describe()).profile).toBe('mtrouter');
    } finally {
      await enc.close();
    }
  });

  it('refuses a name it does not know', () => {
    expect(inputProfile().name).toBe('routelens');
    expect(() => inputProfile('reference')).toThrow(ProfileError);
    expect(() => inputProfile('reference')).toThrow('unknown input profile "reference" (expected routelens or mtrouter)');
  });
});
