/**
 * Compare (issue 18): side A against side B, paired by task, as shared/apiCompare.ts describes the answer.
 * Differences are B − A. The pieces: compareSides.ts (which sessions a side holds), pairTasks.ts (group by task,
 * average, pair), costAttribution.ts, counterfactualCost.ts; the statistics are shared/pairedStats.ts's.
 */
import {
  CompareInput,
  type CompareResult,
  type CompareSide,
  type CompareTask,
} from '../../shared/apiCompare.ts';
import { mcnemarExact, newcombePairedInterval, pairedMeanDiffIntervals, winsTiesLosses } from '../../shared/pairedStats.ts';
import { describeIssue } from '../../shared/canonical.ts';
import type { Db } from '../db/dbHandle.ts';
import { attributeCost } from './costAttribution.ts';
import { CompareError, type CompareReads, type SidePart } from './compareReads.ts';
import { selectSide, sqliteReads } from './compareSides.ts';
import { groupByTask, meanCost, meanScore, meanSuccess, pairTasks, type SideTasks, type TaskGroup } from './pairTasks.ts';

export { CompareError } from './compareReads.ts';

type Summary = CompareResult['a'];

function labelOf(side: CompareSide, parts: SidePart[]): string {
  if (side.label) return side.label;
  const runs = parts.map((p) => p.data.runName).join(', ');
  return side.where ? `${runs} (${side.where.field} = ${side.where.value})` : runs;
}

function summarise(side: CompareSide, parts: SidePart[], tasks: SideTasks): Summary {
  let episodes = 0;
  let withOutcome = 0;
  let successSum = 0;
  let successN = 0;
  let scoreSum = 0;
  let scoreN = 0;
  let knownCost = 0;
  let unpriced = 0;
  for (const { data, sessions } of parts) {
    const inSide = new Uint8Array(data.id.length);
    for (const i of sessions) inSide[i] = 1;
    const sessionUnknown = new Uint8Array(data.id.length);
    for (let i = 0; i < data.id.length; i++) {
      const r = data.root[i] as number;
      const s = r < 0 ? i : r;
      if (!inSide[s]) continue;
      knownCost += data.cost[i] as number;
      if ((data.unpriced[i] as number) > 0) sessionUnknown[s] = 1;
    }
    for (const i of sessions) {
      episodes++;
      const s = data.success[i] as number;
      const score = data.score[i] as number;
      if (s >= 0 || !Number.isNaN(score)) withOutcome++;
      if (s >= 0) {
        successSum += s;
        successN++;
      }
      if (!Number.isNaN(score)) {
        scoreSum += score;
        scoreN++;
      }
      unpriced += sessionUnknown[i] as number;
    }
  }
  let averaged = 0;
  for (const g of tasks.byTask.values()) if (g.n > 1) averaged++;
  return {
    label: labelOf(side, parts),
    runs: parts.map((p) => p.data.runName),
    episodes,
    tasks: tasks.byTask.size,
    with_outcome: withOutcome,
    success_rate: successN > 0 ? successSum / successN : null,
    mean_score: scoreN > 0 ? scoreSum / scoreN : null,
    known_cost: knownCost,
    unpriced_episodes: unpriced,
    tasks_averaged: averaged,
  };
}

/** One pair's winner through winsTiesLosses, so the per-task column and the totals apply one rule. */
function winnerOf(a: number, b: number): 'a' | 'b' | 'tie' {
  const w = winsTiesLosses([a], [b]);
  return w.a ? 'a' : w.b ? 'b' : 'tie';
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

export function compare(db: Db, request: CompareInput): CompareResult {
  return compareWith(sqliteReads(db), request);
}

/** Compare over any store's reads (compareSides.ts CompareReads). */
export function compareWith(reads: CompareReads, request: CompareInput): CompareResult {
  const parsed = CompareInput.safeParse(request);
  if (!parsed.success) throw new CompareError(describeIssue(parsed.error));
  const input = parsed.data;
  const partsA = selectSide(reads, input.a, 'A');
  const partsB = selectSide(reads, input.b, 'B');
  const tasksA = groupByTask(partsA);
  const tasksB = groupByTask(partsB);
  const { paired, onlyA, onlyB } = pairTasks(tasksA, tasksB);
  const a = summarise(input.a, partsA, tasksA);
  const b = summarise(input.b, partsB, tasksB);
  const outcomesKnown = a.with_outcome > 0 || b.with_outcome > 0;

  const notes: string[] = [];
  if (a.tasks_averaged > 0) notes.push(`${plural(a.tasks_averaged, 'task')} had several episodes on A: averaged first`);
  if (b.tasks_averaged > 0) notes.push(`${plural(b.tasks_averaged, 'task')} had several episodes on B: averaged first`);
  if (onlyA.length + onlyB.length > 0) {
    notes.push(`${plural(onlyA.length, 'task')} only on A and ${onlyB.length} only on B: not in the paired statistics`);
  }
  for (const [name, t] of [['A', tasksA], ['B', tasksB]] as const) {
    if (t.untasked.length > 0) notes.push(`${plural(t.untasked.length, 'episode')} on ${name} without a task id: unpaired`);
  }
  const children = [...partsA, ...partsB].reduce((s, p) => s + p.data.root.reduce((c, r) => c + (r >= 0 ? 1 : 0), 0), 0);
  if (children > 0) notes.push(`${plural(children, 'child episode')} (subagents, compactions) folded into their parent sessions`);
  if (paired.length === 0) notes.push('no task id is on both sides: nothing to pair');

  const counterfactual = input.counterfactual_model
    ? reads.counterfactual(uniqueRuns([...partsA, ...partsB]), input.counterfactual_model)
    : null;
  const cfOf = (parts: SidePart[], g: TaskGroup): number | null => {
    if (!counterfactual) return null;
    let sum = 0;
    for (const m of g.members) sum += counterfactual.sessionCost.get(parts[m.part]!.data.runId)![m.index] as number;
    return Number.isNaN(sum) ? null : sum / g.n;
  };

  // Per pair: the values the statistics use, in task order (NaN where a pair has no value: never resampled as 0).
  const successPairs = { both: 0, aOnly: 0, bOnly: 0, neither: 0 };
  const scoreDiffs = new Float64Array(paired.length).fill(Number.NaN);
  const costDiffs = new Float64Array(paired.length).fill(Number.NaN);
  let nScore = 0;
  let nCost = 0;
  let sumScore = 0;
  let sumCost = 0;
  let costUnknown = 0;
  const wins = { a: 0, tie: 0, b: 0 };
  const rows: CompareTask[] = [];
  for (const [p, task] of paired.entries()) {
    const ga = tasksA.byTask.get(task) as TaskGroup;
    const gb = tasksB.byTask.get(task) as TaskGroup;
    const [sa, sb] = [meanSuccess(ga), meanSuccess(gb)];
    const [xa, xb] = [meanScore(ga), meanScore(gb)];
    const [ca, cb] = [meanCost(ga), meanCost(gb)];
    if (sa !== null && sb !== null) {
      // A task succeeds when more than half its episodes do.
      const [oa, ob] = [sa > 0.5, sb > 0.5];
      if (oa && ob) successPairs.both++;
      else if (oa) successPairs.aOnly++;
      else if (ob) successPairs.bOnly++;
      else successPairs.neither++;
    }
    if (xa !== null && xb !== null) {
      scoreDiffs[p] = xb - xa;
      sumScore += xb - xa;
      nScore++;
    }
    if (ca !== null && cb !== null) {
      costDiffs[p] = cb - ca;
      sumCost += cb - ca;
      nCost++;
    } else costUnknown++;
    const winner = xa !== null && xb !== null ? winnerOf(xa, xb) : sa !== null && sb !== null ? winnerOf(sa, sb) : null;
    if (winner) wins[winner]++;
    if (rows.length < input.limit_tasks) {
      const row: CompareTask = {
        task_id: task,
        a_n: ga.n,
        b_n: gb.n,
        a_success: sa,
        b_success: sb,
        a_score: xa,
        b_score: xb,
        a_cost: ca,
        b_cost: cb,
        d_score: xa !== null && xb !== null ? xb - xa : null,
        d_cost: ca !== null && cb !== null ? cb - ca : null,
        winner,
        a_episode: ga.firstEpisode,
        b_episode: gb.firstEpisode,
      };
      if (counterfactual) {
        row.a_counterfactual_cost = cfOf(partsA, ga);
        row.b_counterfactual_cost = cfOf(partsB, gb);
      }
      rows.push(row);
    }
  }
  if (costUnknown > 0) notes.push(`${plural(costUnknown, 'paired task')} with an unknown cost on a side: not in the cost difference`);

  const n = successPairs.both + successPairs.aOnly + successPairs.bOnly + successPairs.neither;
  const success = n > 0
    ? {
        n,
        both: successPairs.both,
        a_only: successPairs.aOnly,
        b_only: successPairs.bOnly,
        neither: successPairs.neither,
        diff: (successPairs.bOnly - successPairs.aOnly) / n,
        ci: newcombePairedInterval(successPairs.both, successPairs.aOnly, successPairs.bOnly, successPairs.neither),
        p_value: mcnemarExact(successPairs.aOnly, successPairs.bOnly),
      }
    : null;
  // One bootstrap over the paired tasks for both intervals: score and cost see the same resamples.
  const [scoreCi, costCi] = pairedMeanDiffIntervals([scoreDiffs, costDiffs], input.bootstrap, input.seed);
  const score = nScore > 0 ? { n: nScore, mean_diff: sumScore / nScore, ci: scoreCi ?? null } : null;
  const cost = nCost > 0 ? { n: nCost, mean_diff: sumCost / nCost, ci: costCi ?? null, n_unknown: costUnknown } : null;

  const attributionA = attributeCost(reads, partsA);
  const attributionB = attributeCost(reads, partsB);
  for (const [name, x] of [['A', attributionA], ['B', attributionB]] as const) {
    if (x.unattributedEpisodes > 0) {
      notes.push(`${plural(x.unattributedEpisodes, 'episode')} on ${name} log only a total for several models: $${x.unattributedCost.toFixed(4)} not attributed to a model`);
    }
  }

  let cfSummary: CompareResult['counterfactual'] = null;
  if (counterfactual) {
    let unknown = 0;
    const total = (parts: SidePart[]): number | null => {
      let sum = 0;
      let known = 0;
      for (const p of parts) {
        const c = counterfactual.sessionCost.get(p.data.runId) as Float64Array;
        for (const i of p.sessions) {
          const v = c[i] as number;
          if (Number.isNaN(v)) unknown++;
          else {
            sum += v;
            known++;
          }
        }
      }
      return known > 0 ? sum : null;
    };
    cfSummary = { model: counterfactual.model.name, a_cost: total(partsA), b_cost: total(partsB), assumption: counterfactual.assumption, n_unknown: unknown };
  }

  return {
    a,
    b,
    pairing: {
      paired_tasks: paired.length,
      unpaired_a: [...onlyA, ...tasksA.untasked],
      unpaired_b: [...onlyB, ...tasksB.untasked],
      notes,
    },
    outcomes_known: outcomesKnown,
    stats: {
      success: outcomesKnown ? success : null,
      score: outcomesKnown ? score : null,
      cost,
      wins,
      bootstrap: input.bootstrap,
      seed: input.seed,
    },
    attribution: { a: attributionA.rows, b: attributionB.rows },
    counterfactual: cfSummary,
    tasks: rows,
    tasks_total: paired.length,
  };
}

function uniqueRuns(parts: SidePart[]): SidePart['data'][] {
  return [...new Map(parts.map((p) => [p.data.runId, p.data])).values()];
}
