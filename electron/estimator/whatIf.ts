/**
 * "What if another model had taken this turn?" (DESIGN §7, issue 5 item 7). For every candidate model of
 * the estimator: ŝ(h_t, m), Δŝ against the logged model, what the turn would have cost on m, and the k
 * logged turns with the most similar histories where m was actually chosen, with their real outcomes.
 *
 * ŝ comes from `estimates` when the turn was scored; otherwise the turn's history is encoded here and scored
 * through ONNX Runtime with the estimator's file (or the shipped default) and the history encoder its card
 * names, so what-if works before anyone ran `score`. Cost: the turn's own tokens priced at m, the output scaled by m's learned output-length ratio
 * relative to the logged model's (replay/outputLength.ts; priceTurn is the importer's pricing).
 * Neighbours: cosine between history sketches (historyRows.ts), over the turns `score` sketched, excluding the
 * turn's own episode, episodes of the turn's task type first (a SWE turn's evidence is SWE turns before it is
 * ScienceWorld ones, however similar their text); a cache of all sketches (int8, 64 B a turn) is built once per
 * database state. Without an estimator named, the database's estimator in use answers (inUse.ts). The result
 * carries the estimator's training domain and whether this turn lies outside it (shared/estimatorDomain.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Db } from '../db/dbHandle.ts';
import { priceTurn } from '../db/models.ts';
import { episodeMeta, turnsOfEpisode } from '../db/turnQueries.ts';
import { storedExpectedSteps } from '../analysis/storedExpectedSteps.ts';
import { learnOutputRatios } from '../replay/outputLength.ts';
import { sketchOf, SKETCH_DIM } from './historyRows.ts';
import { openScorer, type Provider } from './ortScoring.ts';
import { encoderFor, registerEstimator } from './scoreDatabase.ts';
import { estimatorInUse } from './inUse.ts';
import { cardBeside } from './modelCard.ts';
import { domainOf } from './trainingDomain.ts';
import { extrapolationReasons, type EstimatorDomain, type ExtrapolationReason } from '../../shared/estimatorDomain.ts';

export const DEFAULT_ESTIMATOR_PATH = fileURLToPath(new URL('../../models/default-estimator.onnx', import.meta.url));

export class WhatIfError extends Error {}

export interface WhatIfNeighbour {
  episode: string;
  episode_id: number;
  turn: number;
  /** The neighbour episode's normalised final score (null when unknown). */
  outcome: number | null;
  success: boolean | null;
  similarity: number;
  same_task_type: boolean;
}

export interface WhatIfCandidate {
  model: string;
  s_hat: number;
  /** ŝ(m) − ŝ(logged model); null when the logged model is not one of the estimator's candidates. */
  delta: number | null;
  cost_usd: number | null;
  neighbours: WhatIfNeighbour[];
}

export interface WhatIfResult {
  episode: string;
  episode_id: number;
  turn: number;
  logged_model: string;
  task_type: string | null;
  domain: EstimatorDomain | null;
  extrapolation: ExtrapolationReason[];
  /** Where ŝ came from: the provider that scored it (stored estimates keep the provider of their `score` run). */
  provider: Provider | 'stored';
  estimator: { id: number; name: string };
  /** ŝ read from `estimates`, or computed now for this turn. */
  source: 'estimates' | 'computed';
  logged_cost_usd: number;
  candidates: WhatIfCandidate[];
  /** Turns sketched (the neighbour search space); 0 until `score` ran on this database. */
  sketched_turns: number;
}

export interface SketchIndex {
  key: string;
  turnId: Int32Array;
  modelId: Int32Array;
  episodeId: Int32Array;
  /** The episode's task type as an index into `taskTypes`; −1 when the log names none. */
  taskType: Int32Array;
  taskTypes: string[];
  t: Int32Array;
  vec: Int8Array;
}

const sketchCache = new WeakMap<Db, SketchIndex>();

function sketchIndex(db: Db): SketchIndex {
  const key = db.prepare('SELECT COUNT(*) || \':\' || COALESCE(MAX(turn_id), 0) FROM history_sketches').pluck().get() as string;
  const hit = sketchCache.get(db);
  if (hit && hit.key === key) return hit;
  const n = Number(key.split(':')[0]);
  const index: SketchIndex = {
    key,
    turnId: new Int32Array(n),
    modelId: new Int32Array(n),
    episodeId: new Int32Array(n),
    taskType: new Int32Array(n),
    taskTypes: [],
    t: new Int32Array(n),
    vec: new Int8Array(n * SKETCH_DIM),
  };
  const typeIndex = new Map<string, number>();
  let i = 0;
  const rows = db
    .prepare(`SELECT s.turn_id, s.vec, t.model_id, t.episode_id, t.t, e.task_type FROM history_sketches s JOIN turns t ON t.id = s.turn_id
      JOIN episodes e ON e.id = t.episode_id`)
    .iterate() as Iterable<{ turn_id: number; vec: Buffer; model_id: number; episode_id: number; t: number; task_type: string | null }>;
  for (const r of rows) {
    if (i >= n) break;
    const f = new Float32Array(r.vec.buffer, r.vec.byteOffset, SKETCH_DIM);
    for (let j = 0; j < SKETCH_DIM; j++) index.vec[i * SKETCH_DIM + j] = Math.round((f[j] as number) * 127);
    index.turnId[i] = r.turn_id;
    index.modelId[i] = r.model_id;
    index.episodeId[i] = r.episode_id;
    index.t[i] = r.t;
    let type = -1;
    if (r.task_type !== null) {
      type = typeIndex.get(r.task_type) ?? index.taskTypes.length;
      if (type === index.taskTypes.length) {
        typeIndex.set(r.task_type, type);
        index.taskTypes.push(r.task_type);
      }
    }
    index.taskType[i] = type;
    i++;
  }
  sketchCache.set(db, index);
  return index;
}

/** The k best of one scan, one turn per episode: k turns of one episode would be one piece of evidence, not k. */
class TopK {
  readonly best: { i: number; sim: number }[] = [];
  constructor(
    private readonly k: number,
    private readonly episodeOf: Int32Array,
  ) {}
  offer(i: number, sim: number): void {
    const best = this.best;
    if (best.length >= this.k && sim <= (best[best.length - 1] as { sim: number }).sim) return;
    const same = best.findIndex((b) => this.episodeOf[b.i] === this.episodeOf[i]);
    if (same >= 0) {
      if ((best[same] as { sim: number }).sim >= sim) return;
      best.splice(same, 1);
    }
    best.push({ i, sim });
    best.sort((x, y) => y.sim - x.sim);
    if (best.length > this.k) best.pop();
  }
}

/**
 * The k most similar sketched turns on `modelId` (one per episode, never `excludeEpisode`'s): index positions,
 * turns of episodes with task type `taskType` (an index into `taskTypes`; −1 prefers none) first, each group
 * best first. Other task types only fill the places the same type leaves empty.
 */
export function nearest(index: SketchIndex, query: Int8Array, modelId: number, excludeEpisode: number, k: number, taskType = -1): { i: number; sim: number; sameType: boolean }[] {
  let qq = 0;
  for (let j = 0; j < SKETCH_DIM; j++) qq += (query[j] as number) ** 2;
  if (qq === 0) return [];
  const same = new TopK(k, index.episodeId);
  const other = new TopK(k, index.episodeId);
  const n = index.turnId.length;
  for (let i = 0; i < n; i++) {
    if (index.modelId[i] !== modelId || index.episodeId[i] === excludeEpisode) continue;
    let dot = 0;
    let vv = 0;
    const o = i * SKETCH_DIM;
    for (let j = 0; j < SKETCH_DIM; j++) {
      const v = index.vec[o + j] as number;
      dot += v * (query[j] as number);
      vv += v * v;
    }
    if (vv === 0) continue;
    const sim = dot / Math.sqrt(qq * vv);
    if (taskType >= 0 && index.taskType[i] === taskType) same.offer(i, sim);
    else other.offer(i, sim);
  }
  return [...same.best.map((b) => ({ ...b, sameType: true })), ...other.best.map((b) => ({ ...b, sameType: false }))].slice(0, k);
}

interface EstimatorChoice {
  id: number;
  name: string;
  path: string | null;
  provider: string | null;
}

async function chooseEstimator(db: Db, wanted: number | undefined, register: RegisterEstimator): Promise<EstimatorChoice> {
  if (wanted !== undefined) {
    const row = db.prepare('SELECT id, name, onnx_path AS path, provider FROM estimators WHERE id = ?').get(wanted) as EstimatorChoice | undefined;
    if (!row) throw new WhatIfError(`no estimator with id ${wanted}`);
    return row;
  }
  const inUse = estimatorInUse(db);
  if (inUse) return db.prepare('SELECT id, name, onnx_path AS path, provider FROM estimators WHERE id = ?').get(inUse.id) as EstimatorChoice;
  if (!existsSync(DEFAULT_ESTIMATOR_PATH)) {
    throw new WhatIfError('no estimator: train one (routelens train --db F --out model.onnx) or restore models/default-estimator.onnx');
  }
  const id = await register(DEFAULT_ESTIMATOR_PATH, readFileSync(DEFAULT_ESTIMATOR_PATH));
  return db.prepare('SELECT id, name, onnx_path AS path, provider FROM estimators WHERE id = ?').get(id) as EstimatorChoice;
}

/** Registers an estimator file and gives its id (a write: the API does it on a writer connection, in turn). */
export type RegisterEstimator = (modelPath: string, bytes: Uint8Array) => number | Promise<number>;

export interface WhatIfOptions {
  estimatorId?: number;
  /** Neighbours per candidate (default 5). */
  k?: number;
  /** How the default estimator gets registered when none is: on `db` itself unless given (`db` may be read-only). */
  register?: RegisterEstimator;
}

export async function whatIf(db: Db, episodeId: number, t: number, options: WhatIfOptions = {}): Promise<WhatIfResult> {
  const meta = episodeMeta(db, episodeId);
  if (!meta) throw new WhatIfError(`no episode with id ${episodeId}`);
  const turns = turnsOfEpisode(db, episodeId);
  const turn = turns.find((x) => x.t === t);
  if (!turn) throw new WhatIfError(`episode ${episodeId} has no turn ${t} (it has ${turns.length})`);
  const extId = db.prepare('SELECT ext_id FROM episodes WHERE id = ?').pluck().get(episodeId) as string;
  const k = options.k ?? 5;
  const est = await chooseEstimator(db, options.estimatorId, options.register ?? ((path, bytes) => registerEstimator(db, path, bytes)));

  // ŝ: stored, or computed now through ORT; the history vector also gives the neighbour-search sketch.
  const stored = db
    .prepare('SELECT m.name AS model, s.s_hat FROM estimates s JOIN models m ON m.id = s.model_id WHERE s.estimator_id = ? AND s.turn_id = ? ORDER BY m.id')
    .all(est.id, turn.id) as { model: string; s_hat: number }[];
  const earlier = turns.filter((x) => x.t < t);
  const prev = earlier.at(-1);
  const structured = {
    t,
    expectedSteps: storedExpectedSteps(meta),
    previousSeverity: prev?.max_severity ?? 0,
    previousSwitched: prev?.switched === 1,
  };
  const sketch = new Float32Array(SKETCH_DIM);
  let scores: { model: string; s_hat: number }[] = stored;
  let provider: WhatIfResult['provider'] = est.provider ? (est.provider as Provider) : 'stored';
  let source: WhatIfResult['source'] = 'estimates';
  if (stored.length === 0 && (!est.path || !existsSync(est.path))) {
    throw new WhatIfError(`estimator ${est.id} (${est.name}) has no ŝ for this turn and its ONNX file is missing`);
  }
  if (stored.length === 0 && est.path) {
    const scorer = await openScorer(est.path);
    try {
      const encoder = await encoderFor(est.path, scorer.historyDim);
      try {
        const history = encoder.history(meta.task_text, earlier, encoder.historyTokens);
        const vector = await encoder.encode([{ history, structured }]);
        sketchOf(vector, 0, sketch, 0, encoder.textDim);
        const s = await scorer.score(vector, 1);
        scores = scorer.models.map((model, a) => ({ model, s_hat: s[a] as number }));
      } finally {
        await encoder.close();
      }
      provider = scorer.provider;
      source = 'computed';
    } finally {
      await scorer.close();
    }
  } else {
    const storedSketch = db.prepare('SELECT vec FROM history_sketches WHERE turn_id = ?').pluck().get(turn.id) as Buffer | undefined;
    if (storedSketch) sketch.set(new Float32Array(storedSketch.buffer, storedSketch.byteOffset, SKETCH_DIM));
  }
  const logged = scores.find((s) => s.model === turn.model);

  const models = db.prepare('SELECT id, name, price_in_per_m, price_out_per_m, price_cached_per_m FROM models').all() as {
    id: number;
    name: string;
    price_in_per_m: number | null;
    price_out_per_m: number | null;
    price_cached_per_m: number | null;
  }[];
  const byName = new Map(models.map((m) => [m.name, m]));
  const ratios = learnOutputRatios(db).ratio;
  const loggedModel = byName.get(turn.model);
  const loggedRatio = (loggedModel && ratios.get(loggedModel.id)) || 1;

  const index = sketchIndex(db);
  const taskType = meta.task_type === null ? -1 : index.taskTypes.indexOf(meta.task_type);
  const domain = domainOf(db, cardBeside(est.path));
  // Without a card the candidates are the models the estimator scored here.
  const extrapolation = extrapolationReasons(domain ?? { task_types: null, task_types_from: 'unknown', runs: [], models: scores.map((x) => x.model) }, {
    task_type: meta.task_type,
    model: turn.model,
  });
  const query = new Int8Array(SKETCH_DIM);
  for (let j = 0; j < SKETCH_DIM; j++) query[j] = Math.round((sketch[j] as number) * 127);
  const episodeOf = db.prepare('SELECT ext_id, score_norm, success FROM episodes WHERE id = ?');

  const candidates: WhatIfCandidate[] = scores.map(({ model, s_hat }) => {
    const m = byName.get(model);
    const ratio = (m && ratios.get(m.id)) || 1;
    const cost = m
      ? priceTurn(m, { in: turn.tokens_in, out: turn.tokens_out === null ? null : (turn.tokens_out * ratio) / loggedRatio, cached: turn.tokens_cached })
      : null;
    const neighbours = m
      ? nearest(index, query, m.id, episodeId, k, taskType).map(({ i, sim, sameType }) => {
          const e = episodeOf.get(index.episodeId[i]) as { ext_id: string; score_norm: number | null; success: number | null };
          return {
            episode: e.ext_id,
            episode_id: index.episodeId[i] as number,
            turn: index.t[i] as number,
            outcome: e.score_norm,
            success: e.success === null ? null : e.success === 1,
            similarity: Math.round(sim * 1000) / 1000,
            same_task_type: sameType,
          };
        })
      : [];
    return { model, s_hat, delta: logged ? s_hat - logged.s_hat : null, cost_usd: cost, neighbours };
  });
  candidates.sort((a, b) => b.s_hat - a.s_hat);
  return {
    episode: extId,
    episode_id: episodeId,
    turn: t,
    logged_model: turn.model,
    task_type: meta.task_type,
    domain,
    extrapolation,
    provider,
    estimator: { id: est.id, name: est.name },
    source,
    logged_cost_usd: turn.cost,
    candidates,
    sketched_turns: index.turnId.length,
  };
}
