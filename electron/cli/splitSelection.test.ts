// `--split` restricts training, replay and the analyses to one side of MTRouter's in-domain / held-out
// comparison: a run folder of MTRouter trajectories is imported, and each consumer sees only its split.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { liftAnalysis } from '../analysis/lift.ts';
import { paretoAnalysis } from '../analysis/pareto.ts';
import { openDatabase } from '../db/database.ts';
import type { Db } from '../db/dbHandle.ts';
import { buildTrainingSet } from '../estimator/dataset.ts';
import { importPaths } from '../importers/pipeline.ts';
import { hle, learnedReply, mixedReply, observation, scienceWorld, writeTrajectory } from '../importers/mtrouterFiles.testSupport.ts';
import { replayPolicies } from '../replay/replayRun.ts';
import { AnalysisInputError, runAnalysis } from '../analysis/runAnalysis.ts';
import type { LiftResult, ParetoResult } from '../../shared/analysisResults.ts';
import { createApi } from '../services/api.ts';
import { useSuiteTempDir } from '../testing/tmp.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin', 'routelens.mjs');
const tempDir = useSuiteTempDir();
let dbPath = '';
let db: Db;

function routelens(...args: string[]) {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', cwd: root, timeout: 120_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const text = (command: string): string => `\`\`\`text\n${command}\n\`\`\``;
const call = (name: string): string => `<tool_call>{"name": "${name}", "arguments": {}}</tool_call>`;

/** ScienceWorld episodes: boil variations 1 and 5 are train, 2 val, 0 test_id; freeze is held out. */
const SW = [
  ['boil', 1, 'train'], ['boil', 5, 'train'], ['boil', 2, 'val'], ['boil', 0, 'test_id'], ['freeze', 3, 'ood_test'], ['freeze', 4, 'ood_test'],
] as const;

beforeAll(async () => {
  const run = join(tempDir(), 'sw_mixed');
  SW.forEach(([task, variation], i) => {
    writeTrajectory(run, `${task}_var${variation}_run0`, scienceWorld(task, variation, 0, i % 2 ? 100 : -20, [
      mixedReply(text('look around'), 'openai/gpt-5', 'openai/gpt-5', 0.5),
      observation('This room is called the kitchen.'),
      mixedReply(text('open door to hallway'), 'deepseek/deepseek-v3.2', 'openai/gpt-5', 0.5),
      observation('The door is now open.'),
      mixedReply(text('task completed'), 'minimax/minimax-m2', 'openai/gpt-5', 0.5),
    ]));
  });
  const hleRun = join(tempDir(), 'hle_learned');
  for (const [id, category] of [['q1', 'Math'], ['q2', 'Other'], ['q3', 'Physics']] as const) {
    writeTrajectory(hleRun, `${id}_run0`, hle(id, 0, category, id !== 'q2', [
      learnedReply(call('search'), 'deepseek/deepseek-v3.2', [0.6, 0.5, '-Infinity', 0.4, 0.3, 0.2]),
      observation('<tool_response name="search">\nresults\n</tool_response>'),
      learnedReply(call('answer'), 'openai/gpt-5', [0.5, 0.7, '-Infinity', 0.4, 0.3, 0.2]),
    ]));
  }
  dbPath = join(tempDir(), 'splits.db');
  db = openDatabase(dbPath);
  const report = await importPaths(db, [run, hleRun]);
  expect(report.files.map((f) => f.status)).toEqual(Array(9).fill('imported'));
}, 60_000);

describe('--split', () => {
  it('the import stores the splits, and the turn API shows the router record', async () => {
    const splits = db.prepare('SELECT ext_id, split FROM episodes ORDER BY ext_id').all();
    expect(splits).toEqual([
      { ext_id: 'boil_var0_run0', split: 'test_id' }, { ext_id: 'boil_var1_run0', split: 'train' },
      { ext_id: 'boil_var2_run0', split: 'val' }, { ext_id: 'boil_var5_run0', split: 'train' },
      { ext_id: 'freeze_var3_run0', split: 'ood_test' }, { ext_id: 'freeze_var4_run0', split: 'ood_test' },
      { ext_id: 'q1_run0', split: 'id' }, { ext_id: 'q2_run0', split: 'ood_test' }, { ext_id: 'q3_run0', split: 'id' },
    ]);
    const detail = await createApi(db).getEpisode({ ext_id: 'boil_var1_run0' });
    expect(detail.episode.split).toBe('train');
    expect(detail.turns.map((t) => t.router)).toEqual([
      { greedy_model: 'gpt-5', was_greedy: true, beta: 0.5 },
      { greedy_model: 'gpt-5', was_greedy: false, beta: 0.5 },
      { greedy_model: 'gpt-5', was_greedy: false, beta: 0.5 },
    ]);
    const hleTurn = (await createApi(db).getEpisode({ ext_id: 'q1_run0' })).turns[0];
    expect(hleTurn?.router).toBeNull();
    expect(Object.keys(hleTurn?.candidates ?? {})).toHaveLength(5);
  });

  it('analyses count only the selected split; a group selects its members; an empty split is an error', () => {
    const turns = (split?: string): number => liftAnalysis(db, { split, minCount: 1, bootstrap: 0 }).cells.reduce((a, c) => a + c.n, 0);
    expect(turns()).toBe(6 * 3 + 3 * 2);
    expect(turns('ood')).toBe(2 * 3 + 2);
    expect(turns('train')).toBe(2 * 3);
    expect(turns('id')).toBe(4 * 3 + 2 * 2);
    expect(turns('train,val')).toBe(3 * 3);
    expect(paretoAnalysis(db, { split: 'test_id' }).points.map((p) => [p.run, p.n])).toEqual([['sw_mixed', 1]]);
    expect(() => liftAnalysis(db, { split: 'test' })).toThrow(/no episode is in split "test" \(splits here: test_id, train, val, ood_test, id\)/);
    expect(() => liftAnalysis(db, { split: "x'; DROP TABLE runs" })).toThrow(RangeError);
  });

  it('the shared analysis request (API, window, export) takes a split too', async () => {
    const pareto = async (split?: string) => {
      const r = await runAnalysis(db, { id: 'pareto', split });
      return (r.result as ParetoResult).points.map((p) => [p.run, p.n]).sort();
    };
    expect(await pareto()).toEqual([['hle_learned', 3], ['sw_mixed', 6]]);
    expect(await pareto('ood')).toEqual([['hle_learned', 1], ['sw_mixed', 2]]);
    expect(await pareto('test_id')).toEqual([['sw_mixed', 1]]);
    // Side-by-side panels per run are restricted the same way as the pooled result.
    const lift = await runAnalysis(db, { id: 'lift', runs: ['sw_mixed', 'hle_learned'], split: 'train', minN: 1 });
    expect((lift.result as LiftResult).cells.reduce((a, c) => a + c.n, 0)).toBe(2 * 3);
    await expect(runAnalysis(db, { id: 'pareto', split: 'a b' })).rejects.toThrow(AnalysisInputError);
    await expect(runAnalysis(db, { id: 'targets', episode: 'q1_run0', split: 'id' })).rejects.toThrow(/a split does not apply/);
  });

  it('export draws the figure of the selected split only', () => {
    const all = join(tempDir(), 'pareto-all.csv');
    const ood = join(tempDir(), 'pareto-ood.csv');
    expect(routelens('export', 'pareto', '--db', dbPath, '--out', all).code).toBe(0);
    const r = routelens('export', 'pareto', '--db', dbPath, '--split', 'ood', '--out', ood);
    expect(r.code, r.stderr).toBe(0);
    const rows = (file: string) => readFileSync(file, 'utf8').trim().split('\n').length;
    expect(rows(all)).toBeGreaterThan(1);
    expect(readFileSync(ood, 'utf8')).not.toEqual(readFileSync(all, 'utf8'));
    expect(rows(ood)).toBe(rows(all));
  }, 60_000);

  it('replay reads only the selected split', () => {
    const episodes = (split?: string): number => replayPolicies(db, { split, policies: ['logged'], bootstrap: 0 }).episodes;
    expect(episodes()).toBe(9);
    expect(episodes('ood')).toBe(3);
    expect(episodes('test_id')).toBe(1);
    expect(() => episodes('val,ood_test,nothing')).not.toThrow();
    expect(() => episodes('nothing')).toThrow(/no episode of the selected runs is in split "nothing"/);
  });

  it('training uses only the selected split', () => {
    expect(buildTrainingSet(db, { split: 'train' }).summary.episodes).toBe(2);
    expect(buildTrainingSet(db, { split: 'id' }).summary.episodes).toBe(6);
    expect(buildTrainingSet(db, { runs: ['hle_learned'], split: 'ood' }).summary.episodes).toBe(1);
    expect(() => buildTrainingSet(db, { runs: ['hle_learned'], split: 'val' })).toThrow(/no episode of the selected runs is in split "val"/);
  });

  it('the CLI takes --split on analyze, replay and train, lists splits in info, and refuses a bad name', () => {
    const info = JSON.parse(routelens('info', '--db', dbPath, '--json').stdout) as { runs: { name: string; splits: Record<string, number> }[] };
    expect(info.runs.find((r) => r.name === 'sw_mixed')?.splits).toEqual({ ood_test: 2, test_id: 1, train: 2, val: 1 });
    const lift = routelens('analyze', 'lift', '--db', dbPath, '--split', 'ood', '--min-n', '1', '--json');
    expect(lift.code, lift.stderr).toBe(0);
    expect((JSON.parse(lift.stdout) as { cells: { n: number }[] }).cells.reduce((a, c) => a + c.n, 0)).toBe(8);
    const replay = routelens('replay', '--db', dbPath, '--policy', 'logged', '--split', 'test_id', '--bootstrap', '0', '--json');
    expect(replay.code, replay.stderr).toBe(0);
    expect(JSON.parse(replay.stdout).episodes).toBe(1);
    for (const command of [['analyze', 'lift'], ['replay', '--policy', 'logged'], ['train', '--out', join(tempDir(), 'm.onnx')]]) {
      const r = routelens(...command, '--db', dbPath, '--split', 'a b');
      expect(r.code, command.join(' ')).toBe(1);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(/--split takes split names/);
    }
  }, 120_000);
});
