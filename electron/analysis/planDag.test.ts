// plan-dag on the Uno paper cases (fixtures/samples/uno) and on the simulator's planted behaviour modes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { simulateToFile } from '../../fixtures/simulator/index.ts';
import { openDatabase } from '../db/database.ts';
import { importPaths } from '../importers/pipeline.ts';
import { resolveEpisodeId } from '../services/episodeRef.ts';
import { useTempDir } from '../testing/tmp.ts';
import { planDagEpisode, planDagSummary } from './planDag.ts';

const tempDir = useTempDir();
const uno = fileURLToPath(new URL('../../fixtures/samples/uno/', import.meta.url));

describe('plan-dag', () => {
  it('gives each round of a paper case as a DAG with its mode', async () => {
    const db = openDatabase(join(tempDir(), 'u.db'));
    await importPaths(db, [join(uno, 'case1-hyperbola-decomp-repair.xml'), join(uno, 'case3-mmlu-garch-oneshot.xml')], { runName: 'paper' });
    const ids = db.prepare('SELECT id, ext_id FROM episodes ORDER BY id').all() as { id: number; ext_id: string }[];
    const [repair, oneshot] = ids.map((e) => planDagEpisode(db, e.id, e.ext_id));
    expect(repair?.mode).toBe('decomp_repair');
    expect(repair?.rounds.map((r) => r.nodes.length)).toEqual([1, 1, 1]);
    // Case 1: t2 ≺ t1 and t3 ≺ t1, t2 (edges point from the dependency to the dependant)
    expect(repair?.rounds.flatMap((r) => r.edges)).toEqual(expect.arrayContaining([['t1', 't2'], ['t1', 't3'], ['t2', 't3']]));
    expect(oneshot?.mode).toBe('oneshot');
    // Case 3: four parallel checks and an aggregator that depends on all four
    expect(oneshot?.rounds).toHaveLength(1);
    expect(oneshot?.rounds[0]?.nodes).toHaveLength(5);
    expect(oneshot?.rounds[0]?.edges).toHaveLength(4);
    expect(oneshot?.rounds[0]?.nodes[0]).toEqual({ id: 't1', model: 'gemini-2.5-flash', primitive: 'direct_answer', status: 'ok' });
  });

  it('recovers the planted behaviour-mode shares of the Uno simulator', async () => {
    const dir = tempDir();
    const out = join(dir, 'uno.jsonl');
    const { truthPath } = await simulateToFile({ preset: 'uno', episodes: 1200, seed: 5, out });
    const truth = JSON.parse(readFileSync(truthPath, 'utf8'));
    const db = openDatabase(join(dir, 'uno.db'));
    await importPaths(db, [out]);
    const run = 'uno-orchestra';
    const summary = planDagSummary(db, { runs: [run] }).runs[0];
    expect(summary?.run).toBe(run);
    // Every episode's mode matches the one the simulator drew.
    const byId = truth.uno.mode_by_episode as Record<string, string>;
    const sample = db.prepare('SELECT e.id, e.ext_id FROM episodes e JOIN runs r ON r.id = e.run_id WHERE r.name = ? LIMIT 200').all(run) as { id: number; ext_id: string }[];
    for (const e of sample) expect(planDagEpisode(db, e.id, e.ext_id).mode).toBe(byId[e.ext_id]);
    for (const [mode, p] of Object.entries(truth.uno.mode_probabilities as Record<string, number>)) {
      expect(Math.abs((summary?.mode_shares[mode] ?? 0) - p)).toBeLessThan(0.06);
    }
    expect(summary?.model_primitive.length).toBeGreaterThan(3);
    expect(resolveEpisodeId(db, { ext_id: sample[0]?.ext_id as string })).toBe(sample[0]?.id);
  }, 120_000);
});
