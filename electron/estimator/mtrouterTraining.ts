/**
 * The network and training hyper-parameters of the MTRouter reference implementation
 * (github.com/ZhangYiqun018/MTRouter, MIT), as TrainOptions: what `--profile mtrouter` trains with.
 *
 * Sources, in the reference repository under src/miniagenticrouter/:
 *   research/training/model_encoder.py   attribute MLP Linear(8, 32) → ReLU → Linear(32, 32); residual
 *                                        embedding of 16 per model initialised to zeros; Linear(48, 64) →
 *                                        LayerNorm(64); residual L2 weight 0.01 (ModelEncoderConfig default),
 *                                        applied as weight · Σ r² (as ours)
 *   research/training/q_network.py       [z_x ; z_m] → (Linear → ReLU → Dropout) per hidden size → Linear(·, 1)
 *   config/research/training.yaml        hidden sizes [256, 256], dropout 0.1, 100 epochs, batch 64, AdamW
 *                                        lr 1e-3, weight decay 0.01, gradient clip 1.0, cosine schedule to
 *                                        min lr 1e-5, early stop patience 3, validation share 0.1
 *
 * The residual L2 weight has three values in the sources: 0.01 in model_encoder.py (the default its
 * ModelEncoderConfig applies), 1e-4 in training.yaml (under `residual_reg_weight`, a key no published code
 * reads; the training script the README names, scripts/train_q_function.py, is not in the repository) and
 * 1e-3 in the paper (App. A), which is also ours. The profile takes the published code's 0.01.
 * The rest of the list (layer sizes, dropout, the optimiser and its schedule) equals TRAIN_DEFAULTS.
 */
import type { TrainOptions } from './train.ts';

export const MTROUTER_TRAIN_CONFIG = {
  attributeLayers: 2,
  residualInit: 'zero',
  residualL2: 0.01,
  maxEpochs: 100,
  batchSize: 64,
  lr: 1e-3,
  minLr: 1e-5,
  weightDecay: 0.01,
  clipNorm: 1.0,
  patience: 3,
  dropout: 0.1,
} as const satisfies TrainOptions;
