/**
 * Input profiles: what the estimator reads of a turn and of a candidate model (shared/apiEstimator.ts names
 * them). The history encoder (hash-1024 or onnx-text:DIR) is chosen separately; a profile decides everything
 * around it, and the model card records both, so `score`, `whatif` and replay rebuild the inputs the
 * estimator was trained on.
 *
 *   routelens  (default)  history text of historyText.ts (task block, "## Turn k" with action and observation,
 *                         chars/4 budget, the latest turn's tail when nothing fits whole), followed by the 4
 *                         STRUCTURED_FEATURES; model features of modelFeatures.ts (prices incl. cached, limits,
 *                         cut-off months, mean output tokens and latency in the logs; log1p + z-score).
 *   mtrouter              the reference's inputs: history text of mtrouterHistory.ts counted with the encoder's
 *                         tokenizer (chars/4 without one), no structured features (the reference's state is the
 *                         text embedding alone), and the reference's 8 model attributes (modelFeatures.ts).
 */
import { DEFAULT_INPUT_PROFILE, INPUT_PROFILES, type InputProfileName } from '../../shared/apiEstimator.ts';
import { serialiseHistory, structuredFeatures, type EncodableHistory, type HistoryTurn, type StructuredInput, type TokenCounter } from './historyText.ts';
import { modelFeatures, mtrouterModelFeatures, type ModelFacts, type ModelFeatureResult } from './modelFeatures.ts';
import { mtrouterHistory } from './mtrouterHistory.ts';
import { STRUCTURED_FEATURES } from './weights.ts';

export { DEFAULT_INPUT_PROFILE, INPUT_PROFILES, type InputProfileName };

export interface InputProfile {
  readonly name: InputProfileName;
  /** Features appended after the text features of every history row, in order. */
  readonly structured: readonly string[];
  /** h_t for turn t = earlier.length; `task` is the episode's task text (for MTRouter logs, the first user message). */
  history(task: string | null, earlier: readonly HistoryTurn[], maxTokens: number, tokens: TokenCounter): EncodableHistory;
  /** Writes `structured` (in order) into out[offset …]. */
  writeStructured(input: StructuredInput, out: Float32Array, offset: number): void;
  /** The candidate models' standardised features, [K × 8], and how they were computed. */
  modelFeatures(facts: ModelFacts, models: readonly string[]): ModelFeatureResult;
}

/** An unknown profile name: a user error (CLI exit 1). */
export class ProfileError extends Error {
  override name = 'ProfileError';
}

const ROUTELENS: InputProfile = {
  name: 'routelens',
  structured: STRUCTURED_FEATURES,
  history: (task, earlier, maxTokens) => serialiseHistory(task, earlier, maxTokens),
  writeStructured: structuredFeatures,
  modelFeatures,
};

const MTROUTER: InputProfile = {
  name: 'mtrouter',
  structured: [],
  history: mtrouterHistory,
  writeStructured: () => {},
  modelFeatures: mtrouterModelFeatures,
};

const PROFILES: Record<InputProfileName, InputProfile> = { routelens: ROUTELENS, mtrouter: MTROUTER };

export function isProfileName(name: string): name is InputProfileName {
  return (INPUT_PROFILES as readonly string[]).includes(name);
}

/** The profile called `name` (default routelens); throws ProfileError for any other name. */
export function inputProfile(name: string = DEFAULT_INPUT_PROFILE): InputProfile {
  if (!isProfileName(name)) throw new ProfileError(`unknown input profile "${name}" (expected ${INPUT_PROFILES.join(' or ')})`);
  return PROFILES[name];
}
