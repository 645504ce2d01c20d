/**
 * The model card written beside every trained estimator (`X.onnx` → `X.card.json`): what it was trained on,
 * how, and how well it does (issue 5 item 2 and 5). It is read back by `score` (to name and describe the
 * estimator in the database) and shown in the Estimator view. The schema is validated on read because a card
 * can come from anywhere a user copied a model from.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { z } from 'zod';

export const MODEL_CARD_SCHEMA = 'routelens-estimator-card/1';

const Epoch = z.object({
  epoch: z.number(),
  trainLoss: z.number(),
  valMae: z.number(),
  lr: z.number(),
  bestEpoch: z.number(),
  seconds: z.number(),
});

const DecisionQualitySchema = z.object({
  truth_preset: z.string(),
  turns: z.number(),
  policies: z.array(z.object({ policy: z.string(), value: z.number() })),
  estimator_value: z.number(),
  best_other: z.object({ policy: z.string(), value: z.number(), margin: z.number() }),
  beats_every_single_model_and_random: z.boolean(),
  best_model_by_category: z.array(z.object({ category: z.string(), planted: z.string(), learned: z.string(), turns: z.number() })),
  categories_recovered: z.number(),
});

export const ModelCard = z.object({
  schema: z.literal(MODEL_CARD_SCHEMA),
  name: z.string(),
  created_at: z.string(),
  onnx_file: z.string(),
  onnx_sha256: z.string(),
  encoder: z.object({ name: z.string(), history_dim: z.number(), max_history_tokens: z.number() }),
  models: z.array(z.string()),
  config: z.record(z.string(), z.unknown()),
  data: z.object({
    database: z.string(),
    runs: z.array(z.string()),
    episodes: z.number(),
    train_episodes: z.number(),
    validation_episodes: z.number(),
    train_rows: z.number(),
    validation_rows: z.number(),
    skipped_episodes_no_outcome: z.number(),
    skipped_turns_outside_pool: z.number(),
  }),
  metrics: z.object({
    val_mae: z.number(),
    val_spearman: z.number().nullable(),
    baseline_mae: z.number().nullable(),
    train_mae: z.number(),
    epochs: z.number(),
    best_epoch: z.number(),
    stopped: z.enum(['early', 'max_epochs']),
    train_rows_per_second: z.number(),
    seconds: z.number(),
    history: z.array(Epoch),
  }),
  /** Only for simulated data with its truth file: decisionQuality.ts. */
  decision_quality: DecisionQualitySchema.nullable(),
});
export type ModelCard = z.infer<typeof ModelCard>;

export function modelCardPath(onnxPath: string): string {
  return onnxPath.replace(/\.onnx$/i, '') + '.card.json';
}

export function writeModelCard(path: string, card: ModelCard): void {
  writeFileSync(path, `${JSON.stringify(ModelCard.parse(card), null, 2)}\n`);
}

export function readModelCard(path: string): ModelCard {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new Error(`${path}: not a JSON model card (${e instanceof Error ? e.message : String(e)})`, { cause: e });
  }
  const parsed = ModelCard.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${path}: not a RouteLens model card (${issue ? `${issue.path.join('.')}: ${issue.message}` : 'invalid'})`);
  }
  return parsed.data;
}
