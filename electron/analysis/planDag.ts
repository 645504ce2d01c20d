/**
 * `plan-dag` (DESIGN §8, Uno-Orchestra seed 004): for one episode, each round's DAG of subtasks (model,
 * primitive, status; depends_on edges) and its behaviour mode; across runs, the behaviour-mode shares, the
 * model × primitive usage and the shape of the plans (rounds per episode, subtasks per round).
 */
import type { PlanDagEpisodeResult, PlanDagSummaryResult, PlanRound } from '../../shared/analysisResults.ts';
import { behaviourMode, BEHAVIOUR_MODES, type BehaviourMode } from '../../shared/behaviourModes.ts';
import type { Db } from '../db/dbHandle.ts';
import { selectEpisodes, columnar } from './columnar.ts';

export type { PlanRound } from '../../shared/analysisResults.ts';

/** The behaviour mode of each episode, from its turns' verdicts and how many subtasks each turn planned. */
function modesOf(db: Db): (episodeId: number) => BehaviourMode | null {
  const statement = db.prepare(`SELECT t.verdict, (SELECT COUNT(*) FROM plan_nodes p WHERE p.turn_id = t.id) AS planned
    FROM turns t WHERE t.episode_id = ? ORDER BY t.t`);
  return (episodeId) => {
    const turns = statement.all(episodeId) as { verdict: 'stop' | 'continue' | null; planned: number }[];
    return behaviourMode(turns.map((t) => ({ planSubtasks: t.planned > 0 ? t.planned : null, verdict: t.verdict })));
  };
}

export function planDagEpisode(db: Db, episodeId: number, extId: string): PlanDagEpisodeResult {
  const nodes = db
    .prepare(`SELECT p.round, p.subtask_id AS id, m.name AS model, p.primitive, p.status FROM plan_nodes p
      LEFT JOIN models m ON m.id = p.model_id WHERE p.episode_id = ? ORDER BY p.round, p.id`)
    .all(episodeId) as ({ round: number } & PlanRound['nodes'][number])[];
  const edges = db.prepare('SELECT round, src, dst FROM plan_edges WHERE episode_id = ? ORDER BY round, rowid').all(episodeId) as {
    round: number;
    src: string;
    dst: string;
  }[];
  const rounds = new Map<number, PlanRound>();
  for (const { round, ...node } of nodes) {
    let r = rounds.get(round);
    if (!r) rounds.set(round, (r = { round, nodes: [], edges: [] }));
    r.nodes.push(node);
  }
  for (const e of edges) rounds.get(e.round)?.edges.push([e.src, e.dst]);
  return { episode: extId, mode: modesOf(db)(episodeId), rounds: [...rounds.values()] };
}

/**
 * The behaviour mode of every episode of a run, from one pass over its turns. plan_nodes has no index on
 * turn_id, so counting each turn's subtasks with a subquery per turn (modesOf) scanned the table once per
 * turn: 1.0 s for 1,500 Uno episodes in a 527k-turn database, ~20 ms this way.
 */
function modesOfRun(db: Db, runId: number): Map<number, BehaviourMode | null> {
  const rows = db
    .prepare(`SELECT t.episode_id, t.verdict, COALESCE(pc.n, 0) FROM turns t
      LEFT JOIN (SELECT turn_id, COUNT(*) AS n FROM plan_nodes WHERE turn_id IS NOT NULL GROUP BY turn_id) pc ON pc.turn_id = t.id
      WHERE t.episode_id IN (SELECT id FROM episodes WHERE run_id = ?) ORDER BY t.episode_id, t.t`)
    .raw()
    .all(runId) as [number, 'stop' | 'continue' | null, number][];
  const turns = new Map<number, { planSubtasks: number | null; verdict: 'stop' | 'continue' | null }[]>();
  for (const [episode, verdict, planned] of rows) {
    let list = turns.get(episode);
    if (!list) turns.set(episode, (list = []));
    list.push({ planSubtasks: planned > 0 ? planned : null, verdict });
  }
  return new Map([...turns].map(([episode, list]) => [episode, behaviourMode(list)]));
}

export function planDagSummary(db: Db, options: { runs?: string[]; split?: string } = {}): PlanDagSummaryResult {
  const data = columnar(db);
  const selected = new Set([...selectEpisodes(data, options.runs, options.split)].map((e) => data.episodeId[e] as number));
  const runOf = new Map<number, string>();
  for (const e of selectEpisodes(data, options.runs, options.split)) runOf.set(data.episodeId[e] as number, data.runs.get(data.episodeRun[e] as number) ?? '');
  const planEpisodes = db.prepare('SELECT DISTINCT episode_id FROM plan_nodes').pluck().all() as number[];
  const planRuns = new Set(planEpisodes.filter((id) => selected.has(id)).map((id) => runOf.get(id)));
  const runIds = new Map([...data.runs].map(([id, name]) => [name, id]));
  const out = [];
  for (const run of [...planRuns].sort() as string[]) {
    const episodes = [...runOf].filter(([id, r]) => r === run && selected.has(id)).map(([id]) => id);
    const modes: Record<string, number> = Object.fromEntries([...BEHAVIOUR_MODES, 'none'].map((m) => [m, 0]));
    const modeOf = modesOfRun(db, runIds.get(run) as number);
    for (const id of episodes) {
      const mode = modeOf.get(id) ?? 'none';
      modes[mode] = (modes[mode] as number) + 1;
    }
    const placeholders = episodes.map(() => '?').join(',');
    const usage = db
      .prepare(`SELECT m.name AS model, p.primitive, COUNT(*) AS n FROM plan_nodes p LEFT JOIN models m ON m.id = p.model_id
        WHERE p.episode_id IN (${placeholders}) GROUP BY p.model_id, p.primitive ORDER BY n DESC`)
      .all(...episodes) as { model: string | null; primitive: string | null; n: number }[];
    const shape = db
      .prepare(`SELECT COUNT(DISTINCT episode_id || ':' || round) AS rounds, COUNT(*) AS subtasks, COUNT(DISTINCT episode_id) AS planned
        FROM plan_nodes WHERE episode_id IN (${placeholders})`)
      .get(...episodes) as { rounds: number; subtasks: number; planned: number };
    out.push({
      run,
      episodes: episodes.length,
      mode_shares: Object.fromEntries(Object.entries(modes).map(([m, k]) => [m, k / episodes.length])),
      model_primitive: usage,
      mean_rounds_per_planned_episode: shape.planned ? shape.rounds / shape.planned : 0,
      mean_subtasks_per_round: shape.rounds ? shape.subtasks / shape.rounds : 0,
    });
  }
  return { runs: out };
}
