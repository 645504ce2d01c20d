/**
 * The window's API on a ClickHouse store (a real 2-shard cluster, test/clickhouseCluster.ts) against the same API
 * on SQLite with the same files imported: runs, models, every sort and filter of the Episodes list with paging,
 * text search and where it matched, whole episodes (subagents, errors, candidates, plans), every analysis the
 * store answers and a figure file. Ids differ by design (keys on the store); everything a user reads is equal.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../db/dbHandle.ts';
import type { ClickHouseStore } from '../store/clickhouse/schema/connection.ts';
import { clickhouseSkipReason } from '../../test/clickhouseCluster.ts';
import { sameDataOnBothStores, type BothStores } from '../../test/sameDataOnBothStores.ts';
import { EPISODE_SORT_COLUMNS, TURN_PAGE, type EpisodeDetail, type EpisodeRow, type RouteLensApi } from '../../shared/api.ts';
import { ANALYSIS_IDS, type EmbeddingsResult } from '../../shared/analysisResults.ts';
import { expectClose } from '../../test/expectClose.ts';
import { createApi } from './api.ts';
import { dispatch } from './dispatch.ts';
import { createStoreApi } from './storeApi.ts';

const skip = clickhouseSkipReason();
if (skip) console.log(skip);

/** The store keeps turn costs and normalised scores as float32, as the columnar cache does. */
const FLOAT32 = 1e-6;

/** What a user reads of a row: everything but the store-specific ids. */
function shown(row: EpisodeRow): Omit<EpisodeRow, 'id' | 'run_id'> {
  const { id: _id, run_id: _run, ...rest } = row;
  return rest;
}

function shownDetail(d: EpisodeDetail): unknown {
  return {
    episode: { ...shown(d.episode), parent: d.episode.parent && { ext_id: d.episode.parent.ext_id, t: d.episode.parent.t, found: d.episode.parent.id !== null } },
    turns: d.turns.map(({ id: _id, ...t }) => t),
    final_messages: d.final_messages,
    children: d.children.map(({ id: _id, ...c }) => c),
  };
}

/** An episode of more turns than an answer carries in full (issue 38): both stores page it alike. */
function writeLongEpisode(dir: string): string {
  const file = join(dir, 'long.jsonl');
  const turns = Array.from({ length: TURN_PAGE + 300 }, (_, t) => ({
    t,
    model: ['gpt-5', 'kimi-k2'][Math.floor(t / 9) % 2],
    action: { type: 'tool', tool: 'bash', text: `echo ${t}` },
    observation: `out ${t}`,
    cost_usd: 0.001,
    errors: t % 250 === 249 ? [{ type: 'timeout', severity: 'medium' }] : [],
  }));
  writeFileSync(file, `${JSON.stringify({ schema: 'routelens/v1', run: 'long', episode_id: 'long-1', outcome: { success: true }, turns })}\n`);
  return file;
}

/** Two whole runs of the simulated ScienceWorld data, as a compare request. */
function input2(runs: { id: number; name: string }[]) {
  const id = (name: string) => runs.filter((r) => r.name === name).map((r) => r.id);
  return { a: { runIds: id('sw-mtrouter') }, b: { runIds: id('sw-random') }, bootstrap: 300, seed: 3 };
}

describe.skipIf(skip !== null)('the API on a ClickHouse store answers as on SQLite', () => {
  let store: ClickHouseStore;
  let db: Db;
  let lite: RouteLensApi;
  let ch: RouteLensApi;
  let both: BothStores;
  const longDir = mkdtempSync(join(tmpdir(), 'routelens-long-'));

  beforeAll(async () => {
    const long = writeLongEpisode(longDir);
    both = await sameDataOnBothStores(
      [{ preset: 'scienceworld', episodes: 150, seed: 3 }, { preset: 'uno', episodes: 40, seed: 6 }],
      ['fixtures/samples/claude-code', 'fixtures/samples/swe-agent', 'fixtures/samples/mtrouter', 'fixtures/samples/mini-swe-agent',
        // The rollout, not also its unedited copy beside it: one session id, two contents, which an import refuses.
        'fixtures/samples/codex/vct-codex.jsonl', 'fixtures/samples/codex/forked',
        'fixtures/samples/canonical', 'fixtures/mtrouter/hle', 'fixtures/samples/inspect/mmlu-summary-choices.eval', long],
    );
    ({ store, db } = both);
    lite = createApi(db, ':memory:');
    ch = await createStoreApi(store);
  }, 240_000);

  afterAll(async () => {
    await both?.close();
    rmSync(longDir, { recursive: true, force: true });
  });

  it('pages a long episode as SQLite does: its outline, the page asked for and the next one', async () => {
    const ref = { ext_id: 'long-1', run: 'long' };
    const [x, y] = [await ch.getEpisode({ ...ref, around: TURN_PAGE + 5 }), await lite.getEpisode({ ...ref, around: TURN_PAGE + 5 })];
    expect({ count: x.turn_count, from: x.turns_from, length: x.turns.length }).toEqual({ count: TURN_PAGE + 300, from: TURN_PAGE, length: 300 });
    expect({ count: y.turn_count, from: y.turns_from }).toEqual({ count: x.turn_count, from: x.turns_from });
    expectClose(shownDetail(x), shownDetail(y), '$.long', FLOAT32);
    expectClose(x.outline, y.outline, '$.long.outline', FLOAT32);
    expect(x.outline?.errors.length).toBe(9);
    const [p, q] = [await ch.getTurns({ id: x.episode.id, from: 0, count: TURN_PAGE }), await lite.getTurns({ id: y.episode.id, from: 0, count: TURN_PAGE })];
    expect(p.turns).toHaveLength(TURN_PAGE);
    expectClose(p.turns.map(({ id: _id, ...t }) => t), q.turns.map(({ id: _id, ...t }) => t), '$.long.page0', FLOAT32);
  });

  it('lists the same runs with the same facts, and the same models in the same colour order', async () => {
    // A run's source path: SQLite keeps its first file's, the store the first file still visible.
    const strip = (runs: Awaited<ReturnType<RouteLensApi['listRuns']>>) => runs.map(({ id: _id, imported_at: _at, source_path: _p, ...r }) => r);
    const [a, b] = [await ch.listRuns({}), await lite.listRuns({})];
    expectClose(strip(a), strip(b));
    expect(a.every((r) => r.source_path !== null)).toBe(true);
    expect(a.every((r) => /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/.test(r.imported_at))).toBe(true);
    // The same colours too: no two models of one run alike on either store (palette.ts modelColorSlots).
    const colours = async (api: RouteLensApi) => (await api.listModels({})).map((m) => `${m.name} ${m.color_index}`);
    expect(await colours(ch)).toEqual(await colours(lite));
    const info = await ch.dbInfo({});
    const liteInfo = await lite.dbInfo({});
    expect({ runs: info.runs, turns: info.turns }).toEqual({ runs: liteInfo.runs, turns: liteInfo.turns });
    expect(info.path).toMatch(/^clickhouse:\/\//);
  });

  it('sorts every column both ways and pages the same episodes in the same order', async () => {
    for (const sort of EPISODE_SORT_COLUMNS) {
      for (const desc of [false, true]) {
        for (const offset of [0, 120]) {
          const q = { sort, desc, offset, limit: 60 };
          const [a, b] = [await ch.queryEpisodes(q), await lite.queryEpisodes(q)];
          expect(a.total, `${sort} ${desc}`).toBe(b.total);
          expect(a.rows.map((r) => `${r.run}/${r.ext_id}`), `${sort} ${desc ? 'desc' : 'asc'} from ${offset}`).toEqual(b.rows.map((r) => `${r.run}/${r.ext_id}`));
          expectClose(a.rows.map(shown), b.rows.map(shown), `$.${sort}`, FLOAT32);
        }
      }
    }
  });

  it('filters by run, model and outcome as SQLite does', async () => {
    const runsA = await ch.listRuns({});
    const runsB = await lite.listRuns({});
    const idIn = (runs: typeof runsA, names: string[]) => runs.filter((r) => names.includes(r.name)).map((r) => r.id);
    const names = runsB.slice(0, 2).map((r) => r.name);
    const models = (await lite.listModels({})).filter((m) => runsB.some((r) => r.models.includes(m.name))).slice(0, 2).map((m) => m.name);
    for (const outcome of ['any', 'success', 'failure', 'unknown'] as const) {
      for (const filter of [{}, { names }, { models }, { ext_id: 'astropy__astropy-7166' }]) {
        const qa = {
          outcome, sort: 'run' as const, limit: 5000, runIds: 'names' in filter ? idIn(runsA, names) : undefined, models: 'models' in filter ? models : undefined,
          ext_id: 'ext_id' in filter ? filter.ext_id : undefined,
        };
        const qb = { ...qa, runIds: 'names' in filter ? idIn(runsB, names) : undefined };
        const [a, b] = [await ch.queryEpisodes(qa), await lite.queryEpisodes(qb)];
        expect(a.total, `${outcome} ${JSON.stringify(filter)}`).toBe(b.total);
        expect(a.rows.map((r) => `${r.run}/${r.ext_id}`)).toEqual(b.rows.map((r) => `${r.run}/${r.ext_id}`));
        if ('ext_id' in filter && outcome === 'any') expect(a.rows.map((r) => r.ext_id)).toEqual(['astropy__astropy-7166']);
      }
    }
  });

  it('searches the turns\' text: same episodes, same first matching turn, the words marked in the snippet', async () => {
    // Words of the Claude Code sessions' messages (samples/canonical/messages.jsonl and the sessions its importer reads):
    // caveat, local-command-stdout: injected before turns and after the last one; context7: a prompt and the next turn's call.
    for (const search of ['error', 'pytest', 'Traceback', 'def test', 'ls -la', 'no_such_word_anywhere', 'sw-0', '(', 'caveat', 'local-command-stdout', 'context7']) {
      const [a, b] = [await ch.queryEpisodes({ search, sort: 'run', limit: 5000 }), await lite.queryEpisodes({ search, sort: 'run', limit: 5000 })];
      expect(a.total, search).toBe(b.total);
      expect(a.rows.map((r) => `${r.run}/${r.ext_id}`), search).toEqual(b.rows.map((r) => `${r.run}/${r.ext_id}`));
      a.rows.forEach((r, i) => {
        const m = b.rows[i]?.match;
        expect(r.match ? { t: r.match.t, index: r.match.index, turns: r.match.turns, message: r.match.message ?? null } : null, `${search} in ${r.ext_id}`).toEqual(
          m ? { t: m.t, index: m.index, turns: m.turns, message: m.message ?? null } : null,
        );
        if (r.match) {
          const marked = r.match.snippet.filter((p) => p.hit).map((p) => p.text.toLowerCase());
          expect(marked.length, `${search} marked in ${r.ext_id}`).toBeGreaterThan(0);
        }
      });
    }
  });

  it('opens every session whole: turns, text, errors, candidates, subagents and parents', async () => {
    const [a, b] = [await ch.queryEpisodes({ sort: 'run', limit: 5000 }), await lite.queryEpisodes({ sort: 'run', limit: 5000 })];
    const some = b.rows.filter((_r, i) => i % 7 === 0 || b.rows[i]?.n_errors);
    for (const row of some) {
      const mine = a.rows.find((r) => r.run === row.run && r.ext_id === row.ext_id) as EpisodeRow;
      const [x, y] = [await ch.getEpisode({ id: mine.id }), await lite.getEpisode({ id: row.id })];
      expectClose(shownDetail(x), shownDetail(y), `$.${row.ext_id}`, FLOAT32);
      // Children (subagents) open by their own id, and name their parent.
      for (const child of x.children) {
        const opened = await ch.getEpisode({ id: child.id });
        expect(opened.episode.parent?.id).toBe(mine.id);
      }
    }
    const byExt = await ch.getEpisode({ ext_id: (b.rows[0] as EpisodeRow).ext_id, run: (b.rows[0] as EpisodeRow).run });
    expect(byExt.episode.ext_id).toBe((b.rows[0] as EpisodeRow).ext_id);
    const missing = await dispatch(ch, 'getEpisode', { id: 12345 });
    expect(missing).toMatchObject({ ok: false, error: { kind: 'not_found' } });
  });

  it('explains every outcome alike: targets, answers, judges, harness tests and notes as the logs give them', async () => {
    // Every episode of the formats that explain outcomes, and a few of the others (nothing to explain: `{}` on both).
    const logs = (await lite.listRuns({})).filter((r) => ['inspect', 'mini-swe-agent', 'swe-agent'].includes(r.format)).map((r) => r.name);
    const [a, b] = [await ch.queryEpisodes({ sort: 'run', limit: 5000 }), await lite.queryEpisodes({ sort: 'run', limit: 5000 })];
    const explained: Record<string, unknown>[] = [];
    for (const row of b.rows.filter((r, i) => logs.includes(r.run) || i % 50 === 0)) {
      const mine = a.rows.find((r) => r.run === row.run && r.ext_id === row.ext_id) as EpisodeRow;
      const [x, y] = [(await ch.getEpisode({ id: mine.id })).episode.outcome, (await lite.getEpisode({ id: row.id })).episode.outcome];
      expect(x, `${row.run} ${row.ext_id}`).toEqual(y);
      if (y && Object.keys(y).length > 0) explained.push(y);
    }
    // What the samples hold to explain: HLE judges and a note, SWE-bench tests, an Inspect target with its choices.
    for (const key of ['target', 'choices', 'answer', 'scorers', 'tests', 'notes']) expect(explained.some((o) => key in o), key).toBe(true);
  });

  it('answers every analysis as SQLite does (on an unscored store the history map sketches as it samples)', async () => {
    const runs = (await lite.listRuns({})).map((r) => r.name);
    const uno = (await lite.queryEpisodes({ runIds: (await lite.listRuns({})).filter((r) => r.format === 'uno').map((r) => r.id), limit: 1 })).rows[0];
    for (const id of ANALYSIS_IDS) {
      for (const request of [{ id }, { id, runs: runs.slice(0, 3) }]) {
        const full = { ...request, ...(id === 'targets' || (id === 'plan-dag' && request.runs) ? { episode: uno?.ext_id, runs: [uno?.run as string] } : {}) };
        const [a, b] = [await dispatch(ch, 'runAnalysis', full), await dispatch(lite, 'runAnalysis', full)];
        if (id === 'embeddings') {
          // Unscored, both map the shipped default's z_a alike; the store sketches its sample as it draws it, SQLite
          // has no sketches before scoring (storeScoring.test.ts compares the sketches).
          expect(a.ok && b.ok, JSON.stringify([a, b]).slice(0, 500)).toBe(true);
          if (!a.ok || !b.ok) continue;
          const [x, y] = [a.value as { result: EmbeddingsResult }, b.value as { result: EmbeddingsResult }];
          expectClose(x.result.models, y.result.models, '$.embeddings.models', 1e-9);
          expect(x.result.histories.points.length).toBeGreaterThan(0);
          expect(y.result.histories.sketched).toBe(0);
          continue;
        }
        if (id === 'calibration') {
          // Neither store is scored here (storeScoring.test.ts compares scored ones): both say so, each its way out.
          expect(a).toMatchObject({ ok: true, value: { result: { estimator: null, reason: 'no_estimator', note: expect.stringMatching(/score --store/) } } });
          expect(b).toMatchObject({ ok: true, value: { result: { estimator: null, reason: 'no_estimator', note: expect.stringMatching(/score --db/) } } });
          continue;
        }
        expect(a.ok, `${id}: ${JSON.stringify(a)}`).toBe(true);
        expect(b.ok, `${id}: ${JSON.stringify(b)}`).toBe(true);
        if (!a.ok || !b.ok) continue;
        if (id === 'lift') {
          // The store's interval is a Poisson bootstrap (docs/scale-out.md): the cells and point lifts are equal.
          const cells = (v: unknown) => (v as { result: { cells: { model: string; category: string; n: number; lift: number }[] } }).result.cells
            .map(({ model, category, n, lift }) => ({ model, category, n, lift }));
          expectClose(cells(a.value), cells(b.value));
          continue;
        }
        expectClose(a.value, b.value, `$.${id}`, FLOAT32);
      }
    }
  });

  it('compares two sides as SQLite does: whole runs, runs split by model, split and policy; a figure file', async () => {
    const [runsA, runsB] = [await ch.listRuns({}), await lite.listRuns({})];
    const ids = (runs: typeof runsA, names: string[]) => runs.filter((r) => names.includes(r.name)).map((r) => r.id);
    const sides = [
      [{ names: ['sw-mtrouter'] }, { names: ['sw-random'] }],
      [{ names: ['sw-mtrouter', 'sw-random'], where: { field: 'model' as const, value: 'gpt-5' } }, { names: ['sw-random'], where: { field: 'model' as const, value: 'kimi-k2' } }],
      [{ names: ['claude-code/spotter'] }, { names: ['mini-swe-agent'] }],
      [{ names: runsB.filter((r) => r.name.startsWith('uno-')).map((r) => r.name), where: { field: 'policy' as const, value: 'Uno-Orchestra (simulated, softmax over worker skill)' } }, { names: ['uno-gpt-5'] }],
    ];
    for (const [a, b] of sides) {
      const input = (runs: typeof runsA) => ({
        a: { runIds: ids(runs, a!.names), where: a!.where }, b: { runIds: ids(runs, b!.names), where: b!.where }, bootstrap: 300, seed: 3,
      });
      const [x, y] = [await dispatch(ch, 'compare', input(runsA)), await dispatch(lite, 'compare', input(runsB))];
      expect(y.ok, JSON.stringify(y)).toBe(true);
      if (!x.ok || !y.ok) {
        expect(x).toEqual(y);
        continue;
      }
      const noIds = (r: unknown) => {
        const v = r as { tasks: { a_episode: unknown; b_episode: unknown }[] };
        return { ...v, tasks: v.tasks.map((t) => ({ ...t, a_episode: null, b_episode: null })) };
      };
      expectClose(noIds(x.value), noIds(y.value), `$.${a!.names.join('+')}`, FLOAT32);
    }
    const fig = await ch.exportCompareFigure({ request: input2(runsA), figure: 'paired-scatter', format: 'svg' });
    expect(Buffer.from(fig.data_base64, 'base64').toString('utf8')).toMatch(/<svg/);
    // The counterfactual streams every call of the runs and prices it as on SQLite.
    const runsLite = await lite.listRuns({});
    for (const model of ['gpt-5', 'claude-opus-4-6']) {
      const [cfA, cfB] = [await dispatch(ch, 'compare', { ...input2(runsA), counterfactual_model: model }), await dispatch(lite, 'compare', { ...input2(runsLite), counterfactual_model: model })];
      expect(cfA.ok && cfB.ok, `${JSON.stringify(cfA).slice(0, 300)} ${JSON.stringify(cfB).slice(0, 300)}`).toBe(true);
      if (cfA.ok && cfB.ok) {
        const counterfactualOf = (v: unknown) => {
          const r = v as { counterfactual: unknown; tasks: { a_counterfactual_cost?: unknown; b_counterfactual_cost?: unknown }[] };
          return { counterfactual: r.counterfactual, tasks: r.tasks.map((t) => [t.a_counterfactual_cost, t.b_counterfactual_cost]) };
        };
        expectClose(counterfactualOf(cfA.value), counterfactualOf(cfB.value), `$.counterfactual ${model}`, FLOAT32);
      }
    }
    const unknown = await dispatch(ch, 'compare', { ...input2(runsA), counterfactual_model: 'no-such-model' });
    expect(unknown).toMatchObject({ ok: false, error: { kind: 'input', message: expect.stringMatching(/no model named "no-such-model"/) } });
  });

  it('exports a figure from the store, and refuses the calls it does not answer with the way out', async () => {
    const svg = await ch.exportFigure({ request: { id: 'pareto' }, format: 'svg' });
    expect(Buffer.from(svg.data_base64, 'base64').toString('utf8')).toMatch(/<svg[\s\S]*<\/svg>/);
    expect(svg.filename).toMatch(/^pareto.*\.svg$/);
    const refused = await dispatch(ch, 'replay', { policies: ['logged'] });
    expect(refused.ok).toBe(false);
    expect(JSON.stringify(refused)).toMatch(/SQLite database.*--db/);
    expect(await ch.listEstimators({})).toMatchObject({ estimators: [], in_use: null });
  });
});
