import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../db/database.ts';
import { useTempDir } from '../testing/tmp.ts';
import { cutoffDays, cutoffMonths, modelFactsOf, MTROUTER_MODEL_FEATURES, mtrouterModelFeatures, standardiseModelFeatures } from './modelFeatures.ts';

const tempDir = useTempDir();

describe('model features', () => {
  it('log1p + z-scores each feature over the pool, missing values at the mean', () => {
    const raw = [
      [1, 10, null, 1000, 100, 12, 50, null],
      [3, 10, null, 4000, 100, 24, 150, null],
      [null, 10, null, 16000, 100, 36, 250, null],
    ];
    const { features, mean, std } = standardiseModelFeatures(raw);
    const at = (i: number, j: number): number => features[i * 8 + j] as number;
    expect(at(2, 0)).toBe(0); // missing → the mean
    expect(at(0, 0)).toBeCloseTo(-1, 5); // two known values: ±1
    expect(at(1, 0)).toBeCloseTo(1, 5);
    expect(mean[0]).toBeCloseTo((Math.log(2) + Math.log(4)) / 2, 10);
    for (const i of [0, 1, 2]) {
      expect(at(i, 1)).toBe(0); // constant feature
      expect(at(i, 2)).toBe(0); // unknown everywhere
      expect(at(i, 7)).toBe(0);
    }
    expect(std[1]).toBe(1);
    // log1p spacing: 1000 → 4000 → 16000 are equally spaced after the log.
    expect(at(1, 3)).toBeCloseTo(0, 2);
    expect(at(0, 3)).toBeCloseTo(-at(2, 3), 2);
  });

  it('reads knowledge cut-offs as months since 2020', () => {
    expect(cutoffMonths('2020-01-01')).toBe(0);
    expect(cutoffMonths('2024-09-30')).toBeCloseTo(56 + 29 / 31, 10);
    expect(cutoffMonths('2023')).toBe(36);
    expect(cutoffMonths('2025-03')).toBe(62);
    expect(cutoffMonths('unknown')).toBeNull();
    expect(cutoffMonths(null)).toBeNull();
  });
});

/**
 * The paper's pool as the authors' model config gives it (MTRouter config/models/custom_models.yaml, commit
 * 255267285c33): [reference id, our name, max_input_tokens, max_output_tokens, input $/M, output $/M,
 * knowledge_cutoff]. kimi-k2-0905 has no cut-off there, so the reference's default 2024-01-01 applies.
 */
const PAPER_POOL: [string, string, number, number, number, number, string][] = [
  ['openai/gpt-5', 'gpt-5', 400000, 128000, 1.25, 10.0, '2024-09-30'],
  ['deepseek/deepseek-v3.2', 'deepseek-v3.2', 163840, 65000, 0.27, 0.42, '2025-09-01'],
  ['minimax/minimax-m2', 'minimax-m2', 196608, 4096, 0.2, 1, '2025-06-01'],
  ['moonshotai/kimi-k2-0905', 'kimi-k2', 131000, 131000, 0.39, 1.9, '2024-01-01'],
  ['google/gemini-2.5-flash-lite', 'gemini-2.5-flash-lite', 1048576, 65000, 0.1, 0.4, '2025-09-01'],
  ['openai/gpt-oss-120b', 'gpt-oss-120b', 131072, 131072, 0.09, 0.36, '2025-09-01'],
];

/**
 * The reference's own numbers: its formula run in numpy float32 on the table above (as model_encoder.py
 * computes them), to 9 decimals. Its float32 arithmetic differs from the exact values by up to 1.1e-6.
 */
const NUMPY_FLOAT32 = [
  [0.640686572, 0.646248877, 2.105520725, 2.084201336, -0.714374542, 0.681874156, 1.451989889, 2.073450804],
  [-0.554389298, 0.093105748, -0.208331436, -0.687383413, 0.756697118, -0.709704697, -1.905123353, -0.591605365],
  [-0.310277551, -2.163225412, -0.437710047, -0.223714426, 0.353903681, -0.928063154, 0.370773882, -0.236772418],
  [-0.853893757, 0.665159464, 0.15695174, 0.279314339, -1.909620166, -0.484473109, 0.313183576, 0.304675639],
  [1.931028485, 0.093105748, -0.789741516, -0.706586778, 0.756697118, 1.923928738, -0.115411989, -0.752067804],
  [-0.853158295, 0.66560787, -0.82668978, -0.745830536, 0.756697118, -0.483558804, -0.11541421, -0.797680557],
];

describe('the mtrouter profile\'s model features', () => {
  it('for the paper pool equal a hand computation from the authors\' model config', () => {
    const db = openDatabase(join(tempDir(), 'pool.db'));
    try {
      const got = mtrouterModelFeatures(modelFactsOf(db), PAPER_POOL.map((m) => m[1]));
      expect(got.stats.features).toEqual(MTROUTER_MODEL_FEATURES);
      // By hand: 5 attributes, 3 derived; log1p on all but the cut-off days; z-score with population std + 1e-6.
      const base = Date.UTC(2026, 0, 1);
      const raw = PAPER_POOL.map(([, , inTok, outTok, inCost, outCost, cutoff]) => {
        const [y, m, d] = cutoff.split('-').map(Number) as [number, number, number];
        const days = (Date.UTC(y, m - 1, d) - base) / 86_400_000;
        return [inTok, outTok, inCost, outCost, days, inTok + outTok, outCost / (inCost + 1e-6), inCost + outCost];
      });
      for (let j = 0; j < 8; j++) {
        const col = raw.map((r) => (j === 4 ? (r[j] as number) : Math.log1p(r[j] as number)));
        const mean = col.reduce((a, b) => a + b, 0) / col.length;
        const std = Math.sqrt(col.reduce((a, b) => a + (b - mean) ** 2, 0) / col.length) + 1e-6;
        col.forEach((v, i) => {
          const f = got.features[i * 8 + j] as number;
          expect(Math.abs(f - (v - mean) / std), `${PAPER_POOL[i]![0]} ${MTROUTER_MODEL_FEATURES[j]}`).toBeLessThan(1e-6);
          expect(Math.abs(f - NUMPY_FLOAT32[i]![j]!)).toBeLessThan(2e-6);
        });
      }
      // gpt-5: 1.25 and 10 $/M, 400k + 128k tokens, 458 days before 2026-01-01.
      expect(got.stats.raw['gpt-5']).toEqual([400000, 128000, 1.25, 10, -458, 528000, 10 / 1.250001, 11.25]);
    } finally {
      db.close();
    }
  });

  it('fills what the table lacks with the reference defaults, and a constant column gives 0', () => {
    const db = openDatabase(join(tempDir(), 'pool.db'));
    try {
      db.prepare('INSERT INTO models (name) VALUES (?)').run('mystery-model');
      const got = mtrouterModelFeatures(modelFactsOf(db), ['mystery-model', 'never-seen']);
      expect(got.stats.raw['mystery-model']).toEqual([128000, 4096, 1, 5, -731, 132096, 5 / 1.000001, 6]);
      expect(got.stats.raw['never-seen']).toEqual(got.stats.raw['mystery-model']);
      expect(Array.from(got.features)).toEqual(new Array(16).fill(0));
    } finally {
      db.close();
    }
  });

  it('counts cut-offs in days from 2026-01-01', () => {
    expect(cutoffDays('2026-01-01')).toBe(0);
    expect(cutoffDays('2025-12-31')).toBe(-1);
    expect(cutoffDays('2025-06')).toBe(cutoffDays('2025-06-01'));
    expect(cutoffDays('soon')).toBeNull();
  });
});
