/**
 * Training rows from a ClickHouse store (a real 2-shard cluster) against SQLite's from the same files: the same
 * rows (features, targets, models), pool, model features and counts, however many parts they are read in; the
 * held-out share and its cap; and `train` end to end from the store, its part files gone afterwards.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clickhouseSkipReason } from '../../../../test/clickhouseCluster.ts';
import { sameDataOnBothStores, type BothStores } from '../../../../test/sameDataOnBothStores.ts';
import { buildTrainingSet, TrainingDataError, type BuiltRows } from '../../../estimator/dataset.ts';
import { trainToFile } from '../../../estimator/trainPipeline.ts';
import { parseStoreUrl } from '../../storeUrl.ts';
import { buildStoreTrainingSet } from './storeTraining.ts';

const skip = clickhouseSkipReason();
if (skip) console.log(skip);

/** Each row as text: model, target, structured features and the sparse text features (order-free across rows). */
function rowsOf(d: Pick<BuiltRows, 'rows' | 'textIndptr' | 'textIndices' | 'textValues' | 'structured' | 'model' | 'target'>, models: readonly string[]): string[] {
  const S = d.rows ? d.structured.length / d.rows : 0;
  const out: string[] = [];
  for (let r = 0; r < d.rows; r++) {
    const text: string[] = [];
    for (let k = d.textIndptr[r] as number; k < (d.textIndptr[r + 1] as number); k++) text.push(`${d.textIndices[k]}:${d.textValues[k]}`);
    out.push(`${models[d.model[r] as number]}|${d.target[r]}|${Array.from(d.structured.subarray(r * S, (r + 1) * S)).join(',')}|${text.join(' ')}`);
  }
  return out;
}

describe.skipIf(skip !== null)('training rows from a ClickHouse store', () => {
  let both: BothStores;
  let spill: string;

  beforeAll(async () => {
    both = await sameDataOnBothStores([{ preset: 'scienceworld', episodes: 120, seed: 21 }], ['fixtures/samples/mtrouter', 'fixtures/samples/mini-swe-agent']);
    spill = mkdtempSync(join(tmpdir(), 'routelens-spill-test-'));
  }, 240_000);

  afterAll(async () => {
    await both?.close();
    if (spill) rmSync(spill, { recursive: true, force: true });
  });

  it('builds the rows SQLite builds, in many parts or one, with the same pool, model features and counts', async () => {
    const lite = buildTrainingSet(both.db);
    for (const partTurns of [300, 10_000_000]) {
      const set = await buildStoreTrainingSet(both.store, { partTurns, spillDir: spill });
      try {
        expect(set.models).toEqual(lite.models);
        expect(set.modelFeatureStats.raw).toEqual(lite.modelFeatureStats.raw);
        expect(Array.from(set.parts.shape.modelFeatures)).toEqual(Array.from(lite.modelFeatures));
        const { summary: s } = set;
        expect([s.episodes, s.trainRows + s.validationRows, s.skippedEpisodesNoOutcome, s.skippedTurnsOutsidePool, s.meanNonZero])
          .toEqual([lite.summary.episodes, lite.rows, lite.summary.skippedEpisodesNoOutcome, lite.summary.skippedTurnsOutsidePool, lite.summary.meanNonZero]);
        // The same number of held-out episodes as SQLite's seeded shuffle takes (the episodes themselves differ).
        expect(s.validationEpisodes).toBe(lite.summary.validationEpisodes);
        const fromStore: string[] = rowsOf(set.parts.validation.data, set.models);
        for (let p = 0; p < set.parts.trainRows.length; p++) fromStore.push(...rowsOf(set.parts.part(p).data, set.models));
        expect(fromStore.sort()).toEqual(rowsOf(lite, lite.models).sort());
        const parts = set.parts.trainRows.length;
        if (partTurns === 300) {
          expect(parts).toBeGreaterThan(5);
          expect(set.largestPart).toBeLessThan(lite.rows / 3);
        } else {
          expect(parts).toBe(1);
        }
        expect(readdirSync(set.parts.dir)).toHaveLength(parts);
        // The held-out rows' categories, for decision quality: one per row.
        expect(set.heldOut).toHaveLength(s.validationRows);
      } finally {
        set.parts.remove();
      }
    }
    expect(readdirSync(spill)).toEqual([]);
  });

  it('the same selection gives the same split; another seed another; the held-out turns stay under the cap', async () => {
    const keysOf = async (seed: number, maxValidationTurns?: number) => {
      const set = await buildStoreTrainingSet(both.store, { seed, maxValidationTurns, spillDir: spill });
      set.parts.remove();
      return { rows: rowsOf(set.parts.validation.data, set.models).sort().join('\n'), summary: set.summary };
    };
    const a = await keysOf(1);
    expect((await keysOf(1)).rows).toBe(a.rows);
    expect((await keysOf(2)).rows).not.toBe(a.rows);
    const capped = await keysOf(1, 200);
    expect(capped.summary.validationRows).toBeLessThan(400);
    expect(capped.summary.validationRows).toBeGreaterThan(0);
    expect(capped.summary.trainRows + capped.summary.validationRows).toBe(a.summary.trainRows + a.summary.validationRows);
  });

  it('refuses what SQLite refuses, in the same words', async () => {
    const runs = both.db.prepare('SELECT name FROM runs ORDER BY id').pluck().all() as string[];
    for (const options of [{ runs: ['nope'] }, { split: 'no-such-split' }, { runs: runs.filter((r) => !r.startsWith('sw-')).slice(0, 1) }]) {
      let lite = '';
      try {
        buildTrainingSet(both.db, options);
      } catch (e) {
        lite = e instanceof TrainingDataError ? e.message : String(e);
      }
      await expect(buildStoreTrainingSet(both.store, { ...options, spillDir: spill }), JSON.stringify(options)).rejects.toThrow(lite);
    }
    expect(readdirSync(spill)).toEqual([]);
  });

  const simulatedRuns = () => (both.db.prepare("SELECT name FROM runs WHERE name LIKE 'sw-%' ORDER BY id").pluck().all() as string[]);

  it('trains from the store: card, ONNX file, decision quality on the held-out turns, no registration, no part files left', async () => {
    const out = join(both.dir, 'from-store.onnx');
    const truthPath = both.files[0]!.replace(/\.jsonl$/, '.truth.json');
    expect(existsSync(truthPath)).toBe(true);
    const stages = new Set<string>();
    const trained = await trainToFile(
      { store: parseStoreUrl(both.cluster.url('routelens')), out, maxEpochs: 3, seed: 4, partTurns: 400, spillDir: spill, truthPath, runs: simulatedRuns() },
      (p) => stages.add(p.phase),
    );
    expect(trained.estimatorId).toBeNull();
    expect([...stages]).toEqual(['dataset', 'training', 'exporting', 'evaluating']);
    const card = JSON.parse(readFileSync(trained.cardPath, 'utf8'));
    expect(card.data.database).toMatch(/^clickhouse:\/\//);
    expect(card.data.database).not.toContain('password');
    expect(card.metrics.epochs).toBe(3);
    expect(card.metrics.val_mae).toBeGreaterThan(0);
    expect(card.metrics.val_mae).toBeLessThan(card.metrics.baseline_mae);
    expect(card.decision_quality.turns).toBe(card.data.validation_rows);
    expect(existsSync(out)).toBe(true);
    expect(readdirSync(spill)).toEqual([]);
  });
});
