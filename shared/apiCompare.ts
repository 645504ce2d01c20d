/**
 * The Compare contract (issue 18): side A against side B, each a run, a group of runs, or one run split by a field.
 * Episodes are paired by task id (several epochs or samples of a task are averaged first); statistics are paired
 * (exact McNemar and Newcombe's interval for success, seeded paired bootstrap for score and cost); cost is
 * attributed per model and per scope (main loop vs subagents); unknown outcomes and costs are counted apart.
 * Differences are always B − A.
 */
import { z } from 'zod';
import { ExportFigureResult, FigureFormat } from './apiAnalysis.ts';
import { COMPARE_FIGURE_IDS } from './charts/layouts/compareFigureIds.ts';

const id = z.number().int().positive();
const nullableNumber = z.number().nullable();
const interval = z.tuple([z.number(), z.number()]).nullable();

/** A field one run (or group) is split by: each side takes the episodes whose field equals its value. */
export const COMPARE_FIELDS = ['model', 'policy', 'budget_mode', 'split'] as const;
export const CompareField = z.enum(COMPARE_FIELDS);
export type CompareField = z.infer<typeof CompareField>;

export const CompareSide = z.object({
  runIds: z.array(id).min(1).max(1000),
  /**
   * Only the episodes whose field has this value. `model` is the episode's main model: the one that made most of
   * its main-loop calls (ties: the first to appear).
   */
  where: z.object({ field: CompareField, value: z.string().min(1).max(300) }).optional(),
  /** Shown name; default: the run names (and the field value). */
  label: z.string().max(200).optional(),
});
export type CompareSide = z.infer<typeof CompareSide>;

export const CompareInput = z.object({
  a: CompareSide,
  b: CompareSide,
  /** Bootstrap replicates for the score and cost intervals (0: no intervals). */
  bootstrap: z.number().int().min(0).max(20_000).default(2000),
  seed: z.number().int().min(0).max(2 ** 31 - 1).default(1),
  /** "What would each side have cost with every turn on this model" (replay's pricing and output-length ratio). */
  counterfactual_model: z.string().min(1).max(300).optional(),
  /** At most this many per-task rows in the answer (the statistics always use every pair). */
  limit_tasks: z.number().int().min(0).max(200_000).default(5000),
});
export type CompareInput = z.input<typeof CompareInput>;

export const CompareSideSummary = z.object({
  label: z.string(),
  runs: z.array(z.string()),
  /** Sessions (child episodes are part of their parent's). */
  episodes: z.number().int(),
  tasks: z.number().int(),
  /** Episodes with a known outcome (success or score). */
  with_outcome: z.number().int(),
  success_rate: nullableNumber,
  mean_score: nullableNumber,
  /** Sum of known costs; `unpriced_episodes` had a call whose cost is unknown (their known part is included). */
  known_cost: z.number(),
  unpriced_episodes: z.number().int(),
  /** Tasks with several episodes on this side, averaged into one (epochs, samples). */
  tasks_averaged: z.number().int(),
});

/** One model's share of a side's cost and tokens, in one scope. */
export const ModelCost = z.object({
  model: z.string(),
  /** `main`: the session's own calls; `subagent`: calls in child episodes (sidechains). */
  scope: z.enum(['main', 'subagent']),
  calls: z.number().int(),
  tokens_in: z.number(),
  tokens_out: z.number(),
  tokens_cached: z.number(),
  tokens_cache_write: z.number(),
  /** Known cost only; calls of unknown cost are counted in `unknown_calls`, never as $0. */
  cost: z.number(),
  unknown_calls: z.number().int(),
});
export type ModelCost = z.infer<typeof ModelCost>;

export const CompareTask = z.object({
  task_id: z.string(),
  a_n: z.number().int(),
  b_n: z.number().int(),
  /** Mean over the side's episodes of this task; null without outcomes. */
  a_success: nullableNumber,
  b_success: nullableNumber,
  a_score: nullableNumber,
  b_score: nullableNumber,
  /** Mean cost per episode; null when any of them has an unknown cost. */
  a_cost: nullableNumber,
  b_cost: nullableNumber,
  d_score: nullableNumber,
  d_cost: nullableNumber,
  /** By score (success when there is no score); null without outcomes on either side. */
  winner: z.enum(['a', 'b', 'tie']).nullable(),
  /** The first episode of the task on each side, for the split inspector. */
  a_episode: id,
  b_episode: id,
  /** Counterfactual cost of this task's A and B episodes on `counterfactual_model` (mean per episode). */
  a_counterfactual_cost: nullableNumber.optional(),
  b_counterfactual_cost: nullableNumber.optional(),
});
export type CompareTask = z.infer<typeof CompareTask>;

export const CompareResult = z.object({
  a: CompareSideSummary,
  b: CompareSideSummary,
  pairing: z.object({
    paired_tasks: z.number().int(),
    /** Task ids present on one side only (and episodes without a task id, by their episode id). */
    unpaired_a: z.array(z.string()),
    unpaired_b: z.array(z.string()),
    /** What the user should know about the pairing ("12 tasks had several episodes on A: averaged first"). */
    notes: z.array(z.string()),
  }),
  /** False when neither side has outcomes: only cost and behaviour are compared, and the view says so. */
  outcomes_known: z.boolean(),
  stats: z.object({
    success: z
      .object({
        /** Paired tasks with a known success on both sides; a task succeeds when more than half its episodes do. */
        n: z.number().int(),
        both: z.number().int(),
        a_only: z.number().int(),
        b_only: z.number().int(),
        neither: z.number().int(),
        /** B − A success rate over these tasks, with Newcombe's hybrid-score interval (1998, method 10). */
        diff: z.number(),
        ci: interval,
        /** Exact McNemar test (two-sided binomial on the discordant pairs). */
        p_value: z.number(),
      })
      .nullable(),
    score: z.object({ n: z.number().int(), mean_diff: z.number(), ci: interval }).nullable(),
    cost: z.object({ n: z.number().int(), mean_diff: z.number(), ci: interval, n_unknown: z.number().int() }).nullable(),
    /** Paired tasks where A wins, they tie, B wins (by `CompareTask.winner`). */
    wins: z.object({ a: z.number().int(), tie: z.number().int(), b: z.number().int() }),
    bootstrap: z.number().int(),
    seed: z.number().int(),
  }),
  attribution: z.object({ a: z.array(ModelCost), b: z.array(ModelCost) }),
  counterfactual: z
    .object({
      model: z.string(),
      a_cost: nullableNumber,
      b_cost: nullableNumber,
      /** The assumption, in words: tokens × the model's list price, output scaled by the learned length ratio. */
      assumption: z.string(),
      /** Episodes left out (no tokens logged, or the model has no price). */
      n_unknown: z.number().int(),
    })
    .nullable(),
  /** Per-task rows (paired tasks only), at most `limit_tasks`, ordered by task id; `tasks_total` counts all. */
  tasks: z.array(CompareTask),
  tasks_total: z.number().int(),
});
export type CompareResult = z.infer<typeof CompareResult>;

export const ExportCompareFigureRequest = z.object({
  request: CompareInput,
  figure: z.enum(COMPARE_FIGURE_IDS),
  format: FigureFormat,
  theme: z.enum(['light', 'dark']).default('light'),
  /** As for an analysis figure (exportFigure): the window passes its chart's width. */
  width: z.number().int().min(200).max(4000).optional(),
  scale: z.number().min(0.25).max(8).optional(),
  dpi: z.number().int().min(36).max(1200).optional(),
});
export type ExportCompareFigureRequest = z.input<typeof ExportCompareFigureRequest>;

/** The contract entry for shared/api.ts. */
export const compareContract = {
  /** A against B, paired by task: statistics, cost attribution, counterfactual cost, per-task rows. */
  compare: { input: CompareInput, output: CompareResult },
  /** One of the comparison's figures as SVG, PNG or vector PDF (captioned, named like analysis figures), or its data as CSV. */
  exportCompareFigure: { input: ExportCompareFigureRequest, output: ExportFigureResult },
} as const;
