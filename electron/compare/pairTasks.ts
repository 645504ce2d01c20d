/**
 * Aligning two sides by task (issue 18 item 2): each side's sessions are grouped by task id and averaged
 * (epochs, samples), then the task ids both sides have are the pairs. Unknowns stay unknown: a task's success
 * and score are means over the sessions that have them, and its cost is null as soon as one session's cost is
 * unknown (a known part is a lower bound, not a cost). Sessions without a task id cannot be paired.
 */
import type { SidePart } from './compareReads.ts';

/** One side's sessions of one task. */
export interface TaskGroup {
  n: number;
  successSum: number;
  successN: number;
  scoreSum: number;
  scoreN: number;
  costSum: number;
  costUnknown: boolean;
  /** The first session (lowest episode id): the split inspector opens it. */
  firstEpisode: number;
  /** Where the sessions are, for per-task sums over their turns (the counterfactual cost). */
  members: { part: number; index: number }[];
}

export interface SideTasks {
  byTask: Map<string, TaskGroup>;
  /** Sessions without a task id, by the episode id of the log. */
  untasked: string[];
}

/** The cost of session i of a run: its own known cost and its children's; unknown when any call's cost is. */
export function sessionCosts(part: SidePart): { cost: Float64Array; unknown: Uint8Array } {
  const { data } = part;
  const n = data.id.length;
  const cost = Float64Array.from(data.cost);
  const unknown = Uint8Array.from(data.unpriced, (u) => (u > 0 ? 1 : 0));
  for (let i = 0; i < n; i++) {
    const r = data.root[i] as number;
    if (r < 0) continue;
    cost[r]! += data.cost[i] as number;
    if ((data.unpriced[i] as number) > 0) unknown[r] = 1;
  }
  return { cost, unknown };
}

export function groupByTask(parts: SidePart[]): SideTasks {
  const byTask = new Map<string, TaskGroup>();
  const untasked: string[] = [];
  parts.forEach((part, p) => {
    const { data } = part;
    const { cost, unknown } = sessionCosts(part);
    for (const i of part.sessions) {
      const task = data.taskId[i];
      if (task === null || task === undefined) {
        untasked.push(data.extId[i] as string);
        continue;
      }
      let g = byTask.get(task);
      if (!g) {
        g = { n: 0, successSum: 0, successN: 0, scoreSum: 0, scoreN: 0, costSum: 0, costUnknown: false, firstEpisode: data.id[i] as number, members: [] };
        byTask.set(task, g);
      }
      g.n++;
      g.members.push({ part: p, index: i });
      g.firstEpisode = Math.min(g.firstEpisode, data.id[i] as number);
      const s = data.success[i] as number;
      if (s >= 0) {
        g.successSum += s;
        g.successN++;
      }
      const score = data.score[i] as number;
      if (!Number.isNaN(score)) {
        g.scoreSum += score;
        g.scoreN++;
      }
      g.costSum += cost[i] as number;
      if (unknown[i]) g.costUnknown = true;
    }
  });
  return { byTask, untasked };
}

export const meanSuccess = (g: TaskGroup): number | null => (g.successN > 0 ? g.successSum / g.successN : null);
export const meanScore = (g: TaskGroup): number | null => (g.scoreN > 0 ? g.scoreSum / g.scoreN : null);
export const meanCost = (g: TaskGroup): number | null => (g.costUnknown ? null : g.costSum / g.n);

/** Task ids on both sides in code-unit order (stable across locales), and those on one side only. */
export function pairTasks(a: SideTasks, b: SideTasks): { paired: string[]; onlyA: string[]; onlyB: string[] } {
  const byId = (x: string, y: string): number => (x < y ? -1 : x > y ? 1 : 0);
  const paired = [...a.byTask.keys()].filter((t) => b.byTask.has(t)).sort(byId);
  const onlyA = [...a.byTask.keys()].filter((t) => !b.byTask.has(t)).sort(byId);
  const onlyB = [...b.byTask.keys()].filter((t) => !a.byTask.has(t)).sort(byId);
  return { paired, onlyA, onlyB };
}
