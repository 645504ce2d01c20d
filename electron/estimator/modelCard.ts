/**
 * The model card written beside every trained estimator (`X.onnx` → `X.card.json`): what it was trained on,
 * how, and how well it does (issue 5 item 2 and 5). It is read back by `score` (to name and describe the
 * estimator in the database) and shown in the Estimator view. The schema is validated on read because a card
 * can come from anywhere a user copied a model from. The schema is part of the API contract (shared/).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { ModelCard } from '../../shared/apiEstimator.ts';

export { MODEL_CARD_SCHEMA, ModelCard } from '../../shared/apiEstimator.ts';

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

/** The card beside an ONNX file, or null when there is none or it does not read (a missing card hides the card, not the estimator). */
export function cardBeside(onnxPath: string | null): ModelCard | null {
  if (!onnxPath) return null;
  const path = modelCardPath(onnxPath);
  if (!existsSync(path)) return null;
  try {
    return readModelCard(path);
  } catch {
    return null;
  }
}
