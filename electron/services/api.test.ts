import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiContract, API_NAMES, type RouteLensApi } from '../../shared/api.ts';
import { openDatabase } from '../db/database.ts';
import { importPaths } from '../importers/pipeline.ts';
import { useSuiteTempDir } from '../testing/tmp.ts';
import { createApi, openApiDatabase } from './api.ts';
import { dispatch } from './dispatch.ts';

const example = fileURLToPath(new URL('../../fixtures/canonical/example.jsonl', import.meta.url));
const tempDir = useSuiteTempDir();
let api: RouteLensApi;

beforeAll(async () => {
  // As serve and the window run it: the import closed, the API reading through a read-only connection.
  const path = join(tempDir(), 'api.db');
  const db = openDatabase(path);
  await importPaths(db, [example]);
  db.close();
  api = createApi(openApiDatabase(path), path);
});

async function call(name: string, payload: unknown) {
  const result = await dispatch(api, name, payload);
  if (result.ok && name in apiContract) {
    // Every output must satisfy its contract schema: this is what the transports promise the UI.
    apiContract[name as keyof typeof apiContract].output.parse(result.value);
  }
  return result;
}

describe('API contract through dispatch', () => {
  it('answers every call in the contract with output that matches its schema', async () => {
    const inputs: Record<string, unknown> = {
      dbInfo: {}, listRuns: {}, listModels: {}, queryEpisodes: {}, getEpisode: { ext_id: 'handworked' }, getTurns: { id: 1, from: 0, count: 5 },
      startImport: { files: [{ path: 'empty.jsonl', data_base64: '' }] }, importStatus: { job: 1 },
      replay: { policies: ['logged', 'cheapest', 'random:3'], bootstrap: 20 },
      policyDiff: { kind: 'policies', a: 'logged', b: 'cheapest', bootstrap: 20 },
      episodePolicyChoices: { episode: 1, policies: ['logged', 'cheapest'] },
      runAnalysis: { id: 'lift', minN: 1 }, exportFigure: { request: { id: 'pareto' }, format: 'svg' },
      listEstimators: {}, startEstimatorJob: { kind: 'score', ep: 'cpu' }, estimatorJobStatus: { job: 1 }, cancelEstimatorJob: { job: 1 },
      whatIf: { episodeId: 1, turn: 0 }, setEstimatorInUse: { default: true }, renameEstimator: { estimatorId: 1, name: 'ScienceWorld, simulated' },
      compare: { a: { runIds: [1] }, b: { runIds: [2] }, bootstrap: 20, counterfactual_model: 'gpt-5' },
      exportCompareFigure: { request: { a: { runIds: [1] }, b: { runIds: [2] }, bootstrap: 20 }, figure: 'model-cost', format: 'pdf' },
      exportFrontierFigure: {
        figure: { estimator: 'DR', policies: [{ policy: 'logged', cost: 0.02, score: 0.6, ci: [0.5, 0.7], color: '#44AABB' }, { policy: 'cheapest', cost: null, score: null, ci: null, color: '#BB6655', missing: 'no price' }] },
        runs: ['run-a'], format: 'pdf',
      },
      shareCase: { episode: 1 },
      liveSessions: {}, followedFolders: {}, followFolders: { paths: [tempDir()] }, unfollowFolder: { path: tempDir() },
      alertRules: {}, setAlertRule: { rule: 'model ~ Opus streak > 20' }, removeAlertRule: { rule: 'model~opus streak>20' }, alerts: {},
    };
    for (const name of API_NAMES) {
      const r = await call(name, inputs[name]);
      expect(r.ok, JSON.stringify(r)).toBe(true);
    }
  });

  it('rejects unknown calls and invalid payloads as input errors', async () => {
    expect(await call('dropTables', {})).toMatchObject({ ok: false, error: { kind: 'input' } });
    expect(await call('queryEpisodes', { limit: -1 })).toMatchObject({ ok: false, error: { kind: 'input', message: /limit/ } });
    expect(await call('queryEpisodes', { sort: 'password' })).toMatchObject({ ok: false, error: { kind: 'input' } });
    expect(await call('getEpisode', { id: 'x' })).toMatchObject({ ok: false, error: { kind: 'input' } });
  });

  it('renames an estimator, refusing an empty or invisible name and an unknown id', async () => {
    await call('setEstimatorInUse', { default: true });
    const id = (await api.listEstimators({})).estimators[0]?.id as number;
    const renamed = await call('renameEstimator', { estimatorId: id, name: '  SWE only (v2)  ' });
    expect(renamed.ok).toBe(true);
    expect((await api.listEstimators({})).estimators.find((e) => e.id === id)?.name).toBe('SWE only (v2)');
    expect(await call('renameEstimator', { estimatorId: id, name: '   ' })).toMatchObject({ ok: false, error: { kind: 'input' } });
    expect(await call('renameEstimator', { estimatorId: id, name: 'a\u202Eb' })).toMatchObject({ ok: false, error: { kind: 'input' } });
    expect(await call('renameEstimator', { estimatorId: 99999, name: 'x' })).toMatchObject({ ok: false, error: { kind: 'not_found' } });
  });

  it('alert rules: saved in their canonical spelling through the write queue; a wrong rule is an input error with the parser message', async () => {
    expect(await call('setAlertRule', { rule: 'rate > 5/h' })).toMatchObject({ ok: true, value: [{ rule: 'rate>5/h', enabled: true, error: null }] });
    expect(await call('setAlertRule', { rule: 'rate>5/h', enabled: false })).toMatchObject({ ok: true, value: [{ rule: 'rate>5/h', enabled: false }] });
    expect(await call('setAlertRule', { rule: 'rate>5/x' })).toEqual({
      ok: false, error: { kind: 'input', message: 'setAlertRule: rule "rate>5/x": column 8: expected a time unit after "/" (m, h or d), found "x"' },
    });
    expect(await call('removeAlertRule', { rule: 'rate > 5/h' })).toEqual({ ok: true, value: [] });
    expect(await call('removeAlertRule', { rule: 'rate>5/h' })).toMatchObject({ ok: false, error: { kind: 'not_found' } });
  });

  it('says not_found for an episode that does not exist', async () => {
    expect(await call('getEpisode', { id: 999999 })).toMatchObject({ ok: false, error: { kind: 'not_found' } });
    expect(await call('getEpisode', { ext_id: 'nope' })).toMatchObject({ ok: false, error: { kind: 'not_found' } });
  });
});

describe('queries', () => {
  it('summarises runs', async () => {
    const runs = await api.listRuns({});
    expect(runs.map((r) => [r.name, r.episodes, r.turns])).toEqual([
      ['hle-router-demo', 7, 51],
      ['sw-router-demo', 6, 56],
    ]);
    const hle = runs[0];
    expect(hle?.priced_turns).toBe(41); // every hle turn but the 10 hand-worked ones, which log their cost
  });

  it('filters, sorts and pages episodes', async () => {
    const all = await api.queryEpisodes({ sort: 'n_turns', desc: true, limit: 5 });
    expect(all.total).toBe(13);
    expect(all.rows).toHaveLength(5);
    const turns = all.rows.map((r) => r.n_turns);
    expect([...turns].sort((a, b) => b - a)).toEqual(turns);
    const page2 = await api.queryEpisodes({ sort: 'n_turns', desc: true, limit: 5, offset: 5 });
    expect(page2.rows.map((r) => r.id)).not.toContain(all.rows[0]?.id);
    const ok = await api.queryEpisodes({ outcome: 'success' });
    expect(ok.rows.every((r) => r.success === true)).toBe(true);
    const withKimi = await api.queryEpisodes({ models: ['kimi-k2'], limit: 100 });
    expect(withKimi.rows.every((r) => r.models.includes('kimi-k2'))).toBe(true);
    // By the log's id, exactly: not the ids that contain it, not another case.
    expect((await api.queryEpisodes({ ext_id: 'hle_000' })).rows.map((r) => r.ext_id)).toEqual(['hle_000']);
    expect((await api.queryEpisodes({ ext_id: 'hle_00' })).total).toBe(0);
    expect((await api.queryEpisodes({ ext_id: 'HLE_000' })).total).toBe(0);
  });

  it('searches actions and observations with full-text search, safely', async () => {
    const hits = await api.queryEpisodes({ search: 'NameError', limit: 100 });
    expect(hits.total).toBeGreaterThan(0);
    for (const row of hits.rows) {
      const ep = await api.getEpisode({ id: row.id });
      expect(ep.turns.some((t) => t.observation?.includes('NameError'))).toBe(true);
    }
    // FTS operators and quotes in user text are not syntax errors.
    expect((await api.queryEpisodes({ search: '"unbalanced AND OR NEAR(' })).total).toBeGreaterThanOrEqual(0);
    expect((await api.queryEpisodes({ search: 'handwork' })).rows.map((r) => r.ext_id)).toContain('handworked');
  });

  it('returns an episode with its turns, errors and targets', async () => {
    const ep = await api.getEpisode({ ext_id: 'handworked', run: 'hle-router-demo' });
    expect(ep.episode.expected_steps).toBe(10);
    expect(ep.turns).toHaveLength(10);
    expect(ep.turns[1]?.errors).toEqual([{ type: 'python_traceback', severity: 'high', source: 'log' }]);
    expect(ep.turns[4]?.max_severity).toBe('medium');
    expect(ep.turns.map((t) => t.s_tilde)).toEqual(
      [0.758, 0.758, 0.788, 0.788, 0.788, 0.84, 0.84, 0.84, 0.84, 0.86].map((x) => expect.closeTo(x, 10)),
    );
    expect(ep.turns[9]?.cumulative_cost).toBeCloseTo(0.055, 12);
    expect(ep.turns.filter((t) => t.switched).map((t) => t.t)).toEqual([2, 5, 7]);
  });

  it('reads back every message: those before each turn and those after the last, in order, with role and time', async () => {
    // Messages of the real Claude Code session vct-claude_code.jsonl (fixtures/samples/canonical/PROVENANCE-messages.md).
    const path = join(tempDir(), 'messages.db');
    const db = openDatabase(path);
    await importPaths(db, [fileURLToPath(new URL('../../fixtures/samples/canonical/messages.jsonl', import.meta.url))]);
    db.close();
    const own = createApi(openApiDatabase(path), path);
    const result = await dispatch(own, 'getEpisode', { ext_id: 'e9f146fa-3b20-48d0-9be4-d99ca901cae4' });
    if (!result.ok) throw new Error(JSON.stringify(result));
    const ep = apiContract.getEpisode.output.parse(result.value);
    expect(ep.turns.map((t) => t.inputs.map((m) => m.role))).toEqual([[], ['system', 'user'], ['system', 'user', 'system', 'user'], ['system', 'user'], []]);
    expect(ep.turns[1]?.inputs[1]).toEqual({ role: 'user', text: 'toolchain不用保留吧?', timestamp: '2025-08-28T12:58:18.216Z' });
    expect(ep.turns[3]?.inputs[1]?.text).toBe('不對 幫我查一下pydantic文檔的Field用法 整理成markdown保存');
    expect(ep.final_messages.map((m) => m.role)).toEqual(['system', 'user', 'system']);
    expect(ep.final_messages[1]?.text).toMatch(/^<command-name>\/exit<\/command-name>/);
  });
});
