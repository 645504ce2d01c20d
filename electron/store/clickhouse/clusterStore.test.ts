/**
 * The ClickHouse store against a real 2-shard cluster (test/clickhouseCluster.ts): the same files imported into
 * SQLite and into the cluster give the same analyses (1e-9 relative), imports are idempotent and atomic per
 * file, and sessions are split evenly over the shards with all of an episode's turns on one shard.
 */
import { writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../db/dbHandle.ts';
import { paretoAnalysis } from '../../analysis/pareto.ts';
import { switchCostAnalysis } from '../../analysis/switchCost.ts';
import { errorRecoveryAnalysis } from '../../analysis/errorRecovery.ts';
import { usageByTurnAnalysis } from '../../analysis/usageByTurn.ts';
import { episodeTargets } from '../../analysis/targets.ts';
import { liftAnalysis } from '../../analysis/lift.ts';
import { planDagEpisode, planDagSummary } from '../../analysis/planDag.ts';
import { budgetModesAnalysis, confusionAnalysis, usageRatioAnalysis } from '../../analysis/controllerAnalyses.ts';
import { paretoTaskTypes, runWeights } from '../../analysis/drawnRunsOf.ts';
import type { RunWeight } from '../../../shared/drawnRuns.ts';
import { clickhouseSkipReason, type TestCluster } from '../../../test/clickhouseCluster.ts';
import { sameDataOnBothStores, type BothStores } from '../../../test/sameDataOnBothStores.ts';
import { expectClose } from '../../../test/expectClose.ts';
import { parseStoreUrl } from '../storeUrl.ts';
import { ClickHouseStore } from './schema/connection.ts';
import { STORE_SCHEMA_VERSION, initStore, visibleImports } from './schema/schema.ts';
import { importToStore, newImportId } from './import/importToStore.ts';
import { cleanStore } from './schema/cleanStore.ts';
import {
  budgetModesOnStore, confusionOnStore, errorRecoveryOnStore, liftOnStore, paretoOnStore, paretoTaskTypesOnStore, planDagEpisodeOnStore, planDagSummaryOnStore, runWeightsOnStore,
  switchCostOnStore, targetsOnStore, usageByTurnOnStore, usageRatioOnStore,
} from './queries/storeAnalyses.ts';

const skip = clickhouseSkipReason();
if (skip) console.log(skip);

describe.skipIf(skip !== null)('ClickHouse store on a 2-shard cluster', () => {
  let cluster: TestCluster;
  let store: ClickHouseStore;
  let db: Db;
  let dir: string;
  let files: string[];

  let both: BothStores;

  beforeAll(async () => {
    // Real logs: subagents folded into their session (Claude Code), a total-only cost (SWE-agent), splits (MTRouter).
    both = await sameDataOnBothStores(
      [{ preset: 'scienceworld', episodes: 400, seed: 3 }, { preset: 'critique', episodes: 150, seed: 4 }, { preset: 'corl', episodes: 150, seed: 5 }, { preset: 'uno', episodes: 80, seed: 6 }],
      ['fixtures/samples/uno', 'fixtures/samples/claude-code', 'fixtures/samples/swe-agent', 'fixtures/samples/mtrouter'],
    );
    ({ cluster, store, db, dir, files } = both);
  }, 240_000);

  afterAll(async () => {
    await both?.close();
  });

  const selections = (): { runs?: string[]; split?: string }[] => {
    const runs = (db.prepare('SELECT name FROM runs ORDER BY name').pluck().all() as string[]);
    const splits = db.prepare('SELECT DISTINCT split FROM episodes WHERE split IS NOT NULL').pluck().all() as string[];
    return [{}, ...runs.map((r) => ({ runs: [r] })), { runs: runs.slice(0, 3) }, ...splits.map((s) => ({ split: s }))];
  };

  it('every run, episode and turn of SQLite is in the cluster, sessions spread over both shards', async () => {
    const [sqlite] = db.prepare('SELECT (SELECT COUNT(*) FROM episodes) AS e, (SELECT COUNT(*) FROM turns) AS t').all() as { e: number; t: number }[];
    const [ch] = await store.query<{ e: string; t: string }>(`SELECT (SELECT count() FROM routelens.episodes) AS e, (SELECT count() FROM routelens.turns) AS t`);
    expect({ e: Number(ch?.e), t: Number(ch?.t) }).toEqual(sqlite);
    const perShard = await Promise.all(store.nodes.map(async (n) => Number(((await (await n.query({ query: 'SELECT count() AS n FROM routelens.turns_local', format: 'JSONEachRow' })).json()) as { n: string }[])[0]?.n)));
    expect(perShard[0]).toBeGreaterThan(0.35 * (sqlite?.t ?? 0));
    expect(perShard[1]).toBeGreaterThan(0.35 * (sqlite?.t ?? 0));
    // An episode's turns, and its subagents', are on one shard: the shard the sharding key names.
    const roots = await Promise.all(store.nodes.map(async (n) =>
      ((await (await n.query({ query: 'SELECT DISTINCT root_key AS k FROM routelens.turns_local', format: 'JSONEachRow' })).json()) as { k: string }[]).map((r) => Number(r.k))));
    roots.forEach((keys, shard) => expect(keys.every((k) => k % 2 === shard)).toBe(true));
    const [children] = await store.query<{ n: string }>('SELECT count() AS n FROM routelens.turns WHERE is_child = 1');
    expect(Number(children?.n)).toBeGreaterThan(0);
  });

  it('every pushed-down analysis answers as on SQLite, for every selection', async () => {
    const all = selections();
    expect(all.filter((s) => s.split).length).toBeGreaterThan(0);
    expect(paretoAnalysis(db).points.length).toBeGreaterThan(4);
    expect(switchCostAnalysis(db).runs.some((r) => r.episodes.length > 20)).toBe(true);
    for (const sel of all) {
      expectClose(await paretoOnStore(store, sel), paretoAnalysis(db, sel), `pareto ${JSON.stringify(sel)}`);
      expectClose(await switchCostOnStore(store, sel), switchCostAnalysis(db, sel), `switch-cost ${JSON.stringify(sel)}`);
      expectClose(await errorRecoveryOnStore(store, sel), errorRecoveryAnalysis(db, sel), `error-recovery ${JSON.stringify(sel)}`);
      expectClose(await usageByTurnOnStore(store, sel), usageByTurnAnalysis(db, sel), `usage-by-turn ${JSON.stringify(sel)}`);
      expectClose(await budgetModesOnStore(store, sel), budgetModesAnalysis(db, sel), `budget-modes ${JSON.stringify(sel)}`);
      expectClose(await usageRatioOnStore(store, sel), usageRatioAnalysis(db, sel), `usage-ratio ${JSON.stringify(sel)}`);
      expectClose(await confusionOnStore(store, sel), confusionAnalysis(db, sel), `confusion ${JSON.stringify(sel)}`);
      // What decides the runs figures draw, and Pareto's task types, as runAnalysis has them on SQLite.
      const byRun = (w: RunWeight[]) => [...w].sort((a, b) => a.run.localeCompare(b.run));
      expect(byRun(await runWeightsOnStore(store, sel)), `run weights ${JSON.stringify(sel)}`).toEqual(byRun(runWeights(db, sel.runs, sel.split)));
      expect(await paretoTaskTypesOnStore(store, sel), `task types ${JSON.stringify(sel)}`).toEqual(paretoTaskTypes(db, sel.runs, sel.split));
    }
    expect(budgetModesAnalysis(db).modes.some((m) => m.by_train_step.length > 1)).toBe(true);
    expect(confusionAnalysis(db).routing.length).toBeGreaterThan(1);
    expect(Object.values(confusionAnalysis(db).verification).some((k) => k > 0)).toBe(true);
    const rho = { 'gpt-5': 0.2, 'qwen3-8b': 0.5 };
    expectClose(await usageRatioOnStore(store, { rho }), usageRatioAnalysis(db, { rho }));
    expectClose(await paretoOnStore(store, { reference: 'sw-mtrouter' }), paretoAnalysis(db, { reference: 'sw-mtrouter' }));
    expectClose(await usageByTurnOnStore(store, { maxTurn: 4 }), usageByTurnAnalysis(db, { maxTurn: 4 }));
    await expect(paretoOnStore(store, { runs: ['no-such-run'] })).rejects.toThrow('no run named "no-such-run"');
    await expect(paretoOnStore(store, { split: 'nowhere' })).rejects.toThrow('no episode is in split "nowhere"');
  });

  it('lift: the same cells and point lifts; Poisson-bootstrap intervals within Monte Carlo error of the multinomial ones', async () => {
    let worst = 0;
    let compared = 0;
    for (const sel of [{}, { runs: ['sw-mtrouter'] }, { runs: ['sw-random'] }, { runs: ['sw-mtrouter', 'sw-random'] }]) {
      const expected = liftAnalysis(db, { ...sel, minCount: 20, bootstrap: 1000 });
      const actual = await liftOnStore(store, { ...sel, minCount: 20, bootstrap: 1000 });
      const key = (c: { model: string; category: string }): string => `${c.model} ${c.category}`;
      expect(actual.cells.map(key).sort()).toEqual(expected.cells.map(key).sort());
      for (const e of expected.cells) {
        const a = actual.cells.find((c) => key(c) === key(e)) as typeof e;
        expect(a.n).toBe(e.n);
        expectClose(a.lift, e.lift, `lift ${key(e)}`);
        // Each endpoint within a quarter of the interval's width (or 0.02 for a narrow one).
        const width = Math.max(e.ci[1] - e.ci[0], 0.08);
        worst = Math.max(worst, Math.abs(a.ci[0] - e.ci[0]) / width, Math.abs(a.ci[1] - e.ci[1]) / width);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(20);
    console.log(`lift intervals: ${compared} cells, worst endpoint difference ${(worst * 100).toFixed(1)}% of the interval's width`);
    expect(worst).toBeLessThan(0.25);
  });

  it('plan-dag: the summary of every selection, and each planned episode\'s rounds, as on SQLite', async () => {
    for (const sel of selections()) {
      expectClose(await planDagSummaryOnStore(store, sel), planDagSummary(db, sel), `plan-dag ${JSON.stringify(sel)}`);
    }
    expect(planDagSummary(db).runs.length).toBeGreaterThan(0);
    const planned = db.prepare(`SELECT DISTINCT e.id, e.ext_id, r.name AS run FROM plan_nodes p JOIN episodes e ON e.id = p.episode_id
      JOIN runs r ON r.id = e.run_id ORDER BY e.id LIMIT 40`).all() as { id: number; ext_id: string; run: string }[];
    expect(planned.length).toBeGreaterThan(10);
    for (const e of planned) {
      // Nodes and edges in the log's order: compared as they are.
      expect(await planDagEpisodeOnStore(store, e.ext_id, e.run)).toEqual({ ...planDagEpisode(db, e.id, e.ext_id), run: e.run });
    }
  });

  it('targets: one episode fetched alone, its S̃_t, penalties and errors as SQLite has them', async () => {
    const sample = db.prepare(`SELECT e.id, e.ext_id, r.name AS run FROM episodes e JOIN runs r ON r.id = e.run_id
      WHERE e.id % 23 = 0 OR e.n_errors > 3 ORDER BY e.id LIMIT 60`).all() as { id: number; ext_id: string; run: string }[];
    expect(sample.length).toBeGreaterThan(20);
    let withErrors = 0;
    for (const e of sample) {
      const expected = { episode: e.ext_id, run: e.run, ...episodeTargets(db, e.id) };
      const actual = await targetsOnStore(store, e.ext_id, e.run);
      // The errors of a turn in SQLite's order (severity, then name), so compared as they are, not as sets.
      expect(actual.turns.map((t) => t.errors)).toEqual(expected.turns.map((t) => t.errors));
      expectClose(actual, expected, `targets ${e.run}/${e.ext_id}`);
      if (expected.turns.some((t) => t.errors.length > 0)) withErrors++;
    }
    expect(withErrors).toBeGreaterThan(5);
    await expect(targetsOnStore(store, 'no-such-episode')).rejects.toThrow('no episode "no-such-episode"');
  });

  it('a query past the server\'s 256 KiB limit (every import of a store of many files, as a list) still runs', async () => {
    const ids = (await store.query<{ import_id: string }>(visibleImports(store))).map((r) => Number(r.import_id));
    // 20,000 made-up import ids (16 digits, as real ones) besides the real ones: about 360 KB of SQL.
    const many = [...ids, ...Array.from({ length: 20_000 }, (_v, i) => 9_000_000_000_000_000 + i)];
    const sql = (table: string) => `SELECT count() AS n FROM ${table} WHERE import_id IN (${many.join(', ')})`;
    expect(Buffer.byteLength(sql(store.table('turns')))).toBeGreaterThan(256 * 1024);
    const turns = db.prepare('SELECT COUNT(*) FROM turns').pluck().get() as number;
    expect(Number((await store.query<{ n: string }>(sql(store.table('turns'))))[0]?.n)).toBe(turns);
    const perShard = await store.queryEachShard<{ n: string }>((local) => sql(local('turns')));
    expect(perShard.reduce((a, r) => a + Number(r[0]?.n), 0)).toBe(turns);
  });

  it('importing the same files again changes nothing: every file is skipped as already imported', async () => {
    const before = await store.query<{ n: string }>('SELECT count() AS n FROM routelens.turns');
    const report = await importToStore(store, files);
    expect(report.files.filter((f) => f.status === 'imported')).toEqual([]);
    expect(report.files.every((f) => f.status === 'skipped' && /already imported/.test(f.reason ?? ''))).toBe(true);
    expect(await store.query('SELECT count() AS n FROM routelens.turns')).toEqual(before);
  });

  it('a file that fails midway is never counted, and its good episodes never shown', async () => {
    const good = readFileSync(join(dir, 'scienceworld-3.jsonl'), 'utf8').split('\n').filter(Boolean).slice(0, 50)
      .map((l) => { const ep = JSON.parse(l); ep.run = 'half-file'; return JSON.stringify(ep); });
    const broken = join(dir, 'half.jsonl');
    writeFileSync(broken, `${good.join('\n')}\n{"not": "an episode"\n`);
    const report = await importToStore(store, [broken], { batchRows: 10 });
    expect(report.files[0]?.status).toBe('rejected');
    const seen = await store.query<{ n: string }>(`SELECT count() AS n FROM routelens.episodes WHERE run = 'half-file' AND import_id GLOBAL IN (${visibleImports(store)})`);
    expect(Number(seen[0]?.n)).toBe(0);
    await expect(paretoOnStore(store, { runs: ['half-file'] })).rejects.toThrow('no run named');
    const ledger = await store.query<{ event: string }>(`SELECT event FROM routelens.imports WHERE path = {p:String} ORDER BY event`, { p: broken });
    expect(ledger.map((r) => r.event)).toEqual(['abandoned', 'started']);
  });

  it('rows of an import killed before its ledger entry are never counted, and `store clean` removes them', async () => {
    const id = newImportId();
    await store.insert(store.coordinator, 'imports', [{ import_id: id, event: 'started', content_hash: 'x', path: 'killed.jsonl', format: 'canonical', episodes: 0, turns: 0, at: '2020-01-01 00:00:00' }]);
    const row = { import_id: id, episode_key: 77, root_key: 77, run: 'sw-mtrouter', split: null, is_child: 0, episode_success: 1, episode_turn_costs_known: 1,
      pos: 0, t: 0, model: 'ghost', prev_model: null, switched: 0, next_switched: null, severity: 1, next_severity: null, category: 'x', action_type: 'x',
      cost: 1, cost_source: 'logged', cum_cost: 1, error_mask: 0 };
    await store.insert(store.nodes[1] as never, 'turns_local', [row]);
    const before = await usageByTurnOnStore(store, { runs: ['sw-mtrouter'] });
    expect(JSON.stringify(before)).not.toContain('ghost');
    expectClose(before, usageByTurnAnalysis(db, { runs: ['sw-mtrouter'] }));
    const cleaned = await cleanStore(store, 60_000);
    // The half file of the test before was sent episode by episode and marked abandoned when its read failed.
    expect(cleaned.abandoned).toContain(id);
    expect(cleaned.abandoned).toHaveLength(2);
    for (let i = 0; i < 100; i++) {
      const left = await store.query<{ n: string }>(`SELECT count() AS n FROM routelens.turns WHERE import_id = ${id}`);
      if (Number(left[0]?.n) === 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(await store.query<{ n: string }>(`SELECT count() AS n FROM routelens.turns WHERE import_id = ${id}`)).toEqual([{ n: '0' }]);
    expect((await cleanStore(store, 60_000)).abandoned).toEqual([]);
  });

  it('a file with a value SQLite holds but the store cannot (a turn budget past Int32) is refused, naming the episode, and never counted', async () => {
    const lines = readFileSync(join(dir, 'scienceworld-3.jsonl'), 'utf8').split('\n').filter(Boolean).slice(0, 20)
      .map((l, i) => {
        const ep = JSON.parse(l);
        ep.run = 'too-long';
        if (i === 12) ep.budget = { ...ep.budget, max_turns: 3_000_000_000 };
        return JSON.stringify(ep);
      });
    const file = join(dir, 'too-long.jsonl');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const bad = JSON.parse(lines[12] as string).episode_id as string;
    const report = await importToStore(store, [file], { batchRows: 10 });
    expect(report.files[0]?.status).toBe('rejected');
    expect(report.files[0]?.reason).toContain(`episode "${bad}": episodes.max_turns: 3000000000 cannot be stored as Int32 in a ClickHouse store`);
    await expect(paretoOnStore(store, { runs: ['too-long'] })).rejects.toThrow('no run named');
    const ledger = await store.query<{ event: string }>(`SELECT event FROM routelens.imports WHERE path = {p:String} ORDER BY event`, { p: file });
    expect(ledger.map((r) => r.event)).toEqual(['abandoned', 'started']);
    // The import ended without a StoreError: every insert, the refused file's whole rows included, was accepted.
    const sent = await store.query<{ n: string }>("SELECT count() AS n FROM routelens.episodes WHERE run = 'too-long'");
    expect(Number(sent[0]?.n)).toBeGreaterThan(0);
  });

  it('a changed file replaces the whole earlier file; a file overlapping part of one is refused', async () => {
    const lines = readFileSync(join(dir, 'critique-4.jsonl'), 'utf8').split('\n').filter(Boolean);
    const first = join(dir, 'part.jsonl');
    writeFileSync(first, lines.slice(0, 20).map((l) => { const ep = JSON.parse(l); ep.run = 'replaced'; return JSON.stringify(ep); }).join('\n'));
    await importToStore(store, [first]);
    const changed = join(dir, 'part-v2.jsonl');
    writeFileSync(changed, lines.slice(0, 20).map((l) => { const ep = JSON.parse(l); ep.run = 'replaced'; ep.outcome = { ...ep.outcome, success: true, score: 1 }; return JSON.stringify(ep); }).join('\n'));
    // Small sends and slices: the earlier imports are looked up while the file is still read.
    const small = { batchRows: 1000, batchBytes: 2000, keysPerQuery: 3 };
    const report = await importToStore(store, [changed], small);
    expect(report.files[0]?.status).toBe('imported');
    expect(report.warnings).toEqual([`${changed}: replaces the 20 episode(s) imported earlier from ${first}`]);
    const seen = await store.query<{ n: string; wins: string }>(`SELECT count() AS n, sum(success) AS wins FROM routelens.episodes WHERE run = 'replaced' AND import_id GLOBAL IN (${visibleImports(store)})`);
    expect(seen).toEqual([{ n: '20', wins: '20' }]);
    const overlap = join(dir, 'overlap.jsonl');
    writeFileSync(overlap, lines.slice(10, 30).map((l) => { const ep = JSON.parse(l); ep.run = 'replaced'; return JSON.stringify(ep); }).join('\n'));
    const refused = await importToStore(store, [overlap], small);
    expect(refused.files[0]?.status).toBe('rejected');
    expect(refused.files[0]?.reason).toMatch(/10 of its episodes are already in the store from .*part-v2\.jsonl, which holds 20/);

    // A file replacing one complete earlier in the same import, whose ledger entry is not yet written: its slices
    // wait for that entry, and the later file still replaces the earlier one.
    const rewrite = (name: string, score: number): string => {
      const path = join(dir, name);
      writeFileSync(path, lines.slice(0, 20).map((l) => { const ep = JSON.parse(l); ep.run = 'rewritten'; ep.outcome = { ...ep.outcome, score }; return JSON.stringify(ep); }).join('\n'));
      return path;
    };
    const both = await importToStore(store, [rewrite('rw-1.jsonl', 0), rewrite('rw-2.jsonl', 7)], small);
    expect(both.files.map((f) => f.status)).toEqual(['imported', 'imported']);
    const now = await store.query<{ n: string; score: number }>(`SELECT count() AS n, max(final_score) AS score FROM routelens.episodes WHERE run = 'rewritten' AND import_id GLOBAL IN (${visibleImports(store)})`);
    expect(now).toEqual([{ n: '20', score: 7 }]);
  });

  it('an older store (schema 1) is refused until `store init` migrates it (columns and tables), and then imports and reads', async () => {
    const old = new ClickHouseStore(parseStoreUrl(cluster.url('routelens_v1')));
    try {
      await initStore(old);
      // Back to version 1: the episodes tables without the columns version 2 added.
      const added = ['parent_t', 'expected_steps', 'policy_name', 'file_ord'];
      for (const node of old.nodes) for (const c of added) await old.command(`ALTER TABLE routelens_v1.episodes_local DROP COLUMN ${c}`, node);
      for (const c of added) await old.command(`ALTER TABLE routelens_v1.episodes DROP COLUMN ${c}`);
      // …and without the tables version 3 added.
      for (const node of old.nodes) await old.command('DROP TABLE routelens_v1.estimates_local', node);
      await old.command('DROP TABLE routelens_v1.estimates');
      await old.command('DROP TABLE routelens_v1.scorings');
      await old.command('TRUNCATE TABLE routelens_v1.schema_version');
      await old.command("INSERT INTO routelens_v1.schema_version VALUES (1, now())");
      await expect(importToStore(old, ['fixtures/samples/claude-code'])).rejects.toThrow(`schema version 1, this RouteLens uses ${STORE_SCHEMA_VERSION}: run \`routelens store init\` to migrate`);
      expect(await initStore(old)).toEqual({ created: false, version: STORE_SCHEMA_VERSION });
      const tables = (await old.query<{ name: string }>("SELECT name FROM system.tables WHERE database = 'routelens_v1'")).map((t) => t.name);
      for (const t of ['estimates', 'estimates_local', 'scorings']) expect(tables).toContain(t);
      const columns = await old.query<{ name: string }>("SELECT name FROM system.columns WHERE database = 'routelens_v1' AND table = 'episodes'");
      for (const c of added) expect(columns.map((x) => x.name)).toContain(c);
      const report = await importToStore(old, ['fixtures/samples/claude-code']);
      expect(report.files.every((f) => f.status === 'imported')).toBe(true);
      const [row] = await old.query<{ n: string }>('SELECT count() AS n FROM routelens_v1.episodes WHERE parent_t IS NOT NULL');
      expect(Number(row?.n)).toBeGreaterThan(0);
    } finally {
      await old.close();
    }
  });
});
