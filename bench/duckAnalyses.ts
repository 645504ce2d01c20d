/**
 * The analyses baseline (DESIGN §11): DuckDB (@duckdb/node-api, in memory, all cores) computing each analysis's
 * aggregation over the same data, returning the same result shape as ours so the two can be checked equal
 * before a ratio is reported.
 *
 * Loading (timed apart, never in a ratio): the numeric episode and turn columns are read from the SQLite
 * database — not from our columnar cache, so the check also covers the cache's loading — written as CSV and
 * read into DuckDB tables. turns is stored in (episode, turn) order with its position in the episode and
 * the episode's run copied onto it, as an analyst tuning DuckDB for these queries would. lift's bootstrap
 * weights (which episodes each replicate draws, from the same seeded generator as ours) are loaded as a
 * table too, so both sides resample the same episodes; drawing them is inside our timed call, not DuckDB's.
 */
import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { wilsonInterval } from '../shared/formulas.ts';
import { bootstrapMeanInterval } from '../shared/bootstrapMean.ts';
import { agreedTargets } from '../electron/analysis/usageTargets.ts';
import { openDatabase } from '../electron/db/database.ts';
import { mulberry32 } from '../shared/random.ts';
import { LIFT_BOOTSTRAP, LIFT_SEED } from './ourAnalyses.ts';

type Row = Record<string, unknown>;

const csvField = (v: unknown): string => {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return `"${v.replace(/"/g, '""')}"`;
  return String(v);
};

/** Streams rows to a CSV file in 1 MB writes. */
function writeCsv(path: string, header: string[], rows: Iterable<unknown[]>): void {
  const fd = openSync(path, 'w');
  try {
    let chunk = `${header.join(',')}\n`;
    for (const r of rows) {
      chunk += `${r.map(csvField).join(',')}\n`;
      if (chunk.length > 1 << 20) {
        writeSync(fd, chunk);
        chunk = '';
      }
    }
    writeSync(fd, chunk);
  } finally {
    closeSync(fd);
  }
}

/** Bootstrap weights exactly as liftAnalysis draws them: per replicate, n draws of an episode index. */
function* bootstrapWeights(episodeIds: number[], replicates: number, seed: number): Generator<number[]> {
  const n = episodeIds.length;
  const random = mulberry32(seed);
  const weights = new Uint16Array(n);
  for (let b = 0; b < replicates; b++) {
    weights.fill(0);
    for (let k = 0; k < n; k++) {
      const pick = Math.floor(random() * n);
      weights[pick] = (weights[pick] as number) + 1;
    }
    for (let k = 0; k < n; k++) if (weights[k] !== 0) yield [b, episodeIds[k] as number, weights[k] as number];
  }
}

export class DuckBaseline {
  private constructor(
    private readonly instance: DuckDBInstance,
    private readonly con: DuckDBConnection,
    readonly loadSeconds: number,
  ) {}

  static async load(sqlitePath: string, workDir: string): Promise<DuckBaseline> {
    const t0 = performance.now();
    const db = openDatabase(sqlitePath, { readonly: true });
    const files = {
      runs: join(workDir, 'duck-runs.csv'),
      models: join(workDir, 'duck-models.csv'),
      episodes: join(workDir, 'duck-episodes.csv'),
      turns: join(workDir, 'duck-turns.csv'),
      weights: join(workDir, 'duck-weights.csv'),
      targets: join(workDir, 'duck-targets.csv'),
    };
    let episodeIds: number[];
    try {
      writeCsv(files.runs, ['id', 'name'], db.prepare('SELECT id, name FROM runs').raw().iterate() as Iterable<unknown[]>);
      writeCsv(files.models, ['id', 'name'], db.prepare('SELECT id, name FROM models').raw().iterate() as Iterable<unknown[]>);
      // The usage targets ρ the logs state (episode_text.detail), as distinct JSON texts per run.
      writeCsv(
        files.targets,
        ['run_id', 'targets'],
        db
          .prepare(`SELECT DISTINCT e.run_id, json_extract(x.detail, '$.usage_targets') FROM episode_text x JOIN episodes e ON e.id = x.episode_id
            WHERE x.detail LIKE '%"usage_targets"%'`)
          .raw()
          .iterate() as Iterable<unknown[]>,
      );
      writeCsv(
        files.episodes,
        ['id', 'run_id', 'ext_id', 'success', 'score_norm', 'total_cost', 'difficulty', 'budget_mode', 'train_step', 'max_turns', 'unpriced', 'child'],
        db
          .prepare(`SELECT id, run_id, ext_id, success, score_norm, total_cost, difficulty, budget_mode, train_step, max_turns, unpriced_turns > 0,
            parent_ext_id IS NOT NULL FROM episodes`)
          .raw()
          .iterate() as Iterable<unknown[]>,
      );
      writeCsv(
        files.turns,
        ['episode_id', 'run_id', 't', 'model_id', 'category', 'cost', 'severity', 'switched', 'verdict', 'verify_correct'],
        db
          .prepare(`SELECT t.episode_id, e.run_id, t.t, t.model_id, COALESCE(t.tool, t.action_type), CASE WHEN t.cost_source = 'none' THEN NULL ELSE t.cost END,
            t.max_severity, t.switched,
            t.verdict, t.verify_correct FROM turns t JOIN episodes e ON e.id = t.episode_id ORDER BY t.episode_id, t.t`)
          .raw()
          .iterate() as Iterable<unknown[]>,
      );
      episodeIds = db.prepare('SELECT id FROM episodes ORDER BY id').pluck().all() as number[];
    } finally {
      db.close();
    }
    writeCsv(files.weights, ['b', 'episode_id', 'w'], bootstrapWeights(episodeIds, LIFT_BOOTSTRAP, LIFT_SEED));

    const instance = await DuckDBInstance.create(':memory:');
    const con = await instance.connect();
    const read = (path: string, columns: Record<string, string>): string =>
      `read_csv('${path}', header = true, quote = '"', escape = '"', nullstr = '', columns = {${Object.entries(columns)
        .map(([k, v]) => `'${k}': '${v}'`)
        .join(', ')}})`;
    await con.run(`CREATE TABLE runs AS SELECT * FROM ${read(files.runs, { id: 'INTEGER', name: 'VARCHAR' })}`);
    await con.run(`CREATE TABLE models AS SELECT * FROM ${read(files.models, { id: 'INTEGER', name: 'VARCHAR' })}`);
    await con.run(`CREATE TABLE usage_targets AS SELECT * FROM ${read(files.targets, { run_id: 'INTEGER', targets: 'VARCHAR' })}`);
    // An unknown cost is NULL, as the columnar cache's NaN. Child episodes are left out of episode-level answers;
    // folding their cost into the parent's is not reproduced here (the bench datasets have none).
    await con.run(`CREATE TABLE episodes AS SELECT id, run_id, ext_id, success, score_norm, CASE WHEN unpriced = 1 THEN NULL ELSE total_cost END AS total_cost,
        TRY_CAST(NULLIF(trim(difficulty), '') AS DOUBLE) AS difficulty, budget_mode, train_step, max_turns, child = 1 AS child
      FROM ${read(files.episodes, { id: 'INTEGER', run_id: 'INTEGER', ext_id: 'VARCHAR', success: 'TINYINT', score_norm: 'DOUBLE', total_cost: 'DOUBLE', difficulty: 'VARCHAR', budget_mode: 'VARCHAR', train_step: 'INTEGER', max_turns: 'INTEGER', unpriced: 'TINYINT', child: 'TINYINT' })}
      ORDER BY id`);
    await con.run(`CREATE TABLE turns AS SELECT episode_id, run_id,
        (row_number() OVER (PARTITION BY episode_id ORDER BY t) - 1)::INTEGER AS pos,
        model_id, category, cost, severity, switched, verdict, verify_correct
      FROM ${read(files.turns, { episode_id: 'INTEGER', run_id: 'INTEGER', t: 'INTEGER', model_id: 'INTEGER', category: 'VARCHAR', cost: 'DOUBLE', severity: 'TINYINT', switched: 'TINYINT', verdict: 'VARCHAR', verify_correct: 'TINYINT' })}
      ORDER BY episode_id, pos`);
    await con.run(`CREATE TABLE weights AS SELECT * FROM ${read(files.weights, { b: 'SMALLINT', episode_id: 'INTEGER', w: 'SMALLINT' })}`);
    for (const f of Object.values(files)) rmSync(f, { force: true });
    return new DuckBaseline(instance, con, (performance.now() - t0) / 1000);
  }

  private async rows(sql: string): Promise<Row[]> {
    const reader = await this.con.runAndReadAll(sql);
    return reader.getRowObjectsJS() as Row[];
  }

  async threads(): Promise<number> {
    const [row] = await this.rows("SELECT current_setting('threads') AS n");
    return Number(row?.n);
  }

  close(): void {
    this.con.closeSync();
    this.instance.closeSync();
  }

  /** The analysis `id`'s result, in the shape our function returns. */
  run(id: string): Promise<unknown> {
    const f = QUERIES[id];
    if (!f) throw new Error(`no DuckDB baseline for ${id}`);
    return f((sql) => this.rows(sql));
  }
}

type Query = (rows: (sql: string) => Promise<Row[]>) => Promise<unknown>;
const num = (v: unknown): number => Number(v);
const share = (k: number, n: number): number | null => (n === 0 ? null : k / n);
const coverageOf = (c: Row | undefined) => ({ episodes: num(c?.episodes ?? 0), unknown_outcome: num(c?.unknown_outcome ?? 0), unknown_cost: num(c?.unknown_cost ?? 0) });

const QUERIES: Record<string, Query> = {
  async pareto(rows) {
    const points = (
      await rows(`SELECT r.name AS run, count(*) AS n, avg(e.score_norm) AS mean_score, avg(e.total_cost) AS mean_cost
        FROM episodes e JOIN runs r ON r.id = e.run_id WHERE e.score_norm IS NOT NULL AND e.total_cost IS NOT NULL AND NOT e.child GROUP BY r.name`)
    ).map((p) => ({ run: String(p.run), n: num(p.n), mean_score: num(p.mean_score), mean_cost: num(p.mean_cost) }));
    const [c] = await rows(`SELECT count(*) AS episodes, count(*) FILTER (WHERE score_norm IS NULL) AS unknown_outcome,
        count(*) FILTER (WHERE score_norm IS NOT NULL AND total_cost IS NULL) AS unknown_cost FROM episodes WHERE NOT child`);
    return {
      coverage: coverageOf(c),
      reference: null,
      points: points
        .map((p) => ({
          ...p,
          frontier: !points.some(
            (q) => q !== p && q.mean_score >= p.mean_score && q.mean_cost <= p.mean_cost && (q.mean_score > p.mean_score || q.mean_cost < p.mean_cost),
          ),
          savings_vs_reference: null,
          score_delta_vs_reference: null,
        }))
        .sort((a, b) => a.mean_cost - b.mean_cost),
    };
  },

  async 'switch-cost'(rows) {
    const [episodes, curve] = [
      await rows(`SELECT r.name AS run, e.ext_id, e.total_cost, count(t.pos) AS turns, coalesce(sum(t.switched), 0) AS switches
        FROM episodes e JOIN runs r ON r.id = e.run_id LEFT JOIN turns t ON t.episode_id = e.id
        WHERE e.success = 1 AND e.total_cost IS NOT NULL AND NOT e.child GROUP BY e.id, r.name, e.ext_id, e.total_cost ORDER BY e.id`),
      await rows(`SELECT r.name AS run, c.pos, avg(c.cum) AS mean, count(*) AS n
        FROM (SELECT run_id, pos, sum(cost) OVER (PARTITION BY episode_id ORDER BY pos ROWS UNBOUNDED PRECEDING) AS cum
              FROM turns WHERE episode_id IN (SELECT id FROM episodes WHERE success = 1 AND NOT child)
                AND episode_id NOT IN (SELECT episode_id FROM turns WHERE cost IS NULL)) c
        JOIN runs r ON r.id = c.run_id GROUP BY r.name, c.pos ORDER BY r.name, c.pos`),
    ];
    const [c] = await rows(`SELECT count(*) AS episodes, count(*) FILTER (WHERE success IS NULL) AS unknown_outcome,
        count(*) FILTER (WHERE success = 1 AND total_cost IS NULL) AS unknown_cost FROM episodes WHERE NOT child`);
    const byRun = new Map<string, { episodes: unknown[]; mean_cumulative_cost: unknown[] }>();
    const get = (run: string) => byRun.get(run) ?? (byRun.set(run, { episodes: [], mean_cumulative_cost: [] }).get(run) as { episodes: unknown[]; mean_cumulative_cost: unknown[] });
    for (const e of episodes) get(String(e.run)).episodes.push({ episode: e.ext_id, switches: num(e.switches), cost: num(e.total_cost), turns: num(e.turns) });
    for (const c of curve) get(String(c.run)).mean_cumulative_cost.push({ t: num(c.pos), mean: num(c.mean), n: num(c.n) });
    return { runs: [...byRun].map(([run, g]) => ({ run, ...g })).sort((a, b) => a.run.localeCompare(b.run)), coverage: coverageOf(c) };
  },

  async 'error-recovery'(rows) {
    // The next turn of an error turn by a join on (episode, position + 1): faster here than lead() over a window.
    const groups = await rows(`SELECT r.name AS run, count(*) AS n,
        count(*) FILTER (WHERE b.model_id <> a.model_id) AS sw,
        count(*) FILTER (WHERE b.severity = 0) AS rec,
        count(*) FILTER (WHERE b.model_id = a.model_id) AS stay,
        count(*) FILTER (WHERE b.model_id = a.model_id AND b.severity = 0) AS rec_stay,
        count(*) FILTER (WHERE b.model_id <> a.model_id AND b.severity = 0) AS rec_sw
      FROM turns a JOIN turns b ON b.episode_id = a.episode_id AND b.pos = a.pos + 1
      JOIN runs r ON r.id = a.run_id WHERE a.severity > 0 GROUP BY r.name`);
    const seen = new Set(groups.map((g) => String(g.run)));
    // Runs with turns but no error pair are groups with n = 0, as ours reports them.
    for (const r of await rows('SELECT DISTINCT r.name AS run FROM turns t JOIN runs r ON r.id = t.run_id')) {
      if (!seen.has(String(r.run))) groups.push({ run: r.run, n: 0, sw: 0, rec: 0, stay: 0, rec_stay: 0, rec_sw: 0 });
    }
    return {
      groups: groups
        .map((g) => {
          const [n, sw, rec, stay, recStay, recSw] = [g.n, g.sw, g.rec, g.stay, g.rec_stay, g.rec_sw].map(num) as [number, number, number, number, number, number];
          return {
            run: String(g.run),
            n,
            p_switch: share(sw, n),
            p_recover: share(rec, n),
            p_recover_stay: share(recStay, stay),
            p_recover_switch: share(recSw, sw),
            n_stay: stay,
            n_switch: sw,
            ci: {
              p_switch: wilsonInterval(sw, n),
              p_recover: wilsonInterval(rec, n),
              p_recover_stay: wilsonInterval(recStay, stay),
              p_recover_switch: wilsonInterval(recSw, sw),
            },
          };
        })
        .sort((a, b) => a.run.localeCompare(b.run)),
    };
  },

  async 'usage-by-turn'(rows) {
    const counts = await rows(`SELECT r.name AS run, u.pos, m.name AS model, u.model_id, u.c
      FROM (SELECT run_id, pos, model_id, count(*) AS c FROM turns GROUP BY ALL) u
      JOIN runs r ON r.id = u.run_id JOIN models m ON m.id = u.model_id ORDER BY r.name, u.pos, u.model_id`);
    const runs = new Map<string, Map<number, { n: number; counts: [string, number][] }>>();
    for (const row of counts) {
      const run = String(row.run);
      const perT = runs.get(run) ?? (runs.set(run, new Map()).get(run) as Map<number, { n: number; counts: [string, number][] }>);
      const t = num(row.pos);
      const cell = perT.get(t) ?? (perT.set(t, { n: 0, counts: [] }).get(t) as { n: number; counts: [string, number][] });
      cell.n += num(row.c);
      cell.counts.push([String(row.model), num(row.c)]);
    }
    return {
      runs: [...runs].map(([run, perT]) => ({
        run,
        turns: [...perT].map(([t, c]) => ({ t, n: c.n, shares: Object.fromEntries(c.counts.map(([m, k]) => [m, k / c.n])) })),
      })),
    };
  },

  async lift(rows) {
    // Point estimate over all turns; intervals over the bootstrap replicates, every (model, category) of a
    // replicate whose model and category both occur in it (a cell with no turns there has lift 0).
    const cells = await rows(`
      WITH point AS (SELECT model_id, category, count(*)::DOUBLE AS n FROM turns GROUP BY ALL),
      lifted AS (SELECT model_id, category, n,
          n / sum(n) OVER (PARTITION BY category) / (sum(n) OVER (PARTITION BY model_id) / sum(n) OVER ()) AS lift FROM point),
      per_episode AS (SELECT episode_id, model_id, category, count(*) AS c FROM turns GROUP BY ALL),
      rep AS (SELECT w.b, p.model_id, p.category, sum(p.c * w.w)::DOUBLE AS n FROM per_episode p JOIN weights w USING (episode_id) GROUP BY ALL),
      rm AS (SELECT b, model_id, sum(n) AS nm FROM rep GROUP BY ALL),
      rc AS (SELECT b, category, sum(n) AS nc FROM rep GROUP BY ALL),
      rt AS (SELECT b, sum(n) AS total FROM rep GROUP BY ALL),
      grid AS (SELECT rm.b, rm.model_id, rc.category, coalesce(rep.n, 0) / rc.nc / (rm.nm / rt.total) AS lift
        FROM rm JOIN rc USING (b) JOIN rt USING (b) LEFT JOIN rep USING (b, model_id, category)),
      ci AS (SELECT model_id, category, quantile_cont(lift, 0.025) AS lo, quantile_cont(lift, 0.975) AS hi FROM grid GROUP BY ALL)
      SELECT m.name AS model, l.category, l.lift, ci.lo, ci.hi, l.n FROM lifted l JOIN ci USING (model_id, category)
      JOIN models m ON m.id = l.model_id WHERE l.n >= 30 ORDER BY l.model_id, l.category`);
    return { cells: cells.map((c) => ({ model: String(c.model), category: String(c.category), lift: num(c.lift), ci: [num(c.lo), num(c.hi)], n: num(c.n) })) };
  },

  async 'usage-ratio'(rows) {
    const [calls, limits] = [
      await rows(`SELECT r.name AS run, m.name AS model, u.c FROM (SELECT run_id, model_id, count(*) AS c FROM turns GROUP BY ALL) u
        JOIN runs r ON r.id = u.run_id JOIN models m ON m.id = u.model_id`),
      await rows(`SELECT r.name AS run, e.max_turns, count(*) FILTER (WHERE e.success IS NOT NULL) AS n, count(*) FILTER (WHERE e.success = 1) AS ok,
          count(*) FILTER (WHERE coalesce(k.nt, 0) >= e.max_turns) AS exhausted, count(*) AS with_limit
        FROM episodes e JOIN runs r ON r.id = e.run_id LEFT JOIN (SELECT episode_id, count(*) AS nt FROM turns GROUP BY 1) k ON k.episode_id = e.id
        WHERE e.max_turns > 0 AND NOT e.child GROUP BY ALL`),
    ];
    const [c] = await rows(`SELECT count(*) AS episodes, count(*) FILTER (WHERE success IS NULL) AS unknown_outcome, 0 AS unknown_cost
        FROM episodes WHERE max_turns > 0 AND NOT child`);
    const stated = new Map<string, string[]>();
    for (const t of await rows('SELECT r.name AS run, u.targets FROM usage_targets u JOIN runs r ON r.id = u.run_id')) {
      stated.set(String(t.run), [...(stated.get(String(t.run)) ?? []), String(t.targets)]);
    }
    const runs = new Map<string, { usage: { model: string; calls: number }[]; limits: Row[] }>();
    const get = (run: string) => runs.get(run) ?? (runs.set(run, { usage: [], limits: [] }).get(run) as { usage: { model: string; calls: number }[]; limits: Row[] });
    for (const c of calls) get(String(c.run)).usage.push({ model: String(c.model), calls: num(c.c) });
    for (const l of limits) get(String(l.run)).limits.push(l);
    return {
      runs: [...runs]
        .map(([run, g]) => {
          const total = g.usage.reduce((a, u) => a + u.calls, 0);
          const withLimit = g.limits.reduce((a, l) => a + num(l.with_limit), 0);
          const exhausted = g.limits.reduce((a, l) => a + num(l.exhausted), 0);
          const logged = agreedTargets(stated.get(run) ?? []);
          return {
            run,
            calls: total,
            usage: g.usage
              .sort((a, b) => b.calls - a.calls)
              .map((u) => {
                const rho = logged && Object.hasOwn(logged, u.model) ? (logged[u.model] as number) : null;
                return { ...u, ratio: u.calls / total, rho, over_target: rho === null ? null : u.calls / total > rho, ...(rho === null ? {} : { rho_from: 'log' }) };
              }),
            accuracy_by_max_turns: g.limits
              .map((l) => ({ max_turns: num(l.max_turns), n: num(l.n), accuracy: num(l.n) ? num(l.ok) / num(l.n) : null }))
              .sort((a, b) => a.max_turns - b.max_turns),
            exhausted_turn_budget: withLimit ? exhausted / withLimit : null,
            ...(logged ? { logged_rho: logged } : {}),
          };
        })
        .sort((a, b) => a.run.localeCompare(b.run)),
      coverage: coverageOf(c),
    };
  },

  async confusion(rows) {
    const [routing, verify] = [
      await rows(`SELECT e.difficulty, m.name AS model, count(*) AS c FROM turns t JOIN episodes e ON e.id = t.episode_id
        JOIN models m ON m.id = t.model_id WHERE e.difficulty IS NOT NULL GROUP BY e.difficulty, t.model_id, m.name ORDER BY e.difficulty, t.model_id`),
      await rows(`SELECT verdict, verify_correct, count(*) AS c FROM turns WHERE verdict IN ('stop', 'continue') AND verify_correct IS NOT NULL GROUP BY ALL`),
    ];
    const rowsByD = new Map<number, [string, number][]>();
    for (const r of routing) {
      const d = num(r.difficulty);
      (rowsByD.get(d) ?? (rowsByD.set(d, []).get(d) as [string, number][])).push([String(r.model), num(r.c)]);
    }
    const verification = { stop_correct: 0, stop_incorrect: 0, continue_correct: 0, continue_incorrect: 0 };
    for (const v of verify) verification[`${String(v.verdict)}_${num(v.verify_correct) === 1 ? 'correct' : 'incorrect'}` as keyof typeof verification] = num(v.c);
    return {
      routing: [...rowsByD].map(([difficulty, counts]) => {
        const n = counts.reduce((a, [, k]) => a + k, 0);
        return { difficulty, n, shares: Object.fromEntries(counts.map(([m, k]) => [m, k / n])) };
      }),
      verification,
    };
  },

  async 'budget-modes'(rows) {
    const groups = await rows(`
      WITH first AS (SELECT episode_id, model_id AS m0 FROM turns WHERE pos = 0),
      expert AS (SELECT t.episode_id, bool_or(t.model_id <> f.m0) AS expert FROM turns t JOIN first f USING (episode_id) GROUP BY 1)
      SELECT e.budget_mode AS mode, e.train_step, grouping(e.train_step) AS all_steps, count(*) AS n, avg(e.score_norm) AS mean_score,
        avg(e.total_cost) AS mean_cost, avg(CASE WHEN x.expert THEN 1 ELSE 0 END) AS ratio, sum(CASE WHEN x.expert THEN 1 ELSE 0 END) AS experts,
        coalesce(list(e.score_norm) FILTER (WHERE e.score_norm IS NOT NULL), []) AS scores,
        coalesce(list(e.total_cost) FILTER (WHERE e.total_cost IS NOT NULL), []) AS costs
      FROM episodes e LEFT JOIN expert x ON x.episode_id = e.id WHERE e.budget_mode IS NOT NULL AND NOT e.child
      GROUP BY GROUPING SETS ((e.budget_mode), (e.budget_mode, e.train_step))`);
    const [c] = await rows(`SELECT count(*) AS episodes, count(*) FILTER (WHERE score_norm IS NULL) AS unknown_outcome,
        count(*) FILTER (WHERE total_cost IS NULL) AS unknown_cost FROM episodes WHERE budget_mode IS NOT NULL AND NOT child`);
    const without = await rows(`SELECT r.name AS run FROM episodes e JOIN runs r ON r.id = e.run_id WHERE NOT e.child
        GROUP BY r.name HAVING count(e.budget_mode) = 0 ORDER BY r.name`);
    // The intervals resample the values the same way the analysis does (shared/bootstrapMean.ts).
    const values = (v: unknown): number[] => (Array.isArray(v) ? v.map(num) : []);
    const summary = (g: Row) => ({
      n: num(g.n),
      mean_score: g.mean_score === null ? null : num(g.mean_score),
      mean_cost: g.mean_cost === null ? null : num(g.mean_cost),
      expert_call_ratio: num(g.ratio),
      ci: {
        mean_score: bootstrapMeanInterval(values(g.scores)),
        mean_cost: bootstrapMeanInterval(values(g.costs)),
        expert_call_ratio: num(g.n) ? wilsonInterval(num(g.experts), num(g.n)) : null,
      },
    });
    const order = ['low', 'medium', 'high'];
    const rank = (m: string): number => (order.includes(m) ? order.indexOf(m) : order.length);
    return {
      modes: groups
        .filter((g) => num(g.all_steps) === 1)
        .map((g) => ({
          mode: String(g.mode),
          ...summary(g),
          by_train_step: groups
            .filter((s) => num(s.all_steps) === 0 && s.mode === g.mode && s.train_step !== null && num(s.train_step) >= 0)
            .map((s) => ({ train_step: num(s.train_step), ...summary(s) }))
            .sort((a, b) => a.train_step - b.train_step),
        }))
        .sort((a, b) => rank(a.mode) - rank(b.mode) || a.mode.localeCompare(b.mode)),
      ...(without.length ? { runs_without_modes: without.map((r) => String(r.run)).sort((a, b) => a.localeCompare(b)) } : {}),
      coverage: coverageOf(c),
    };
  },
};
