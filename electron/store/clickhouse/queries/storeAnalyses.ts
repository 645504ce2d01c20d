/**
 * The analyses of DESIGN §8 pushed down to the ClickHouse store: each is one SQL aggregation run on the
 * cluster (per shard, merged by the coordinator), and only the aggregates come back; the same finishing
 * functions as the typed-array path turn them into the answer (frontier, shares, Wilson intervals), so the two
 * stores answer alike (a test holds them equal on the same data).
 *
 * Which sessions count mirrors the columnar cache: episode-level analyses take each session once, at its root
 * episode, with its subagents' costs folded in; turn-level analyses take every turn, subagents' included; a
 * child episode is in its session's split.
 */
import type {
  BudgetModesResult, ConfusionResult, EpisodeCoverage, ErrorRecoveryResult, LiftResult, ParetoResult, PlanDagEpisodeResult, PlanDagSummaryResult,
  PlanRound, SwitchCostResult, TargetsResult, UsageByTurnResult, UsageRatioResult,
} from '../../../../shared/analysisResults.ts';
import { splitValues } from '../../../../shared/splits.ts';
import { BEHAVIOUR_MODES, type BehaviourMode } from '../../../../shared/behaviourModes.ts';
import { paretoOfSums } from '../../../analysis/pareto.ts';
import { recoveryOfCounts } from '../../../analysis/errorRecovery.ts';
import { budgetModesOf, emptyAcc, usageRatioOf, type Acc } from '../../../analysis/controllerAnalyses.ts';
import { liftCells, liftTable } from '../../../analysis/lift.ts';
import { agreedTargets, usageTargetsText } from '../../../analysis/usageTargets.ts';
import type { RunWeight } from '../../../../shared/drawnRuns.ts';
import type { ClickHouseStore } from '../schema/connection.ts';
import { visibleImports, visibleRows } from '../schema/schema.ts';

export interface Selection {
  runs?: string[];
  split?: string;
}

/** ClickHouse answers 64-bit integers as strings in JSON. */
const num = (x: unknown): number => Number(x);

/**
 * The filter on `run` and `split` columns for a selection, with its parameters; unknown runs and splits are
 * errors, as in the typed-array path (RangeError → the caller's mistake).
 */
export async function selectionFilter(store: ClickHouseStore, sel: Selection): Promise<{ sql: string; params: Record<string, unknown> }> {
  const parts: string[] = [];
  const params: Record<string, unknown> = {};
  const runs = sel.runs?.length ? sel.runs : undefined;
  if (runs || sel.split !== undefined) {
    const known = await store.query<{ run: string; splits: (string | null)[] }>(
      `SELECT run, groupUniqArray(split) AS splits FROM ${store.table('episodes')}
       WHERE ${visibleRows(store)} GROUP BY run`,
    );
    if (runs) {
      const names = new Set(known.map((r) => r.run));
      for (const r of runs) if (!names.has(r)) throw new RangeError(`no run named "${r}"`);
      parts.push('has({runs:Array(String)}, run)');
      params.runs = runs;
    }
    if (sel.split !== undefined) {
      const values = splitValues(sel.split);
      const present = [...new Set(known.flatMap((r) => r.splits).filter((s): s is string => s !== null))];
      if (!values.some((v) => present.includes(v))) {
        throw new RangeError(`no episode is in split "${sel.split}" (splits here: ${present.join(', ') || 'none'})`);
      }
      parts.push('has({splits:Array(String)}, assumeNotNull(split)) AND split IS NOT NULL');
      params.splits = values;
    }
  }
  return { sql: parts.length ? parts.join(' AND ') : '1', params };
}

const visible = visibleRows;

/** The runs with an episode in the selection (each gets a group, as in the typed-array path, even with nothing to count). */
async function selectedRuns(store: ClickHouseStore, f: { sql: string; params: Record<string, unknown> }): Promise<{ run: string }[]> {
  return store.query<{ run: string }>(`SELECT DISTINCT run FROM ${store.table('episodes')} WHERE ${visible(store)} AND ${f.sql}`, f.params);
}

/** Each session once, at its root: its run, split, score and success, and its cost with its subagents'. */
function sessions(store: ClickHouseStore): string {
  return `SELECT root_key, anyIf(run, episode_key = root_key) AS run, anyIf(split, episode_key = root_key) AS split,
      anyIf(ext_id, episode_key = root_key) AS ext_id, anyIf(score_norm, episode_key = root_key) AS score,
      anyIf(success, episode_key = root_key) AS success, anyIf(n_switches, episode_key = root_key) AS switches,
      anyIf(n_turns, episode_key = root_key) AS turns, anyIf(budget_mode, episode_key = root_key) AS budget_mode,
      anyIf(train_step, episode_key = root_key) AS train_step, anyIf(expert_call, episode_key = root_key) AS expert_call,
      anyIf(max_turns, episode_key = root_key) AS max_turns, anyIf(task_type, episode_key = root_key) AS task_type,
      sum(total_cost) AS cost, min(cost_known) AS cost_known,
      countIf(episode_key = root_key) AS roots
    FROM ${store.table('episodes')} WHERE ${visible(store)} GROUP BY root_key`;
}

export async function paretoOnStore(store: ClickHouseStore, options: Selection & { reference?: string }): Promise<ParetoResult> {
  const f = await selectionFilter(store, options);
  const rows = await store.query<Record<string, string | number>>(
    `SELECT run, count() AS episodes, countIf(score IS NULL) AS unknown_outcome,
       countIf(score IS NOT NULL AND cost_known = 0) AS unknown_cost,
       countIf(score IS NOT NULL AND cost_known = 1) AS n,
       sumIf(toFloat64(score), score IS NOT NULL AND cost_known = 1) AS score_sum,
       sumIf(cost, score IS NOT NULL AND cost_known = 1) AS cost_sum
     FROM (${sessions(store)}) WHERE roots = 1 AND ${f.sql} GROUP BY run`,
    f.params,
  );
  const coverage: EpisodeCoverage = { episodes: 0, unknown_outcome: 0, unknown_cost: 0 };
  for (const r of rows) {
    coverage.episodes += num(r.episodes);
    coverage.unknown_outcome += num(r.unknown_outcome);
    coverage.unknown_cost += num(r.unknown_cost);
  }
  const sums = rows.filter((r) => num(r.n) > 0).map((r) => ({ run: String(r.run), n: num(r.n), score: num(r.score_sum), cost: num(r.cost_sum) }));
  return paretoOfSums(sums, options.reference, coverage);
}

/** The selection's runs weighed for the default choice of runs to draw (shared/drawnRuns.ts), as runAnalysis weighs them. */
export async function runWeightsOnStore(store: ClickHouseStore, options: Selection): Promise<RunWeight[]> {
  const f = await selectionFilter(store, options);
  const [runs, rows] = await Promise.all([
    selectedRuns(store, f),
    store.query<{ run: string; sessions: string; scored: string }>(
      `SELECT run, count() AS sessions, countIf(score IS NOT NULL) AS scored FROM (${sessions(store)}) WHERE roots = 1 AND ${f.sql} GROUP BY run`,
      f.params,
    ),
  ]);
  const byRun = new Map(rows.map((r) => [String(r.run), r]));
  return runs.map(({ run }) => ({ run, sessions: num(byRun.get(run)?.sessions ?? 0), scored: num(byRun.get(run)?.scored ?? 0) }));
}

/** Per run, the task types of the sessions a Pareto point averages (known outcome and cost), by name. */
export async function paretoTaskTypesOnStore(store: ClickHouseStore, options: Selection): Promise<Map<string, string[]>> {
  const f = await selectionFilter(store, options);
  const rows = await store.query<{ run: string; types: string[] }>(
    `SELECT run, groupUniqArray(assumeNotNull(task_type)) AS types FROM (${sessions(store)})
     WHERE roots = 1 AND ${f.sql} AND score IS NOT NULL AND cost_known = 1 AND task_type IS NOT NULL GROUP BY run`,
    f.params,
  );
  return new Map(rows.map((r) => [String(r.run), [...r.types].sort((a, b) => a.localeCompare(b))]));
}

export async function switchCostOnStore(store: ClickHouseStore, options: Selection): Promise<SwitchCostResult> {
  const f = await selectionFilter(store, options);
  const sessionsRows = await store.query<Record<string, string | number | null>>(
    `SELECT run, ext_id, switches, turns, cost, cost_known, success FROM (${sessions(store)})
     WHERE roots = 1 AND ${f.sql} AND (success = 1 OR success IS NULL) ORDER BY run, root_key`,
    f.params,
  );
  const totals = await store.query<{ episodes: string }>(`SELECT count() AS episodes FROM (${sessions(store)}) WHERE roots = 1 AND ${f.sql}`, f.params);
  const curve = await store.query<{ run: string; pos: number; total: number; n: string }>(
    `SELECT run, pos, sum(cum_cost) AS total, count() AS n FROM ${store.table('turns')}
     WHERE ${visible(store)} AND ${f.sql} AND is_child = 0 AND episode_success = 1 AND episode_turn_costs_known = 1
     GROUP BY run, pos ORDER BY run, pos`,
    f.params,
  );
  const coverage: EpisodeCoverage = { episodes: num(totals[0]?.episodes ?? 0), unknown_outcome: 0, unknown_cost: 0 };
  const byRun = new Map<string, SwitchCostResult['runs'][number]>();
  const runOf = (run: string): SwitchCostResult['runs'][number] => {
    let g = byRun.get(run);
    if (!g) byRun.set(run, (g = { run, episodes: [], mean_cumulative_cost: [] }));
    return g;
  };
  for (const r of sessionsRows) {
    if (r.success === null) {
      coverage.unknown_outcome++;
      continue;
    }
    const g = runOf(String(r.run));
    if (num(r.cost_known) === 0) coverage.unknown_cost++;
    else g.episodes.push({ episode: String(r.ext_id), switches: num(r.switches), cost: num(r.cost), turns: num(r.turns) });
  }
  for (const c of curve) runOf(c.run).mean_cumulative_cost.push({ t: num(c.pos), mean: num(c.total) / num(c.n), n: num(c.n) });
  return { runs: [...byRun.values()].sort((a, b) => a.run.localeCompare(b.run)), coverage };
}

export async function errorRecoveryOnStore(store: ClickHouseStore, options: Selection): Promise<ErrorRecoveryResult> {
  const f = await selectionFilter(store, options);
  const rows = await store.query<Record<string, string>>(
    `SELECT run, count() AS n, sum(next_switched) AS sw, countIf(next_severity = 0) AS rec,
       countIf(next_switched = 1 AND next_severity = 0) AS rec_sw
     FROM ${store.table('turns')} WHERE ${visible(store)} AND ${f.sql} AND severity > 0 AND next_severity IS NOT NULL GROUP BY run`,
    f.params,
  );
  const runs = await selectedRuns(store, f);
  const counts = new Map(rows.map((r) => [r.run, r]));
  return recoveryOfCounts(runs.map(({ run }) => {
    const r = counts.get(run);
    const n = num(r?.n ?? 0);
    const sw = num(r?.sw ?? 0);
    const rec = num(r?.rec ?? 0);
    const recSw = num(r?.rec_sw ?? 0);
    return { run, n, sw, rec, stay: n - sw, recStay: rec - recSw, recSw };
  }));
}

export async function usageByTurnOnStore(store: ClickHouseStore, options: Selection & { maxTurn?: number }): Promise<UsageByTurnResult> {
  const f = await selectionFilter(store, options);
  const cap = options.maxTurn === undefined ? '' : ` AND pos <= ${Math.max(-1, Math.floor(options.maxTurn))}`;
  const rows = await store.query<{ run: string; pos: number; model: string; k: string }>(
    `SELECT run, pos, model, count() AS k FROM ${store.table('turns')} WHERE ${visible(store)} AND ${f.sql}${cap}
     GROUP BY run, pos, model ORDER BY run, pos, model`,
    f.params,
  );
  const byRun = new Map<string, Map<number, Map<string, number>>>();
  for (const r of rows) {
    let turns = byRun.get(r.run);
    if (!turns) byRun.set(r.run, (turns = new Map()));
    let models = turns.get(num(r.pos));
    if (!models) turns.set(num(r.pos), (models = new Map()));
    models.set(r.model, num(r.k));
  }
  const runs = [...byRun].map(([run, turns]) => ({
    run,
    turns: [...turns].sort((a, b) => a[0] - b[0]).map(([t, models]) => {
      const n = [...models.values()].reduce((a, b) => a + b, 0);
      return { t, n, shares: Object.fromEntries([...models].map(([m, k]) => [m, k / n])) };
    }),
  }));
  return { runs: runs.sort((a, b) => a.run.localeCompare(b.run)) };
}

export async function budgetModesOnStore(store: ClickHouseStore, options: Selection): Promise<BudgetModesResult> {
  const f = await selectionFilter(store, options);
  // The known scores and costs come along as arrays: the means' intervals resample them (controllerAnalyses.ts).
  const [rows, runs] = await Promise.all([
    store.query<Record<string, string | number | null | (string | number)[]>>(
      `SELECT budget_mode, train_step, count() AS n, countIf(score IS NOT NULL) AS scored, sumIf(toFloat64(score), score IS NOT NULL) AS score_sum,
         countIf(cost_known = 1) AS costed, sumIf(cost, cost_known = 1) AS cost_sum, sum(expert_call) AS expert,
         groupArrayIf(toFloat64(assumeNotNull(score)), score IS NOT NULL) AS scores, groupArrayIf(cost, cost_known = 1) AS costs
       FROM (${sessions(store)}) WHERE roots = 1 AND budget_mode IS NOT NULL AND ${f.sql} GROUP BY budget_mode, train_step`,
      f.params,
    ),
    store.query<{ run: string; with_mode: string }>(
      `SELECT run, countIf(budget_mode IS NOT NULL) AS with_mode FROM (${sessions(store)}) WHERE roots = 1 AND ${f.sql} GROUP BY run`,
      f.params,
    ),
  ]);
  const coverage: EpisodeCoverage = { episodes: 0, unknown_outcome: 0, unknown_cost: 0 };
  const modes = new Map<string, { all: Acc; steps: [number, Acc][] }>();
  const values = (v: unknown): number[] => (Array.isArray(v) ? v.map(num) : []);
  for (const r of rows) {
    const acc: Acc = {
      n: num(r.n), score: num(r.score_sum), scored: num(r.scored), cost: num(r.cost_sum), costed: num(r.costed), expert: num(r.expert),
      scores: values(r.scores), costs: values(r.costs),
    };
    coverage.episodes += acc.n;
    coverage.unknown_outcome += acc.n - acc.scored;
    coverage.unknown_cost += acc.n - acc.costed;
    const mode = String(r.budget_mode);
    let g = modes.get(mode);
    if (!g) modes.set(mode, (g = { all: emptyAcc(), steps: [] }));
    for (const k of ['n', 'score', 'scored', 'cost', 'costed', 'expert'] as const) g.all[k] += acc[k];
    // A loop, not push(...): a mode of a million sessions would pass a million arguments.
    for (const v of acc.scores) g.all.scores.push(v);
    for (const v of acc.costs) g.all.costs.push(v);
    if (r.train_step !== null && num(r.train_step) >= 0) g.steps.push([num(r.train_step), acc]);
  }
  const without = runs.filter((r) => num(r.with_mode) === 0).map((r) => r.run);
  return budgetModesOf([...modes].map(([mode, g]) => ({ mode, ...g })), coverage, without);
}

export async function usageRatioOnStore(store: ClickHouseStore, options: Selection & { rho?: Record<string, number> }): Promise<UsageRatioResult> {
  const f = await selectionFilter(store, options);
  const runs = await selectedRuns(store, f);
  const calls = await store.query<{ run: string; model: string; k: string }>(
    `SELECT run, model, count() AS k FROM ${store.table('turns')} WHERE ${visible(store)} AND ${f.sql} GROUP BY run, model ORDER BY run, model`,
    f.params,
  );
  const limits = await store.query<Record<string, string>>(
    `SELECT run, max_turns, count() AS n_all, countIf(success IS NOT NULL) AS n, countIf(success = 1) AS ok, countIf(turns >= max_turns) AS exhausted
     FROM (${sessions(store)}) WHERE roots = 1 AND max_turns > 0 AND ${f.sql} GROUP BY run, max_turns`,
    f.params,
  );
  // The usage targets each run's log states (episodes.detail, as SQLite's episode_text.detail): the distinct details
  // that hold them, read here (the servers this runs on may predate ClickHouse's JSON functions).
  const stated = await store.query<{ run: string; details: string[] }>(
    `SELECT run, groupUniqArray(assumeNotNull(detail)) AS details FROM ${store.table('episodes')}
     WHERE ${visible(store)} AND ${f.sql} AND detail LIKE '%"usage_targets"%' GROUP BY run`,
    f.params,
  );
  const logged = new Map<string, Record<string, number>>();
  for (const s of stated) {
    const agreed = agreedTargets(s.details.map(usageTargetsText));
    if (agreed) logged.set(s.run, agreed);
  }
  const coverage: EpisodeCoverage = { episodes: 0, unknown_outcome: 0, unknown_cost: 0 };
  for (const l of limits) {
    coverage.episodes += num(l.n_all);
    coverage.unknown_outcome += num(l.n_all) - num(l.n);
  }
  return usageRatioOf(runs.map(({ run }) => {
    const mine = calls.filter((c) => c.run === run).map((c) => [c.model, num(c.k)] as [string, number]);
    const lim = limits.filter((l) => l.run === run);
    return {
      run,
      calls: mine,
      total: mine.reduce((a, [, k]) => a + k, 0),
      byMax: lim.map((l) => [num(l.max_turns), { n: num(l.n), ok: num(l.ok) }] as [number, { n: number; ok: number }]),
      exhausted: lim.reduce((a, l) => a + num(l.exhausted), 0),
      withLimit: lim.reduce((a, l) => a + num(l.n_all), 0),
    };
  }), options.rho, coverage, logged);
}

export async function confusionOnStore(store: ClickHouseStore, options: Selection): Promise<ConfusionResult> {
  const f = await selectionFilter(store, options);
  const cells = await store.query<{ d: number; model: string; k: string }>(
    `SELECT toFloat64(episode_difficulty) AS d, model, count() AS k FROM ${store.table('turns')}
     WHERE ${visible(store)} AND ${f.sql} AND episode_difficulty IS NOT NULL GROUP BY d, model ORDER BY d, model`,
    f.params,
  );
  const [v] = await store.query<Record<string, string>>(
    `SELECT countIf(verdict = 'stop' AND verify_correct = 1) AS sc, countIf(verdict = 'stop' AND verify_correct = 0) AS si,
       countIf(verdict = 'continue' AND verify_correct = 1) AS cc, countIf(verdict = 'continue' AND verify_correct = 0) AS ci
     FROM ${store.table('turns')} WHERE ${visible(store)} AND ${f.sql}`,
    f.params,
  );
  const rows = new Map<number, Map<string, number>>();
  for (const c of cells) {
    let row = rows.get(num(c.d));
    if (!row) rows.set(num(c.d), (row = new Map()));
    row.set(c.model, num(c.k));
  }
  return {
    routing: [...rows].sort((a, b) => a[0] - b[0]).map(([difficulty, row]) => {
      const n = [...row.values()].reduce((a, b) => a + b, 0);
      return { difficulty, n, shares: Object.fromEntries([...row].map(([m, k]) => [m, k / n])) };
    }),
    verification: { stop_correct: num(v?.sc ?? 0), stop_incorrect: num(v?.si ?? 0), continue_correct: num(v?.cc ?? 0), continue_incorrect: num(v?.ci ?? 0) },
  };
}

/** One episode by its log id (and run): its key and run, or the same refusals as the SQLite path. */
async function oneEpisode(store: ClickHouseStore, extId: string, run?: string): Promise<{ k: number; run: string; mode: string | null }> {
  const hits = await store.query<{ episode_key: string; run: string; behaviour_mode: string | null }>(
    `SELECT episode_key, run, behaviour_mode FROM ${store.table('episodes')} WHERE ext_id = {x:String} AND ${visible(store)}${run === undefined ? '' : ' AND run = {run:String}'}`,
    run === undefined ? { x: extId } : { x: extId, run },
  );
  if (hits.length === 0) throw new RangeError(`no episode "${extId}"${run ? ` in run "${run}"` : ''}`);
  if (hits.length > 1) throw new RangeError(`episode "${extId}" is in several runs (${hits.map((h) => h.run).join(', ')}): name one with --run`);
  const hit = hits[0] as { episode_key: string; run: string; behaviour_mode: string | null };
  return { k: Number(hit.episode_key), run: hit.run, mode: hit.behaviour_mode };
}

/** The episode's turns, fetched alone (by its sorting key): S̃_t and penalty as the import wrote them, and its errors. */
export async function targetsOnStore(store: ClickHouseStore, extId: string, run?: string): Promise<TargetsResult> {
  const { mode: _mode, ...key } = await oneEpisode(store, extId, run);
  const turns = await store.query<{ pos: number; t: number; s_tilde: number | null; penalty: number }>(
    `SELECT pos, t, s_tilde, coalesce(penalty, 0) AS penalty FROM ${store.table('turns')}
     WHERE run = {run:String} AND episode_key = {k:UInt64} AND ${visible(store)} ORDER BY pos`,
    key,
  );
  const errors = await store.query<{ pos: number; error_type: string }>(
    `SELECT pos, error_type FROM ${store.table('turn_errors')}
     WHERE run = {run:String} AND episode_key = {k:UInt64} AND ${visible(store)} ORDER BY pos, severity DESC, error_type`,
    key,
  );
  return {
    episode: extId,
    run: key.run,
    turns: turns.map((t) => ({
      t: num(t.t),
      s_tilde: t.s_tilde === null ? null : num(t.s_tilde),
      penalty: num(t.penalty),
      errors: errors.filter((e) => num(e.pos) === num(t.pos)).map((e) => e.error_type),
    })),
  };
}

/**
 * A Poisson(1) weight per (episode, replicate) from a hash: the Poisson bootstrap, which resamples episodes
 * independently on every shard with no coordination (a multinomial draw of n episodes would need them all in
 * one place). Its intervals estimate the same ones as the typed-array path's multinomial episode bootstrap;
 * the draws differ, so the endpoints agree within Monte Carlo error, not digit for digit (docs/scale-out.md).
 */
const POISSON_WEIGHT = (u: string): string => {
  const cdf = [0.36787944117, 0.73575888234, 0.91969860293, 0.98101184312, 0.99634015317, 0.99940581518, 0.99991675885, 0.99998975080];
  return `multiIf(${cdf.map((p, k) => `${u} < ${p}, ${k}`).join(', ')}, ${cdf.length})`;
};

/**
 * The bootstrap's inner GROUP BY (one row per episode cell) feeds B-element arrays, so the size of its output
 * blocks decides the query's memory. A server that aggregates on one thread (ClickHouse 18.16 chose max_threads 1
 * on a 2-vCPU machine) returns that GROUP BY as a single block unless external aggregation is allowed: 1.1M cells ×
 * 200 replicates of Float64 asked for 2 GiB at once on a shard of 2.5M turns and failed. With a spill threshold the
 * aggregation is two-level and comes out in its 256 buckets, so the arrays are built 1/256 of the cells at a time,
 * and past 1 GB the GROUP BY itself spills to disk instead of failing.
 */
const BUCKETED_GROUP_BY = { max_bytes_before_external_group_by: '1000000000' };

export async function liftOnStore(store: ClickHouseStore, options: Selection & { minCount?: number; bootstrap?: number; seed?: number }): Promise<LiftResult> {
  const f = await selectionFilter(store, options);
  const B = options.bootstrap ?? 200;
  const seed = Math.trunc(options.seed ?? 1);
  if (!Number.isSafeInteger(B) || B < 1 || B > 10_000) throw new RangeError('bootstrap replicates must be a whole number from 1 to 10000');
  // The imports read once, for the point lifts and the bootstrap alike: an import completing between the two
  // queries would otherwise give the intervals other data than the points. The shards' own tables (no Distributed
  // table, no GLOBAL IN) take the list as a literal.
  const imports = (await store.query<{ import_id: string }>(visibleImports(store))).map((r) => Number(r.import_id));
  const inImports = imports.length ? `import_id IN (${imports.join(', ')})` : '0';
  const counts = await store.query<{ model: string; category: string; n: string }>(
    `SELECT model, category, count() AS n FROM ${store.table('turns')} WHERE ${inImports} AND ${f.sql} GROUP BY model, category ORDER BY model, category`,
    f.params,
  );
  const models = [...new Set(counts.map((c) => c.model))];
  const categories = [...new Set(counts.map((c) => c.category))].sort();
  const cell = (model: string, category: string): number => models.indexOf(model) * categories.length + categories.indexOf(category);
  const mc = new Float64Array(models.length * categories.length);
  for (const c of counts) mc[cell(c.model, c.category)] = num(c.n);
  const point = liftTable(mc, models.length, categories.length);
  // The bootstrap runs on each shard over its own sessions (all of an episode's turns are on one shard), all shards
  // at once, and the shards' B × cells sums are added here. Each episode's cells once (a handful per episode), each
  // with its B weights as an array (one hash per (episode, replicate)), summed element-wise per cell; no row is
  // copied B times. (Grouping the cells by episode to draw its weights once held every episode's B weights at
  // once: 4.6 GB on a shard of 2.5M turns.) Lambdas take episode_key and n as arrays, never as captured columns:
  // 18.16 drops columns only a lambda captures.
  if (imports.length === 0) return { cells: liftCells(models, categories, mc, point, Array.from({ length: mc.length }, () => []), options.minCount ?? 30) };
  const perShard = await store.queryEachShard<{ model: string; category: string; w: (string | number)[] }>(
    (local) => `SELECT model, category, sumForEach(weights) AS w FROM (
       SELECT model, category, arrayMap((x, c) -> x * c, arrayMap(u -> ${POISSON_WEIGHT('u')},
           arrayMap((b, k) -> cityHash64(k, b, ${seed}) / 18446744073709551616, range(${B}), arrayResize([episode_key], ${B}, episode_key))),
         arrayResize([n], ${B}, n)) AS weights
       FROM (SELECT episode_key, model, category, count() AS n FROM ${local('turns')}
             WHERE ${inImports} AND ${f.sql} GROUP BY episode_key, model, category))
     GROUP BY model, category`,
    f.params,
    BUCKETED_GROUP_BY,
  );
  const reps = perShard.flat();
  const byReplicate = Array.from({ length: B }, () => new Float64Array(mc.length));
  for (const r of reps) {
    const j = cell(r.model, r.category);
    r.w.forEach((w, b) => ((byReplicate[b] as Float64Array)[j] = ((byReplicate[b] as Float64Array)[j] as number) + num(w)));
  }
  const samples: number[][] = Array.from({ length: mc.length }, () => []);
  for (const replicate of byReplicate) {
    const table = liftTable(replicate, models.length, categories.length);
    table.forEach((v, j) => {
      if (Number.isFinite(v)) samples[j]?.push(v);
    });
  }
  return { cells: liftCells(models, categories, mc, point, samples, options.minCount ?? 30) };
}

/** One episode's plan: each round's subtasks and edges in the order the log gave them, and its behaviour mode. */
export async function planDagEpisodeOnStore(store: ClickHouseStore, extId: string, run?: string): Promise<PlanDagEpisodeResult> {
  const { mode, ...key } = await oneEpisode(store, extId, run);
  const nodes = await store.query<{ round: number; id: string; model: string | null; primitive: string | null; status: string | null }>(
    `SELECT round, subtask_id AS id, model, primitive, status FROM ${store.table('plan_nodes')}
     WHERE run = {run:String} AND episode_key = {k:UInt64} AND ${visible(store)} ORDER BY round, ord`,
    key,
  );
  const edges = await store.query<{ round: number; src: string; dst: string }>(
    `SELECT round, src, dst FROM ${store.table('plan_edges')} WHERE episode_key = {k:UInt64} AND ${visible(store)} ORDER BY round, ord`,
    { k: key.k },
  );
  const rounds = new Map<number, PlanRound>();
  for (const { round, ...node } of nodes) {
    let r = rounds.get(num(round));
    if (!r) rounds.set(num(round), (r = { round: num(round), nodes: [], edges: [] }));
    r.nodes.push(node);
  }
  for (const e of edges) rounds.get(num(e.round))?.edges.push([e.src, e.dst]);
  return { episode: extId, mode: mode as BehaviourMode | null, rounds: [...rounds.values()], run: key.run };
}

/** Per run with plans: behaviour-mode shares over its episodes, model × primitive counts, rounds and subtasks. */
export async function planDagSummaryOnStore(store: ClickHouseStore, options: Selection): Promise<PlanDagSummaryResult> {
  const f = await selectionFilter(store, options);
  const selected = `episode_key ${store.globalIn} (SELECT episode_key FROM ${store.table('episodes')} WHERE ${visible(store)} AND ${f.sql})`;
  const shapes = await store.query<{ run: string; rounds: string; subtasks: string; planned: string }>(
    `SELECT run, uniqExact(episode_key, round) AS rounds, count() AS subtasks, uniqExact(episode_key) AS planned
     FROM ${store.table('plan_nodes')} WHERE ${visible(store)} AND ${selected} GROUP BY run ORDER BY run`,
    f.params,
  );
  if (shapes.length === 0) return { runs: [] };
  const modes = await store.query<{ run: string; mode: string; n: string }>(
    `SELECT run, if(n_turns = 0 OR behaviour_mode IS NULL, 'none', assumeNotNull(behaviour_mode)) AS mode, count() AS n
     FROM ${store.table('episodes')} WHERE ${visible(store)} AND ${f.sql} AND has({planRuns:Array(String)}, run) GROUP BY run, mode`,
    { ...f.params, planRuns: shapes.map((x) => x.run) },
  );
  const usage = await store.query<{ run: string; model: string | null; primitive: string | null; n: string }>(
    `SELECT run, model, primitive, count() AS n FROM ${store.table('plan_nodes')} WHERE ${visible(store)} AND ${selected}
     GROUP BY run, model, primitive ORDER BY n DESC, model, primitive`,
    f.params,
  );
  return {
    runs: shapes.map((x) => {
      const counts: Record<string, number> = Object.fromEntries([...BEHAVIOUR_MODES, 'none'].map((m) => [m, 0]));
      for (const m of modes.filter((y) => y.run === x.run)) counts[m.mode] = (counts[m.mode] ?? 0) + num(m.n);
      const episodes = Object.values(counts).reduce((a, b) => a + b, 0);
      const rounds = num(x.rounds);
      return {
        run: x.run,
        episodes,
        mode_shares: Object.fromEntries(Object.entries(counts).map(([m, k]) => [m, k / episodes])),
        model_primitive: usage.filter((u) => u.run === x.run).map((u) => ({ model: u.model, primitive: u.primitive, n: num(u.n) })),
        mean_rounds_per_planned_episode: num(x.planned) ? rounds / num(x.planned) : 0,
        mean_subtasks_per_round: rounds ? num(x.subtasks) / rounds : 0,
      };
    }),
  };
}
