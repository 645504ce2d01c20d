/**
 * Estimator → ONNX (opset 17, IR 8): one graph that scores every candidate model for a batch of histories.
 *
 *   input   history           float32 [batch, historyDim]
 *   output  s_hat             float32 [batch, K]
 *   output  model_embeddings  float32 [K, 64]      (z_a, for the embedding view)
 *
 * Why head 1 is split. The architecture scores MLP([z_x ; z_a]); built literally, the graph would tile every
 * history K times and multiply [batch·K, historyDim + 64] by W1, i.e. K·(historyDim + 64)·256 multiply-adds
 * per row in the largest layer. Since W1 = [W1x ; W1a] (historyDim history rows, then 64 model rows),
 *   [z_x ; z_a] · W1 + b1 = z_x · W1x + (z_a · W1a + b1)
 * and the bracket does not depend on the history. So z_a (a function of weights only) is precomputed in
 * TypeScript (forward.ts), `head1_model_term` = z_a · W1a + b1 [K, 256] is an initializer, and the graph does
 * one [batch, historyDim] × [historyDim, 256] MatMul, then broadcasts over K:
 *   h1 = Relu(Unsqueeze(history · W1x, 1) + head1_model_term)      [batch, K, 256]
 *   h2 = Relu(h1 · W2 + b2);  s = h2 · w3 + b3 → Reshape [batch, K]
 * Per row that is historyDim·256 + K·(256·256 + 256) multiply-adds instead of K·(historyDim + 64 + 256)·256:
 * at historyDim 1028 and K = 6, 0.66 M instead of 2.07 M, about 3× fewer (the measured gap is in bench/).
 *
 * `{ modelEncoderInGraph: true }` instead computes z_a inside the graph from the model features, attribute
 * layer(s), residuals, projection and LayerNormalization (ORT folds that constant subgraph at load, so it scores as fast);
 * the tests use it to check forward.ts's model encoder against ONNX Runtime.
 */
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { headModelTerm, checkWeights, modelEmbeddings } from './forward.ts';
import { AttributeType, DataType, encodeGraph, encodeModel } from './onnxProto.ts';
import type { DimMsg, ModelMsg, NodeMsg, TensorMsg, ValueInfoMsg } from './onnxProto.ts';
import { HEAD_HIDDEN, LAYER_NORM_EPS, META_HIDDEN, MODEL_EMBED_DIM, MODEL_FEATURES, RESIDUAL_DIM } from './weights.ts';
import type { EstimatorWeights } from './weights.ts';

/** Format tag in the metadata; the scorer refuses files without it or with another one. */
export const ESTIMATOR_ONNX_FORMAT = 'routelens-estimator/1';
export const OPSET = 17;
export const IR_VERSION = 8;
export const INPUT_HISTORY = 'history';
export const OUTPUT_S_HAT = 's_hat';
export const OUTPUT_MODEL_EMBEDDINGS = 'model_embeddings';
/** Metadata keys (ModelProto.metadata_props). */
export const META_KEYS = {
  format: 'routelens.format',
  models: 'routelens.models', // JSON array of model names, the order of the K axis
  historyDim: 'routelens.history_dim',
  modelEmbedDim: 'routelens.model_embed_dim',
  /** sha256 (hex) of the encoded GraphProto: a flipped weight byte would otherwise only change the scores. */
  graphSha256: 'routelens.graph_sha256',
} as const;

export interface ExportOptions {
  /** Compute z_a in the graph from the model-encoder weights instead of storing it (tests). */
  modelEncoderInGraph?: boolean;
}

export function exportOnnx(w: EstimatorWeights, options: ExportOptions = {}): Uint8Array {
  checkWeights(w);
  const K = w.models.length;
  const D = w.historyDim;
  const H1 = HEAD_HIDDEN[0];
  const H2 = HEAD_HIDDEN[1];
  const initializer: TensorMsg[] = [];
  const node: NodeMsg[] = [];
  const add = (op: string, input: string[], output: string, attribute?: NodeMsg['attribute']): void => {
    node.push({ name: output, op_type: op, input, output: [output], ...(attribute ? { attribute } : {}) });
  };

  // head1_model_term = z_a · W1a + b1, either precomputed or computed from the model encoder.
  if (options.modelEncoderInGraph) {
    const F = MODEL_FEATURES.length;
    initializer.push(
      floats('model_features', [K, F], w.modelFeatures),
      floats('meta_w', [F, META_HIDDEN], w.meta.w),
      floats('meta_b', [META_HIDDEN], w.meta.b),
      floats('residual', [K, RESIDUAL_DIM], w.residual),
      floats('proj_w', [META_HIDDEN + RESIDUAL_DIM, MODEL_EMBED_DIM], w.proj.w),
      floats('proj_b', [MODEL_EMBED_DIM], w.proj.b),
      floats('ln_gamma', [MODEL_EMBED_DIM], w.lnGamma),
      floats('ln_beta', [MODEL_EMBED_DIM], w.lnBeta),
      floats('head1_model_w', [MODEL_EMBED_DIM, H1], w.head1.w.subarray(D * H1)),
      floats('head1_b', [H1], w.head1.b),
    );
    add('MatMul', ['model_features', 'meta_w'], 'meta_mm');
    add('Add', ['meta_mm', 'meta_b'], 'meta_pre');
    add('Relu', ['meta_pre'], w.meta2 ? 'meta_hidden' : 'h_a');
    if (w.meta2) {
      initializer.push(floats('meta2_w', [META_HIDDEN, META_HIDDEN], w.meta2.w), floats('meta2_b', [META_HIDDEN], w.meta2.b));
      add('MatMul', ['meta_hidden', 'meta2_w'], 'meta2_mm');
      add('Add', ['meta2_mm', 'meta2_b'], 'h_a');
    }
    add('Concat', ['h_a', 'residual'], 'h_a_r', [{ name: 'axis', type: AttributeType.INT, i: 1 }]);
    add('MatMul', ['h_a_r', 'proj_w'], 'proj_mm');
    add('Add', ['proj_mm', 'proj_b'], 'proj_pre');
    add('LayerNormalization', ['proj_pre', 'ln_gamma', 'ln_beta'], OUTPUT_MODEL_EMBEDDINGS, [
      { name: 'axis', type: AttributeType.INT, i: -1 },
      { name: 'epsilon', type: AttributeType.FLOAT, f: LAYER_NORM_EPS },
    ]);
    add('MatMul', [OUTPUT_MODEL_EMBEDDINGS, 'head1_model_w'], 'head1_model_mm');
    add('Add', ['head1_model_mm', 'head1_b'], 'head1_model_term');
  } else {
    const z = modelEmbeddings(w);
    initializer.push(floats('z_a', [K, MODEL_EMBED_DIM], z), floats('head1_model_term', [K, H1], headModelTerm(w, z)));
    add('Identity', ['z_a'], OUTPUT_MODEL_EMBEDDINGS);
  }

  initializer.push(
    floats('head1_history_w', [D, H1], w.head1.w.subarray(0, D * H1)),
    floats('head2_w', [H1, H2], w.head2.w),
    floats('head2_b', [H2], w.head2.b),
    floats('out_w', [H2, 1], w.out.w),
    floats('out_b', [1], w.out.b),
    int64s('unsqueeze_axes', [1], [1]),
    int64s('s_hat_shape', [2], [-1, K]),
  );
  add('MatMul', [INPUT_HISTORY, 'head1_history_w'], 'head1_history_mm'); // [B, 256]
  add('Unsqueeze', ['head1_history_mm', 'unsqueeze_axes'], 'head1_history_b1k'); // [B, 1, 256]
  add('Add', ['head1_history_b1k', 'head1_model_term'], 'head1_pre'); // [B, K, 256]
  add('Relu', ['head1_pre'], 'h1');
  add('MatMul', ['h1', 'head2_w'], 'head2_mm');
  add('Add', ['head2_mm', 'head2_b'], 'head2_pre');
  add('Relu', ['head2_pre'], 'h2');
  add('MatMul', ['h2', 'out_w'], 'out_mm'); // [B, K, 1]
  add('Add', ['out_mm', 'out_b'], 'out_pre');
  add('Reshape', ['out_pre', 's_hat_shape'], OUTPUT_S_HAT); // [B, K]

  const graph: ModelMsg['graph'] = {
    name: 'routelens_estimator',
    node,
    initializer,
    input: [tensorInfo(INPUT_HISTORY, [{ dim_param: 'batch' }, { dim_value: D }])],
    output: [
      tensorInfo(OUTPUT_S_HAT, [{ dim_param: 'batch' }, { dim_value: K }]),
      tensorInfo(OUTPUT_MODEL_EMBEDDINGS, [{ dim_value: K }, { dim_value: MODEL_EMBED_DIM }]),
    ],
  };
  const model: ModelMsg = {
    ir_version: IR_VERSION,
    opset_import: [{ domain: '', version: OPSET }],
    producer_name: 'routelens',
    producer_version: ESTIMATOR_ONNX_FORMAT,
    doc_string: 'RouteLens outcome estimator: s_hat[b, a] for every history b and candidate model a (DESIGN §6).',
    graph,
    metadata_props: [
      { key: META_KEYS.format, value: ESTIMATOR_ONNX_FORMAT },
      { key: META_KEYS.models, value: JSON.stringify(w.models) },
      { key: META_KEYS.historyDim, value: String(D) },
      { key: META_KEYS.modelEmbedDim, value: String(MODEL_EMBED_DIM) },
      { key: META_KEYS.graphSha256, value: sha256(encodeGraph(graph)) },
    ],
  };
  return encodeModel(model);
}

export function writeOnnx(w: EstimatorWeights, path: string, options: ExportOptions = {}): void {
  writeFileSync(path, exportOnnx(w, options));
}

function floats(name: string, dims: number[], data: Float32Array): TensorMsg {
  const n = dims.reduce((p, d) => p * d, 1);
  if (data.length !== n) throw new Error(`${name}: ${data.length} values for shape [${dims.join(', ')}]`);
  // raw_data is little-endian, as are the platforms ORT runs on; copy so a subarray's offset does not matter.
  return { name, dims, data_type: DataType.FLOAT, raw_data: new Uint8Array(Float32Array.from(data).buffer) };
}

function int64s(name: string, dims: number[], data: number[]): TensorMsg {
  return { name, dims, data_type: DataType.INT64, int64_data: data };
}

function tensorInfo(name: string, dim: DimMsg[]): ValueInfoMsg {
  return { name, type: { tensor_type: { elem_type: DataType.FLOAT, shape: { dim } } } };
}

export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}
