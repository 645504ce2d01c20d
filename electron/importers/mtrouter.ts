/**
 * What an MTRouter trajectory says about its task and outcome, read as the reference's parser reads it
 * (research/trajectory/parser.py), for files that name a benchmark:
 *
 * - benchmark: `info.benchmark`, else HLE when `info.benchmark_data` holds a `judge_result`, else ScienceWorld
 *   when `info` has `task_name` and `variation_idx`. A file with none of these is not treated as MTRouter's
 *   (the reference would default to ScienceWorld; a plain mini-swe-agent SWE-bench file has none of them).
 * - score: `info.final_score`, else HLE's `judge_result.correct` as 1 / 0, else (other benchmarks) `info.correct`
 *   as 100 / 0; when none is there, the run's results.json, and failing that 0, as the reference scores it.
 *   Ranges: ScienceWorld [-100, 100], HLE [0, 1]; any other benchmark name gets ScienceWorld's, as in the
 *   reference. Success: the score reaches the top of its range (ScienceWorld 100, the task completed; HLE a
 *   correct answer), which is the reference's `success_rate` threshold 1.0 on the normalised score.
 * - task id: `info.task_id` without the collector's `_run<k>` suffix (ScienceWorld keeps it there, HLE keeps
 *   the run in `info.run_id`), so the runs of one task group as one task; the episode id keeps the run.
 * - category: HLE's subject category (`benchmark_data.category`), ScienceWorld's task name.
 * - split: mtrouterSplits.ts.
 * - what explains the outcome: HLE's `ground_truth` as the target, the submission (else the logged prediction) as
 *   the answer, `judge_result` as the scorer (`correct` its value, `reasoning` its explanation, the rest as logged);
 *   a score read from results.json or given by default says so in a note.
 */
import type { OutcomeExplanation, OutcomeScorer } from '../../shared/canonical.ts';
import type { Info } from './miniSweAgentFormat.ts';
import { jsonRecord, jsonValue, loggedText } from './outcomeValues.ts';
import { runIdSplit, runResults, type RunResult } from './mtrouterRunFiles.ts';
import { hleSplit, scienceWorldSplit } from './mtrouterSplits.ts';

export const SCIENCEWORLD = 'scienceworld';
export const HLE = 'hle';

/** Score ranges of the reference's BENCHMARK_CONFIGS; other benchmarks fall back to ScienceWorld's. */
const SCIENCEWORLD_RANGE: [number, number] = [-100, 100];
const SCORE_RANGE = new Map<string, [number, number]>([[SCIENCEWORLD, SCIENCEWORLD_RANGE], [HLE, [0, 1]]]);

const RUN_SUFFIX = /_run\d+$/;

export function benchmarkOf(info: Info | null | undefined): string | null {
  if (!info) return null;
  if (info.benchmark != null) return info.benchmark;
  if (info.benchmark_data?.judge_result !== undefined) return HLE;
  if (info.task_name !== undefined && info.variation_idx !== undefined) return SCIENCEWORLD;
  return null;
}

export interface MtrouterFacts {
  benchmark: string;
  task: { id: string; type: string; category: string | null; split: string | null };
  outcome: { score: number; score_range: [number, number]; success: boolean } & OutcomeExplanation;
}

/**
 * The instance a file records: the collector's `<task_id>_run<k>` (also the trajectory's folder name), or
 * `fallback` (the file's stem) when `info.task_id` is absent.
 */
export function mtrouterInstance(info: Info, fallback: string): string {
  const id = info.task_id;
  if (!id) return fallback;
  return info.run_id != null && !RUN_SUFFIX.test(id) ? `${id}_run${info.run_id}` : id;
}

/** The score and, when it was not read from the trajectory itself, where it came from. */
function scoreOf(benchmark: string, info: Info, result: RunResult | undefined): { score: number | null; fromResults: boolean } {
  const fromFile = (score: number | null) => ({ score, fromResults: false });
  const fromResults = (score: number | null) => ({ score, fromResults: score !== null });
  if (info.final_score != null) return fromFile(info.final_score);
  if (benchmark === HLE) {
    const logged = info.benchmark_data?.judge_result?.correct;
    if (logged != null) return fromFile(logged ? 1 : 0);
    if (result?.correct != null) return fromResults(result.correct ? 1 : 0);
    return fromResults(result?.score ?? null);
  }
  if (result?.score != null) return fromResults(result.score);
  return fromFile(info.correct == null ? null : info.correct ? 100 : 0);
}

/** The judge's verdict as a scorer: `correct` its value, `reasoning` its explanation, the answer it read, the rest as logged. */
function judgeScorer(judge: NonNullable<NonNullable<Info['benchmark_data']>['judge_result']>): OutcomeScorer {
  const { correct, reasoning, ...rest } = judge as Record<string, unknown>;
  const explanation = loggedText(reasoning);
  // The answer the judge read: its extraction when it logs one, else the prediction it was given.
  const answerKey = loggedText(rest.extracted_answer) !== null ? 'extracted_answer' : loggedText(rest.prediction) !== null ? 'prediction' : null;
  const answer = answerKey === null ? null : loggedText(rest[answerKey]);
  const metadata: Record<string, unknown> = { ...rest };
  if (answerKey !== null) delete metadata[answerKey];
  // A reasoning that is not text stays in the metadata, as logged.
  if (explanation === null && reasoning !== undefined) metadata.reasoning = reasoning;
  return {
    name: 'HLE judge',
    source: 'info.benchmark_data.judge_result',
    value: correct === undefined ? null : jsonValue(correct),
    answer,
    explanation,
    metadata: jsonRecord(metadata),
  };
}

/**
 * How an unjudged submission stands to the ground truth, by text alone (case and surrounding spaces aside): equal, or
 * holding it as a whole word ("4.95 rad/s" holds "4.95", "14.95" does not); null otherwise. Never a verdict.
 */
function textMatch(submission: string, truth: string): 'equals' | 'contains' | null {
  const [a, b] = [submission.trim().toLowerCase(), truth.trim().toLowerCase()];
  if (b === '') return null;
  if (a === b) return 'equals';
  const escaped = b.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^\\p{L}\\p{N}])${escaped}($|[^\\p{L}\\p{N}])`, 'u').test(a) ? 'contains' : null;
}

/** Target, answer, the judge and the notes that say where a score not read from the judge came from. */
function explanationOf(benchmark: string, info: Info, score: { score: number | null; fromResults: boolean }): OutcomeExplanation {
  const data = info.benchmark_data;
  const target = loggedText(data?.ground_truth);
  // The submission is the answer; an empty one (a collector that saves none) leaves the answer the judge was given.
  const submitted = loggedText(info.submission);
  const answer = submitted?.trim() ? submitted : (loggedText(data?.prediction) ?? submitted);
  const judge = data?.judge_result;
  const notes: string[] = [];
  if (score.fromResults) notes.push("Score read from the run's results.json: this file holds no verdict of its own.");
  if (score.score === null) {
    notes.push(
      benchmark === HLE
        ? 'Scored 0 by default: the file has no judge_result (the judge did not run on it, or ran after it was saved) and no ' +
            "results.json beside the run has an entry for it. MTRouter's parser scores a missing judge result as 0; it is not a verdict."
        : "Scored 0 by default: the file has no info.final_score and no results.json beside the run has an entry for it, as MTRouter's parser scores it.",
    );
    const match = target !== null && answer !== null ? textMatch(answer, target) : null;
    if (match === 'equals') notes.push(`The submission ("${answer?.trim().slice(0, 200)}") equals the ground truth, but no judge scored it.`);
    if (match === 'contains') {
      notes.push(`The submission ("${answer?.trim().slice(0, 200)}") contains the ground truth ("${target?.trim().slice(0, 200)}"), but no judge scored it.`);
    }
  }
  return {
    target,
    answer,
    scorers: judge ? [judgeScorer(judge)] : null,
    notes: notes.length > 0 ? notes : null,
  };
}

/**
 * The MTRouter reading of a trajectory's `info`; null when it names no benchmark. `instance` is the episode
 * (mtrouterInstance), `runDir` the folder of the run's results.json.
 */
export function mtrouterFacts(info: Info | null | undefined, instance: string, runDir: string, warn: (m: string) => void): MtrouterFacts | null {
  const benchmark = benchmarkOf(info);
  if (!info || benchmark === null) return null;
  const result = runResults(runDir, warn)?.get(instance);

  const read = scoreOf(benchmark, info, result);
  const explanation = explanationOf(benchmark, info, read);
  let score = read.score;
  if (score === null) {
    warn(`no outcome (${benchmark === HLE ? 'no judge_result' : 'no info.final_score'}, none in results.json): scored 0, as MTRouter's parser does`);
    score = 0;
  }
  const range = SCORE_RANGE.get(benchmark) ?? SCIENCEWORLD_RANGE;
  if (!SCORE_RANGE.has(benchmark)) warn(`benchmark "${benchmark}" is not ScienceWorld or HLE: scored on ScienceWorld's range [-100, 100], as MTRouter's parser does`);

  const rawTaskId = info.task_id || (info.task_name != null ? `${info.task_name}_var${info.variation_idx ?? 0}` : instance);
  let category: string | null;
  let split: string | null;
  if (benchmark === HLE) {
    category = info.benchmark_data?.category ?? result?.category ?? null;
    split = hleSplit(category);
    if (split === 'id') split = runIdSplit(runDir) ?? 'id';
  } else {
    category = benchmark === SCIENCEWORLD ? (info.task_name ?? null) : (info.benchmark_data?.category ?? info.task_name ?? null);
    split = benchmark === SCIENCEWORLD && info.task_name != null ? scienceWorldSplit(info.task_name, info.variation_idx ?? null) : null;
  }
  return {
    benchmark,
    task: { id: rawTaskId.replace(RUN_SUFFIX, ''), type: benchmark, category, split },
    outcome: { score, score_range: range, success: score >= range[1], ...explanation },
  };
}
