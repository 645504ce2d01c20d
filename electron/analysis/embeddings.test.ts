// Embeddings on a simulated database scored by a real estimator trained on it (one epoch: the maps need a
// real ONNX graph and real sketches, not a good model).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { figureCsv, figureScene } from '../../shared/charts/figures.ts';
import { chartTheme } from '../../shared/charts/theme.ts';
import type { Mark } from '../../shared/charts/scene.ts';
import type { Db } from '../db/dbHandle.ts';
import { scoreDatabase } from '../estimator/scoreDatabase.ts';
import { simulatedDb } from '../estimator/simulatedDb.testSupport.ts';
import { trainToFile } from '../estimator/trainPipeline.ts';
import { useSuiteTempDir } from '../testing/tmp.ts';
import { calibrationAnalysis } from './calibration.ts';
import { embeddingsAnalysis } from './embeddings.ts';
import { runAnalysis } from './runAnalysis.ts';
import { tsne } from './tsne.ts';

const tempDir = useSuiteTempDir();
let db: Db;
let dir: string;
let dbPath: string;
let estimatorId: number;
let onnx: string;
let cardModels: string[];

beforeAll(async () => {
  dir = tempDir();
  const sim = await simulatedDb(dir, 'scienceworld', 24, 3);
  db = sim.db;
  dbPath = sim.path;
  onnx = join(dir, 'tiny.onnx');
  const trained = await trainToFile({ dbPath: sim.path, out: onnx, maxEpochs: 1, seed: 1, runs: ['sw-mtrouter'] });
  const scored = await scoreDatabase(sim.path, onnx, { ep: 'cpu' });
  expect(scored.estimatorId).toBe(trained.estimatorId);
  estimatorId = scored.estimatorId;
  cardModels = trained.card.models;
}, 240_000);

describe('embeddings', () => {
  it('maps z_a of every candidate model with its price tier, and a seeded sample of histories linked to their turns', async () => {
    const r = await embeddingsAnalysis(db, { sample: 200, seed: 4 });
    expect(r.estimator).toMatchObject({ id: estimatorId, source: 'database' });
    expect(r.note).toBeNull();
    // One point per candidate of the estimator, in its order, with the tier models/pool.json gives.
    expect(r.models.points.map((p) => p.model)).toEqual(cardModels);
    expect(cardModels).toEqual(expect.arrayContaining(['gpt-5', 'minimax-m2', 'gpt-oss-120b']));
    const tier = Object.fromEntries(r.models.points.map((p) => [p.model, p.tier]));
    expect(tier['gpt-5']).toBe('premium');
    expect(tier['minimax-m2']).toBe('mid');
    expect(tier['gpt-oss-120b']).toBe('budget');
    expect(r.models.points.every((p) => Number.isFinite(p.x) && Number.isFinite(p.y))).toBe(true);
    expect(r.models.points.reduce((a, p) => a + p.turns, 0)).toBeGreaterThan(0);

    const turns = db.prepare('SELECT COUNT(*) FROM turns').pluck().get() as number;
    expect(r.histories.sketched).toBe(turns);
    expect(r.histories.points).toHaveLength(200);
    // Every point is a real turn of its episode, logged on the model it names.
    const check = db.prepare('SELECT m.name FROM turns t JOIN models m ON m.id = t.model_id JOIN episodes e ON e.id = t.episode_id WHERE e.id = ? AND e.ext_id = ? AND t.t = ?').pluck();
    for (const p of r.histories.points.slice(0, 50)) expect(check.get(p.episode_id, p.episode, p.turn)).toBe(p.model);
    // Turns of one episode share their task and earlier turns: in the map a point's nearest neighbour is
    // mostly a turn of the same episode (chance would be about 1 in 24).
    const pts = r.histories.points;
    let same = 0;
    for (const p of pts) {
      let best: (typeof pts)[number] | null = null;
      let bestD = Infinity;
      for (const q of pts) {
        if (q === p) continue;
        const d = (p.x - q.x) ** 2 + (p.y - q.y) ** 2;
        if (d < bestD) [best, bestD] = [q, d];
      }
      if (best?.episode_id === p.episode_id) same++;
    }
    expect(same / pts.length).toBeGreaterThan(0.5);
  }, 120_000);

  it('is deterministic per seed, reuses the history map, and differs with another seed', async () => {
    let calls = 0;
    const project = (x: Float32Array, n: number, d: number, seed: number) => {
      calls++;
      return tsne(x, n, d, { seed });
    };
    const a = await embeddingsAnalysis(db, { sample: 120, seed: 8, project });
    expect(calls).toBe(2);
    const b = await embeddingsAnalysis(db, { sample: 120, seed: 8, color: 'outcome', project });
    // The models are projected again (cheap); the histories come from the cache.
    expect(calls).toBe(3);
    expect(b.histories.points).toEqual(a.histories.points);
    expect(b.models.points).toEqual(a.models.points);
    expect(b.histories.color).toBe('outcome');
    const c = await embeddingsAnalysis(db, { sample: 120, seed: 9 });
    expect(c.histories.points.map((p) => p.x)).not.toEqual(a.histories.points.map((p) => p.x));
  }, 120_000);

  it('routelens analyze embeddings --json prints the same maps', async () => {
    const bin = fileURLToPath(new URL('../../bin/routelens.mjs', import.meta.url));
    const r = spawnSync(process.execPath, [bin, 'analyze', 'embeddings', '--db', dbPath, '--sample', '40', '--seed', '2', '--color', 'outcome', '--json'], { encoding: 'utf8', timeout: 60_000 });
    expect(r.status, r.stderr).toBe(0);
    const inProcess = await embeddingsAnalysis(db, { sample: 40, seed: 2, color: 'outcome' });
    expect(JSON.parse(r.stdout)).toEqual(JSON.parse(JSON.stringify(inProcess)));
    const bad = spawnSync(process.execPath, [bin, 'analyze', 'embeddings', '--db', dbPath, '--sample', '5000'], { encoding: 'utf8', timeout: 60_000 });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/--sample must be a whole number from 0 to 2000/);
  }, 60_000);

  it('calibration of the same estimator flags the run it was trained on (its card names this database)', () => {
    const r = calibrationAnalysis(db, { runs: ['sw-mtrouter', 'sw-random'] });
    expect(r.estimator?.id).toBe(estimatorId);
    expect(Object.fromEntries(r.runs.map((g) => [g.run, g.in_training]))).toEqual({ 'sw-mtrouter': true, 'sw-random': false });
    expect(r.overall.n).toBe(r.runs.reduce((a, g) => a + g.n, 0));
    expect(r.overall.n).toBeGreaterThan(50);
    expect(r.overall.mae).toBeGreaterThan(0);
  });

  it('filters by run, falls back to a shipped model, and says what to do without sketches', async () => {
    const r = await embeddingsAnalysis(db, { runs: ['sw-random'], sample: 50 });
    expect(new Set(r.histories.points.map((p) => p.run))).toEqual(new Set(['sw-random']));
    db.prepare('DELETE FROM history_sketches').run();
    const empty = await embeddingsAnalysis(db, { sample: 50, defaultModelPath: join(dir, 'missing.onnx') });
    expect(empty.histories.points).toHaveLength(0);
    expect(empty.note).toMatch(/routelens score --db \S+sim\.db/);
    db.prepare('UPDATE estimators SET onnx_path = NULL').run();
    const shipped = await embeddingsAnalysis(db, { sample: 0, defaultModelPath: onnx });
    expect(shipped.estimator).toEqual({ id: null, name: 'default estimator (models/)', source: 'default' });
    expect(shipped.models.points.length).toBeGreaterThanOrEqual(3);
    const none = await embeddingsAnalysis(db, { sample: 0, defaultModelPath: join(dir, 'missing.onnx') });
    expect(none.estimator).toBeNull();
    expect(none.note).toMatch(/train one/);
    await expect(embeddingsAnalysis(db, { estimator: 999 })).rejects.toThrow(/no estimator with id 999/);
    db.prepare('UPDATE estimators SET onnx_path = ?').run(onnx);
  }, 120_000);

  it('draws both maps: model points by tier with a link to their episodes, history points that open their turn', async () => {
    const response = await runAnalysis(db, { id: 'embeddings', sample: 0 });
    for (const theme of ['light', 'dark'] as const) {
      const scene = figureScene(response, { theme: chartTheme(theme), width: 900, modelColor: () => '#0072B2' });
      const flat = (ms: Mark[]): Mark[] => ms.flatMap((m) => (m.type === 'group' ? flat(m.marks) : [m]));
      const models = flat(scene.marks).filter((m) => m.role === 'model-point');
      expect(models.length).toBeGreaterThanOrEqual(3);
      expect(models[0]!.datum?.link).toMatchObject({ kind: 'episodes' });
      expect(models.every((m) => m.datum?.lines.some((l) => /^n = [\d,]+ turns/.test(l)))).toBe(true);
      expect(flat(scene.marks).every((m) => m.type !== 'circle' || (m.cx >= 0 && m.cx <= 900 && m.cy >= 0 && m.cy <= scene.height))).toBe(true);
    }
    expect(figureCsv(response).split('\r\n')[0]).toBe('series,x,y,model,tier,turns,price_in_per_m,price_out_per_m,run,episode,turn,outcome,success');
  }, 120_000);
});
