// MTRouter conformance (issue 14): the trajectories in fixtures/mtrouter/ are in the authors' saved format, and
// every turn's S̃ in expected.json was worked by hand from their rules and checked against their own parser.py
// (fixtures/mtrouter/README.md). Nothing here is derived from RouteLens: importing them must give those targets
// to 1e-9, training must run on them with those targets, and replay must weigh by their logged propensities.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runAnalysis } from '../analysis/runAnalysis.ts';
import { openDatabase } from '../db/database.ts';
import type { Db } from '../db/dbHandle.ts';
import { ModelResolver } from '../db/models.ts';
import { buildTrainingSet } from '../estimator/dataset.ts';
import { trainToFile } from '../estimator/trainPipeline.ts';
import { loadReplayData } from '../replay/replayData.ts';
import { replayPolicies } from '../replay/replayRun.ts';
import { useSuiteTempDir } from '../testing/tmp.ts';
import { importPaths, type FileResult } from './pipeline.ts';

const TOLERANCE = 1e-9;
const root = fileURLToPath(new URL('../../fixtures/mtrouter/', import.meta.url));

const Turn = z.object({
  t: z.number().int(),
  model: z.string(),
  propensity: z.number().nullable(),
  errors: z.array(z.string()),
  severity: z.enum(['low', 'medium', 'high']).nullable(),
  penalty: z.number(),
  s_tilde: z.number(),
});
const Episode = z.object({
  file: z.string(),
  benchmark: z.string(),
  category: z.string().nullable(),
  expected_steps: z.number().int(),
  score: z.number(),
  score_range: z.tuple([z.number(), z.number()]),
  score_norm: z.number(),
  turns: z.array(Turn),
});
const Expected = z.object({
  episodes: z.array(Episode),
  replay: z.object({ policy: z.string(), action_space: z.number().int(), episodes: z.number().int(), ips: z.number(), wis: z.number() }),
});
type Episode = z.infer<typeof Episode>;
const expected = Expected.parse(JSON.parse(readFileSync(join(root, 'expected.json'), 'utf8')));
const SEVERITY_LEVEL = { low: 1, medium: 2, high: 3 } as const;

interface Imported {
  file: FileResult | undefined;
  episodes: { id: number; ext_id: string; run: string }[];
}

const tempDir = useSuiteTempDir();
let dbPath: string;
let db: Db;
const imported = new Map<string, Imported>();

// One file at a time, so each fixture's episode is known without relying on how the importer names it.
beforeAll(async () => {
  dbPath = join(tempDir(), 'mtrouter.db');
  db = openDatabase(dbPath);
  for (const ep of expected.episodes) {
    const before = db.prepare('SELECT COALESCE(MAX(id), 0) FROM episodes').pluck().get() as number;
    const report = await importPaths(db, [join(root, ep.file)]);
    const episodes = db
      .prepare('SELECT e.id, e.ext_id, r.name AS run FROM episodes e JOIN runs r ON r.id = e.run_id WHERE e.id > ? ORDER BY e.id')
      .all(before) as Imported['episodes'];
    imported.set(ep.file, { file: report.files[0], episodes });
  }
}, 60_000);

function episodeOf(ep: Episode): { id: number; ext_id: string; run: string } {
  const hit = imported.get(ep.file);
  expect(hit?.file?.status, hit?.file?.reason).toBe('imported');
  expect(hit?.episodes).toHaveLength(1);
  return hit!.episodes[0]!;
}

const turnRows = (episodeId: number): { id: number; t: number; model: string; propensity: number | null; max_severity: number }[] =>
  db
    .prepare('SELECT t.id, t.t, m.name AS model, t.propensity, t.max_severity FROM turns t JOIN models m ON m.id = t.model_id WHERE t.episode_id = ? ORDER BY t.t')
    .all(episodeId) as { id: number; t: number; model: string; propensity: number | null; max_severity: number }[];

describe('MTRouter reference fixtures: import', () => {
  it.each(expected.episodes.map((ep) => [ep.file, ep] as const))('%s: one episode, its turns, models and score', (_, ep) => {
    const { id } = episodeOf(ep);
    const resolver = new ModelResolver(db);
    const rows = turnRows(id);
    expect(rows.map((r) => r.t)).toEqual(ep.turns.map((t) => t.t));
    expect(rows.map((r) => r.model)).toEqual(ep.turns.map((t) => resolver.resolve(t.model).name));
    const scoreNorm = db.prepare('SELECT score_norm FROM episodes WHERE id = ?').pluck().get(id) as number | null;
    expect(scoreNorm, 'score_norm').not.toBeNull();
    expect(Math.abs((scoreNorm as number) - ep.score_norm)).toBeLessThan(TOLERANCE);
  });

  it('imports the file with a -Infinity q-value and keeps the learned router\'s finite candidate scores', () => {
    const ep = expected.episodes.find((e) => e.file.includes('learned_pool7'))!;
    const { id } = episodeOf(ep);
    const raw = JSON.parse(readFileSync(join(root, ep.file), 'utf8').replace(/-Infinity/g, 'null')) as {
      messages: { role: string; router_info?: { q_values: (number | null)[]; model_pool: string[] } }[];
    };
    const logged = raw.messages.filter((m) => m.role === 'assistant').map((m) => m.router_info!);
    const resolver = new ModelResolver(db);
    const stored = db
      .prepare('SELECT t.t, m.name AS model, c.logged_score AS score FROM turn_candidates c JOIN turns t ON t.id = c.turn_id JOIN models m ON m.id = c.model_id WHERE t.episode_id = ? ORDER BY t.t, m.name')
      .all(id) as { t: number; model: string; score: number }[];
    const want = logged.flatMap((info, t) =>
      info.model_pool.flatMap((model, k) => (info.q_values[k] === null ? [] : [{ t, model: resolver.resolve(model).name, score: info.q_values[k] as number }])),
    );
    const byKey = (r: { t: number; model: string }): string => `${r.t}:${r.model}`;
    expect(stored.filter((r) => Number.isFinite(r.score)).sort((a, b) => byKey(a).localeCompare(byKey(b)))).toEqual(
      want.sort((a, b) => byKey(a).localeCompare(byKey(b))),
    );
  });
});

describe('MTRouter reference fixtures: AEC targets', () => {
  it.each(expected.episodes.map((ep) => [ep.file, ep] as const))('%s: S̃ and penalty of every turn to 1e-9', async (_, ep) => {
    const { ext_id, run } = episodeOf(ep);
    const response = await runAnalysis(db, { id: 'targets', episode: ext_id, runs: [run] });
    if (response.request.id !== 'targets') throw new Error('not a targets response');
    const got = (response.result as { turns: { t: number; s_tilde: number | null; penalty: number }[] }).turns;
    expect(got.map((t) => t.t)).toEqual(ep.turns.map((t) => t.t));
    // Every differing turn at once, so a failure says which turns and by how much.
    const differing = ep.turns.flatMap((want, i) => {
      const turn = got[i]!;
      const sOk = turn.s_tilde !== null && Math.abs(turn.s_tilde - want.s_tilde) < TOLERANCE;
      const pOk = Math.abs(turn.penalty - want.penalty) < TOLERANCE;
      return sOk && pOk ? [] : [{ t: want.t, errors: want.errors, want: { s_tilde: want.s_tilde, penalty: want.penalty }, got: { s_tilde: turn.s_tilde, penalty: turn.penalty } }];
    });
    expect(differing).toEqual([]);
  });

  it.each(expected.episodes.map((ep) => [ep.file, ep] as const))('%s: the turns with an error and their max severity', (_, ep) => {
    const rows = turnRows(episodeOf(ep).id);
    expect(rows.map((r) => ({ t: r.t, max_severity: r.max_severity }))).toEqual(
      ep.turns.map((t) => ({ t: t.t, max_severity: t.severity === null ? 0 : SEVERITY_LEVEL[t.severity] })),
    );
  });
});

describe('MTRouter reference fixtures: replay uses the logged propensities', () => {
  it.each(expected.episodes.map((ep) => [ep.file, ep] as const))('%s: each turn keeps its propensity', (_, ep) => {
    const rows = turnRows(episodeOf(ep).id);
    expect(rows.map((r) => r.propensity)).toEqual(ep.turns.map((t) => t.propensity));
  });

  it('replay data carries the same propensities (NaN where the router logged none)', () => {
    const data = loadReplayData(db);
    const byTurn = new Map<number, number>();
    data.turnId.forEach((turnId, j) => byTurn.set(turnId, data.propensity[j] as number));
    const got: (number | null)[] = [];
    const want: (number | null)[] = [];
    for (const ep of expected.episodes) {
      for (const [i, row] of turnRows(episodeOf(ep).id).entries()) {
        const p = byTurn.get(row.id);
        got.push(p === undefined || Number.isNaN(p) ? null : p);
        want.push(ep.turns[i]!.propensity);
      }
    }
    expect(got).toEqual(want);
  });

  it('off-policy estimates of the uniform random policy equal the hand-worked IPS and WIS', () => {
    // The seed only draws the realised choices; the estimates use π(a|h) = 1/K.
    const [random] = replayPolicies(db, { policies: ['random:1'], bootstrap: 0 }).policies;
    expect(random?.ope, 'OPE needs the logged propensities').not.toBeNull();
    expect(random!.ope!.n).toBe(expected.replay.episodes);
    expect(Math.abs((random!.ope!.ips ?? Number.NaN) - expected.replay.ips)).toBeLessThan(TOLERANCE);
    expect(Math.abs((random!.ope!.wis ?? Number.NaN) - expected.replay.wis)).toBeLessThan(TOLERANCE);
  });
});

describe('MTRouter reference fixtures: training', () => {
  const wantByTurn = (): Map<number, number> => {
    const m = new Map<number, number>();
    for (const ep of expected.episodes) {
      for (const [i, row] of turnRows(episodeOf(ep).id).entries()) m.set(row.id, ep.turns[i]!.s_tilde);
    }
    return m;
  };

  it('the training rows are every turn, with the hand-worked S̃ as target', () => {
    const want = wantByTurn();
    const data = buildTrainingSet(db);
    expect(data.rows).toBe(want.size);
    const differing: { turn: number; want: number; got: number }[] = [];
    for (let r = 0; r < data.rows; r++) {
      const w = want.get(data.turnId[r] as number);
      const g = data.target[r] as number;
      // Targets are stored as Float32.
      if (w === undefined || Math.abs(g - w) > 1e-6) differing.push({ turn: data.turnId[r] as number, want: w ?? Number.NaN, got: g });
    }
    expect(differing).toEqual([]);
  });

  it('routelens train runs on the imported episodes and exports an estimator', async () => {
    const outcome = await trainToFile({ dbPath, out: join(tempDir(), 'mtrouter.onnx'), maxEpochs: 2, seed: 1 });
    const total = expected.episodes.reduce((n, ep) => n + ep.turns.length, 0);
    expect(outcome.card.data.train_rows + outcome.card.data.validation_rows).toBe(total);
    expect(outcome.card.data.skipped_episodes_no_outcome).toBe(0);
    expect(outcome.card.metrics.epochs).toBe(2);
    expect(Number.isFinite(outcome.card.metrics.train_mae)).toBe(true);
  }, 120_000);
});
