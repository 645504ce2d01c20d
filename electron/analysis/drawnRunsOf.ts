/**
 * What `runAnalysis` adds for drawing on a SQLite database: which runs of the selection figures draw
 * (shared/drawnRuns.ts), and the task types behind each Pareto point. Sessions are counted as the
 * episode-level analyses count them: once, at their root episode.
 */
import { pickDrawnRuns, type RunWeight } from '../../shared/drawnRuns.ts';
import type { Db } from '../db/dbHandle.ts';
import { columnar, selectEpisodes } from './columnar.ts';

/** The selection's runs with an episode, weighed by sessions and sessions with a known outcome. */
export function runWeights(db: Db, runs: string[] | undefined, split: string | undefined): RunWeight[] {
  const data = columnar(db);
  const byRun = new Map<number, RunWeight>();
  for (const e of selectEpisodes(data, runs, split)) {
    const id = data.episodeRun[e] as number;
    let w = byRun.get(id);
    if (!w) byRun.set(id, (w = { run: data.runs.get(id) ?? String(id), sessions: 0, scored: 0 }));
    if ((data.episodeParent[e] as number) >= 0) continue;
    w.sessions++;
    if (!Number.isNaN(data.episodeScoreNorm[e] as number)) w.scored++;
  }
  return [...byRun.values()];
}

export function drawnRunsOf(db: Db, runs: string[] | undefined, split: string | undefined, chosen: string[] | undefined): string[] {
  return pickDrawnRuns(runWeights(db, runs, split), chosen);
}

/** Per run, the task types of the sessions a Pareto point averages (known outcome and cost), by name. */
export function paretoTaskTypes(db: Db, runs: string[] | undefined, split: string | undefined): Map<string, string[]> {
  const data = columnar(db);
  const typeOf = new Map(
    (db.prepare('SELECT id, task_type FROM episodes WHERE task_type IS NOT NULL').all() as { id: number; task_type: string }[]).map((r) => [r.id, r.task_type]),
  );
  const byRun = new Map<string, Set<string>>();
  for (const e of selectEpisodes(data, runs, split)) {
    if ((data.episodeParent[e] as number) >= 0 || Number.isNaN(data.episodeScoreNorm[e] as number) || Number.isNaN(data.episodeCost[e] as number)) continue;
    const type = typeOf.get(data.episodeId[e] as number);
    if (type === undefined) continue;
    const run = data.runs.get(data.episodeRun[e] as number) ?? '';
    let set = byRun.get(run);
    if (!set) byRun.set(run, (set = new Set()));
    set.add(type);
  }
  return new Map([...byRun].map(([run, types]) => [run, [...types].sort((a, b) => a.localeCompare(b))]));
}
