/**
 * The compare benchmark's baseline (issue 18 item 8): DuckDB (@duckdb/node-api, in memory, all cores) computing
 * the paired per-task table of two sides — per-task averages on each side, joined by task id, the B − A deltas,
 * the winner of each task, wins/ties and the McNemar counts — and returning it in the shape `pairedTableOf`
 * makes of our answer, so the two can be checked equal before they are timed.
 *
 * Loading (timed apart, never in the ratio): the two sides' episodes are read from the SQLite database and
 * appended to a DuckDB table, an unknown cost as NULL. Child episodes (subagents) would fold into their parent's
 * session; the bench database has none, and loading refuses a database that has any rather than answer
 * differently from ours.
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import type { CompareResult, CompareTask } from '../shared/apiCompare.ts';
import { openDatabase } from '../electron/db/database.ts';

/** Within this, two per-task values are a tie (what Compare uses). */
const TIE = 1e-9;

export type PairedTask = Pick<
  CompareTask,
  'task_id' | 'a_n' | 'b_n' | 'a_success' | 'b_success' | 'a_score' | 'b_score' | 'a_cost' | 'b_cost' | 'd_score' | 'd_cost' | 'winner' | 'a_episode' | 'b_episode'
>;

/** What both sides compute: the paired table's totals and its first rows by task id. */
export interface PairedTable {
  paired_tasks: number;
  wins: CompareResult['stats']['wins'];
  success: { n: number; both: number; a_only: number; b_only: number; neither: number } | null;
  score: { n: number; mean_diff: number } | null;
  cost: { n: number; mean_diff: number; n_unknown: number } | null;
  tasks: PairedTask[];
}

/** Our answer reduced to the paired table (the bootstrap intervals, attribution and p-value have no DuckDB twin). */
export function pairedTableOf(r: CompareResult): PairedTable {
  const s = r.stats;
  return {
    paired_tasks: r.pairing.paired_tasks,
    wins: s.wins,
    success: s.success && { n: s.success.n, both: s.success.both, a_only: s.success.a_only, b_only: s.success.b_only, neither: s.success.neither },
    score: s.score && { n: s.score.n, mean_diff: s.score.mean_diff },
    cost: s.cost && { n: s.cost.n, mean_diff: s.cost.mean_diff, n_unknown: s.cost.n_unknown },
    tasks: r.tasks.map((t) => ({
      task_id: t.task_id,
      a_n: t.a_n,
      b_n: t.b_n,
      a_success: t.a_success,
      b_success: t.b_success,
      a_score: t.a_score,
      b_score: t.b_score,
      a_cost: t.a_cost,
      b_cost: t.b_cost,
      d_score: t.d_score,
      d_cost: t.d_cost,
      winner: t.winner,
      a_episode: t.a_episode,
      b_episode: t.b_episode,
    })),
  };
}

type Row = Record<string, unknown>;
const num = (v: unknown): number => Number(v);
const maybe = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const ids = (runIds: readonly number[]): string => runIds.map((id) => String(Math.trunc(id))).join(', ');

export class DuckCompare {
  private constructor(
    private readonly instance: DuckDBInstance,
    private readonly con: DuckDBConnection,
    readonly loadMs: number,
  ) {}

  static async load(sqlitePath: string, runIds: readonly number[]): Promise<DuckCompare> {
    const t0 = performance.now();
    const instance = await DuckDBInstance.create(':memory:');
    const con = await instance.connect();
    await con.run('CREATE TABLE episodes (id INTEGER, run_id INTEGER, task_id VARCHAR, success TINYINT, score DOUBLE, cost DOUBLE)');
    const db = openDatabase(sqlitePath, { readonly: true });
    try {
      const inRuns = `run_id IN (${ids(runIds)})`;
      const children = db.prepare(`SELECT count(*) FROM episodes WHERE ${inRuns} AND parent_ext_id IS NOT NULL`).pluck().get() as number;
      if (children > 0) throw new Error(`the DuckDB baseline does not fold child episodes into sessions, and these runs have ${children}`);
      const appender = await con.createAppender('episodes');
      const rows = db
        .prepare(`SELECT id, run_id, task_id, success, score_norm, CASE WHEN unpriced_turns > 0 THEN NULL ELSE total_cost END FROM episodes WHERE ${inRuns}`)
        .raw()
        .iterate() as Iterable<[number, number, string | null, number | null, number | null, number | null]>;
      for (const [id, run, task, success, score, cost] of rows) {
        appender.appendInteger(id);
        appender.appendInteger(run);
        if (task === null) appender.appendNull();
        else appender.appendVarchar(task);
        if (success === null) appender.appendNull();
        else appender.appendTinyInt(success);
        if (score === null) appender.appendNull();
        else appender.appendDouble(score);
        if (cost === null) appender.appendNull();
        else appender.appendDouble(cost);
        appender.endRow();
      }
      appender.closeSync();
    } finally {
      db.close();
    }
    return new DuckCompare(instance, con, performance.now() - t0);
  }

  async threads(): Promise<number> {
    return num((await this.rows("SELECT current_setting('threads') AS n"))[0]?.n);
  }

  close(): void {
    this.con.closeSync();
    this.instance.closeSync();
  }

  private async rows(sql: string): Promise<Row[]> {
    return (await this.con.runAndReadAll(sql)).getRowObjectsJS() as Row[];
  }

  /** The paired table of side A's runs against side B's, with its first `limit` rows by task id. */
  async paired(a: readonly number[], b: readonly number[], limit: number): Promise<PairedTable> {
    // A task's cost is known only when every one of its episodes' is; a task succeeds when more than half do.
    await this.con.run(`CREATE OR REPLACE TEMP TABLE pairs AS
      WITH per AS (
        SELECT run_id IN (${ids(a)}) AS is_a, task_id, count(*) AS n, avg(success) AS s, avg(score) AS sc,
          CASE WHEN count(cost) = count(*) THEN avg(cost) END AS c, min(id) AS first
        FROM episodes WHERE task_id IS NOT NULL AND run_id IN (${ids([...a, ...b])}) GROUP BY ALL),
      joined AS (
        SELECT a.task_id, a.n AS a_n, b.n AS b_n, a.s AS a_success, b.s AS b_success, a.sc AS a_score, b.sc AS b_score,
          a.c AS a_cost, b.c AS b_cost, b.sc - a.sc AS d_score, b.c - a.c AS d_cost, a.first AS a_episode, b.first AS b_episode,
          coalesce(b.sc - a.sc, b.s - a.s) AS d_outcome
        FROM per a JOIN per b ON a.task_id = b.task_id AND a.is_a AND NOT b.is_a)
      SELECT *, CASE WHEN d_outcome IS NULL THEN NULL WHEN abs(d_outcome) <= ${TIE} THEN 'tie' WHEN d_outcome > 0 THEN 'b' ELSE 'a' END AS winner
      FROM joined`);
    const [t] = await this.rows(`SELECT count(*) AS paired,
        count(*) FILTER (WHERE winner = 'a') AS wins_a, count(*) FILTER (WHERE winner = 'tie') AS ties, count(*) FILTER (WHERE winner = 'b') AS wins_b,
        count(*) FILTER (WHERE a_success IS NOT NULL AND b_success IS NOT NULL) AS success_n,
        count(*) FILTER (WHERE a_success > 0.5 AND b_success > 0.5) AS both,
        count(*) FILTER (WHERE a_success > 0.5 AND b_success <= 0.5) AS a_only,
        count(*) FILTER (WHERE a_success <= 0.5 AND b_success > 0.5) AS b_only,
        count(*) FILTER (WHERE a_success <= 0.5 AND b_success <= 0.5) AS neither,
        count(d_score) AS score_n, avg(d_score) AS score_diff,
        count(d_cost) AS cost_n, avg(d_cost) AS cost_diff
      FROM pairs`);
    const tasks = await this.rows(`SELECT * FROM pairs ORDER BY task_id LIMIT ${Math.trunc(limit)}`);
    const paired = num(t?.paired);
    const successN = num(t?.success_n);
    const scoreN = num(t?.score_n);
    const costN = num(t?.cost_n);
    return {
      paired_tasks: paired,
      wins: { a: num(t?.wins_a), tie: num(t?.ties), b: num(t?.wins_b) },
      success: successN === 0 ? null : { n: successN, both: num(t?.both), a_only: num(t?.a_only), b_only: num(t?.b_only), neither: num(t?.neither) },
      score: scoreN === 0 ? null : { n: scoreN, mean_diff: num(t?.score_diff) },
      cost: costN === 0 ? null : { n: costN, mean_diff: num(t?.cost_diff), n_unknown: paired - costN },
      tasks: tasks.map((r) => ({
        task_id: String(r.task_id),
        a_n: num(r.a_n),
        b_n: num(r.b_n),
        a_success: maybe(r.a_success),
        b_success: maybe(r.b_success),
        a_score: maybe(r.a_score),
        b_score: maybe(r.b_score),
        a_cost: maybe(r.a_cost),
        b_cost: maybe(r.b_cost),
        d_score: maybe(r.d_score),
        d_cost: maybe(r.d_cost),
        winner: r.winner === null ? null : (String(r.winner) as 'a' | 'b' | 'tie'),
        a_episode: num(r.a_episode),
        b_episode: num(r.b_episode),
      })),
    };
  }
}
