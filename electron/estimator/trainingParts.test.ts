/**
 * Training in parts (trainingParts.ts, train.ts trainOnParts): part files give back their rows exactly; one
 * spilled part trains the weights the whole-set trainer trains (an epoch of it: afterwards the whole set keeps
 * shuffling its one order and a spilled part starts each epoch from its file's); several parts train too.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../db/dbHandle.ts';
import { buildTrainingSet, splitRows, type BuiltRows, type TrainingSet } from './dataset.ts';
import { simulatedDb } from './simulatedDb.testSupport.ts';
import { trainEstimator, trainOnParts } from './train.ts';
import { SpilledParts } from './trainingParts.ts';

/** The given rows of a training set as rows of their own, in order. */
function pick(data: TrainingSet, rows: Int32Array): BuiltRows {
  const S = data.historyDim - data.textDim;
  const indptr = new Int32Array(rows.length + 1);
  const indices: number[] = [];
  const values: number[] = [];
  rows.forEach((r, i) => {
    for (let k = data.textIndptr[r] as number; k < (data.textIndptr[r + 1] as number); k++) {
      indices.push(data.textIndices[k] as number);
      values.push(data.textValues[k] as number);
    }
    indptr[i + 1] = indices.length;
  });
  const structured = new Float32Array(rows.length * S);
  rows.forEach((r, i) => structured.set(data.structured.subarray(r * S, (r + 1) * S), i * S));
  return {
    encoder: data.encoder, profile: data.profile, historyDim: data.historyDim, textDim: data.textDim, rows: rows.length,
    textIndptr: indptr, textIndices: Uint16Array.from(indices), textValues: Float32Array.from(values), structured,
    model: Int32Array.from(rows, (r) => data.model[r] as number), target: Float32Array.from(rows, (r) => data.target[r] as number),
    turnId: Int32Array.from(rows, (r) => data.turnId[r] as number), episodeId: Int32Array.from(rows, (r) => data.episodeId[r] as number),
    validation: new Uint8Array(rows.length),
  };
}

describe('training in parts', () => {
  let dir: string;
  let db: Db;
  let data: TrainingSet;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'routelens-parts-'));
    ({ db } = await simulatedDb(dir, 'scienceworld', 40, 9));
    data = buildTrainingSet(db);
  });

  afterAll(() => {
    db?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The training rows spilled in `n` parts of consecutive rows, the held-out rows in memory. */
  function spilled(n: number): SpilledParts {
    const { train, validation } = splitRows(data);
    const parts = new SpilledParts(data, dir);
    const size = Math.ceil(train.length / n);
    for (let i = 0; i < n; i++) parts.add(pick(data, train.subarray(i * size, (i + 1) * size)));
    parts.setValidation({ ...pick(data, validation), models: data.models, modelFeatures: data.modelFeatures });
    return parts;
  }

  it('a part file gives back its rows exactly', () => {
    const parts = spilled(3);
    try {
      const { train } = splitRows(data);
      const size = Math.ceil(train.length / 3);
      for (let i = 0; i < 3; i++) {
        const want = pick(data, train.subarray(i * size, (i + 1) * size));
        const got = parts.part(i).data;
        for (const f of ['textIndptr', 'textIndices', 'textValues', 'structured', 'model', 'target'] as const) {
          expect(Array.from(got[f]), `part ${i} ${f}`).toEqual(Array.from(want[f]));
        }
        expect(got.rows).toBe(want.rows);
      }
      expect(parts.trainRows.reduce((a, b) => a + b, 0)).toBe(train.length);
    } finally {
      parts.remove();
    }
  });

  it('one spilled part trains the whole-set weights, bit for bit', () => {
    const parts = spilled(1);
    try {
      const whole = trainEstimator(data, { maxEpochs: 1, seed: 3 });
      const fromFile = trainOnParts(parts, { maxEpochs: 1, seed: 3 });
      expect(fromFile.weights).toEqual(whole.weights);
      expect(fromFile.metrics.valMae).toBe(whole.metrics.valMae);
      expect(fromFile.metrics.trainMae).toBe(whole.metrics.trainMae);
    } finally {
      parts.remove();
    }
  });

  it('several parts train: the error falls below the constant predictor, every row counted once, the folder removed', () => {
    const parts = spilled(4);
    const { metrics } = trainOnParts(parts, { maxEpochs: 4, seed: 3 });
    parts.remove();
    expect(metrics.trainRows).toBe(splitRows(data).train.length);
    expect(metrics.validationRows).toBe(splitRows(data).validation.length);
    expect(metrics.valMae).toBeLessThan(metrics.baselineMae);
    expect(readdirSync(dir).filter((f) => f.startsWith('routelens-train-'))).toEqual([]);
  });
});
